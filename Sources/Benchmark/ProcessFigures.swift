import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a running process holds at one moment, read from /proc: memory, open file descriptors, threads.
struct ProcessFigures {
    /// Resident now (VmRSS), split into anonymous (heap, stacks: the process's own) and file-backed (code and
    /// data pages of the executable and libraries, clean and shared with the page cache).
    let residentKiB: Int, anonymousKiB: Int, fileBackedKiB: Int
    /// The most ever resident (VmHWM).
    let peakKiB: Int
    let fileDescriptors: Int
    /// Threads (/proc/PID/task, the list /proc/PID/status counts as Threads), and of them those of libdispatch's
    /// pool, where the host's timers run: libdispatch starts these and retires them itself once idle, so their
    /// number at one moment says nothing about a leak, only their bound does.
    let threads: Int, dispatchWorkers: Int

    init?(pid: Int32) {
        let status = Self.status(pid: pid)
        guard let resident = status["VmRSS"], let anonymous = status["RssAnon"], let file = status["RssFile"],
            let peak = status["VmHWM"],
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        (residentKiB, anonymousKiB, fileBackedKiB, peakKiB) = (resident, anonymous, file, peak)
        fileDescriptors = descriptors.count
        let threadNames = Self.threadNames(pid: pid)  // one listing for both counts
        threads = threadNames.count
        dispatchWorkers = threadNames.filter(Self.isDispatchWorker).count
    }

    static func threadNames(pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8) }
    }

    /// libdispatch names a pool thread after its root queue ("com.apple.root.default-qos.overcommit"), of which
    /// libdispatch keeps the last 15 bytes (a thread name holds 15).
    static func isDispatchWorker(_ name: String) -> Bool { name.contains("qos") }

    /// The numeric fields of /proc/PID/status ("VmHWM:\t  17660 kB"), by name; sizes in KiB.
    static func status(pid: Int32) -> [String: Int] {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return [:] }
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0].hasSuffix(":"), let value = Int(words[1]) else { continue }
            fields[String(words[0].dropLast())] = value
        }
        return fields
    }

    var json: JSONValue {
        .object([
            ("rssKiB", .number(Double(residentKiB))), ("anonymousKiB", .number(Double(anonymousKiB))),
            ("fileBackedKiB", .number(Double(fileBackedKiB))), ("peakKiB", .number(Double(peakKiB))),
            ("fds", .number(Double(fileDescriptors))), ("threads", .number(Double(threads))),
            ("dispatchWorkers", .number(Double(dispatchWorkers))),
        ])
    }
}
