import Glibc
import Testing

@testable import Processes

/// What every child the bridge starts inherits, and what it does not: the same rules for pinentry, the probed
/// host and the demo's browser, since all three are started by `Spawn`.
struct SpawnTests {
    /// Everything a child wrote to its stdout, once it has exited.
    static func output(of child: ChildProcess) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(child.output, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        #expect(child.waitForExit(seconds: 10))
        return String(decoding: bytes, as: UTF8.self)
    }

    static func shell(_ script: String, environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(executable: "/bin/sh", arguments: ["-c", script], environment: environment)
    }

    @Test func theChildGetsExactlyTheEnvironmentGiven() throws {
        let child = try Self.shell("echo \"$GIVEN|${HOME-unset}\"", environment: ["GIVEN": "yes"])
        #expect(Self.output(of: child) == "yes|unset\n")
    }

    /// A descriptor opened here without O_CLOEXEC (as another thread might) does not reach the child.
    @Test func theChildInheritsOnlyItsStandardDescriptors() throws {
        let leaked = open("/dev/null", O_RDONLY)
        try #require(leaked >= 3)
        defer { close(leaked) }
        let child = try Self.shell("ls /proc/$$/fd")  // the shell's descriptors, read by another process
        #expect(Self.output(of: child).split(separator: "\n").sorted() == ["0", "1", "2"])
    }

    /// Ignored here (the host ignores SIGPIPE; tests may ignore more), at its default in the child: a pinentry
    /// must be able to take SIGINT as "cancel".
    @Test func theChildStartsWithNoSignalIgnoredOrBlocked() throws {
        let previous = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previous) }
        let child = try Self.shell("exec grep -E '^Sig(Ign|Blk):' /proc/self/status")
        let masks = Self.output(of: child).split(separator: "\n").compactMap {
            UInt64($0.split(separator: "\t").last ?? "", radix: 16)
        }
        // Signals 1–31; glibc's spawn itself ignores its internal real-time signals (32, 33) in the child.
        #expect(masks.count == 2 && masks.allSatisfy { $0 & 0x7fff_ffff == 0 })
    }

    @Test func aNewSessionMakesTheChildLeadItsOwnProcessGroup() throws {
        let pid = try Spawn.start(
            ["/bin/sleep", "5"], environment: [], stdin: .file("/dev/null", flags: O_RDONLY),
            stdout: .file("/dev/null", flags: O_WRONLY), stderr: .descriptor(1), newSession: true)
        defer { _ = ProcessHandle(pid: pid).stop() }
        #expect(getpgid(pid) == pid)
        #expect(getsid(pid) == pid)
    }

    @Test func aMissingProgramIsAnErrorNamingIt() {
        #expect(throws: SpawnError.cannotStart(executable: "/nonexistent/program", reason: "No such file or directory"))
        {
            try ChildProcess(executable: "/nonexistent/program", environment: [:])
        }
    }

    @Test func stopEndsAChildThatIgnoresTheInterrupt() throws {
        let child = try Self.shell("trap '' INT; echo ready; exec sleep 30")
        var byte: UInt8 = 0
        #expect(read(child.output, &byte, 1) == 1)
        #expect(child.terminate())
        #expect(child.exitStatus.map { $0 & 0x7f } != 0)  // ended by a signal, not on its own
        #expect(!LiveChildren.running.contains(child.pid))
    }

    @Test func pollGivesUpAtItsDeadline() {
        var calls = 0
        #expect(
            !poll(seconds: 0.05, every: 5) {
                calls += 1
                return false
            })
        #expect(calls > 1)
        #expect(poll(seconds: 5, every: 5) { true })
    }
}
