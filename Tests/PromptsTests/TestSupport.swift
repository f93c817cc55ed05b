import Foundation
import Glibc
import Secrets
import TestSupport

@testable import Prompts

/// Runs a blocking prompt call on its own thread while the test plays the user; every join has a deadline.
final class Background<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Locked<Value?>(nil)

    init(_ body: @escaping @Sendable () -> Value) {
        let done = self.done
        let result = self.result
        Thread {
            let value = body()
            result.with { $0 = value }
            done.signal()
        }.start()
    }

    /// The value, or nil when the call did not finish within `seconds` (the test then fails, not hangs).
    func join(seconds: Double = 15) -> Value? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        done.signal()  // joinable again
        return result.current
    }
}

/// What a PIN read produced, in a comparable form (the test may look at the secret; the product may not).
enum Outcome: Equatable, Sendable {
    case pin(String)
    case error(PromptError)
}

func outcome(_ body: () throws -> SecretBytes) -> Outcome {
    do {
        let secret = try body()
        return .pin(secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
    } catch let error as PromptError {
        return .error(error)
    } catch {
        return .error(.failed("test set-up failed: \(error)"))
    }
}

/// libc functions Swift's Glibc module leaves out (they need _XOPEN_SOURCE), looked up by name.
private func libc<Function>(_ name: String, as type: Function.Type) -> Function {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { fatalError("no \(name) in libc") }
    return unsafeBitCast(symbol, to: type)
}
private let posixOpenpt = libc("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
private let grantpt = libc("grantpt", as: (@convention(c) (Int32) -> Int32).self)
private let unlockpt = libc("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
private let ptsnameR = libc("ptsname_r", as: (@convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32).self)

/// A pseudo-terminal standing in for the user's terminal: the test reads the screen from the master side
/// and types into it. The test keeps the slave open too, so it can inspect the termios flags.
final class PseudoTerminal: @unchecked Sendable {
    let master: Int32
    let slave: Int32
    let slavePath: String
    private let screenBytes = Locked<[UInt8]>([])

    init() throws {
        master = posixOpenpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0 else { throw TestFailure("pty") }
        var name = [CChar](repeating: 0, count: 128)
        guard ptsnameR(master, &name, name.count) == 0 else { throw TestFailure("ptsname_r") }
        slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        slave = open(slavePath, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw TestFailure("open slave") }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
    }

    deinit {
        close(slave)
        close(master)
    }

    /// Everything written to the terminal so far.
    var screen: String { String(decoding: screenBytes.current, as: UTF8.self) }

    /// Reads the screen until `text` has appeared `occurrences` times, for at most `seconds`.
    @discardableResult
    func waitFor(_ text: String, occurrences: Int = 1, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if screen.components(separatedBy: text).count - 1 >= occurrences { return true }
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 50) > 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = read(master, &chunk, chunk.count)
                if n > 0 { screenBytes.with { $0 += chunk[0..<n] } }
            }
        }
        return screen.components(separatedBy: text).count - 1 >= occurrences
    }

    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// The ECHO flag as whoever uses the terminal left it.
    var echoIsOn: Bool {
        var settings = termios()
        tcgetattr(slave, &settings)
        return settings.c_lflag & tcflag_t(ECHO) != 0
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String
    init() {
        var template = Array("/tmp/prompts-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed (errno \(errno))") }
        path = String(cString: made)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ contents: String, executable: Bool = false) -> String {
        let file = "\(path)/\(name)"
        _ = FileManager.default.createFile(
            atPath: file, contents: Data(contents.utf8),
            attributes: [.posixPermissions: executable ? 0o755 : 0o644])
        return file
    }
}

/// True when no process with this PID exists any more (killed and reaped: a zombie would still answer).
func processIsGone(_ pid: pid_t) -> Bool {
    pid > 0 && kill(pid, 0) == -1 && errno == ESRCH
}

func elapsed(_ body: () -> Void) -> Double {
    let start = Date()
    body()
    return Date().timeIntervalSince(start)
}

let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN) }()
