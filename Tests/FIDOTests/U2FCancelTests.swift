import CFIDO2
import FIDO
import Glibc
import SoftToken
import Testing
import Threading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `Device.cancel()` from another thread while the libfido2 thread waits in a U2F request for a touch that never
/// comes (a `u2f-only` SoftToken whose user does not touch, behind libfido2's I/O hooks): libfido2 1.12 cannot
/// cancel U2F, so the cancel signals the thread (`U2FInterruption`). The request must end with the cancel, and the
/// key must serve the next request; a cancel after the request ended must send no signal to the thread, which is
/// elsewhere by then.
@Suite(.serialized) struct U2FCancelTests {
    static let rpID = "u2f-cancel.example"
    /// How long one cancel is given to end the request before it is repeated. Not a timing assertion: the repeat is
    /// what `U2FInterruption` asks of a cancel that lands between two system calls.
    static let cancelGrace = Duration.seconds(1)
    /// Bounds every wait for the libfido2 thread, so a hang fails the test instead of stopping the run.
    static let bound = Duration.seconds(60)

    static let fidoThread = FIDOThread(logSink: nil)

    @Test func aCancelEndsAU2FRequestWaitingForATouchAndTheKeyServesTheNext() throws {
        let key = try U2FKey()
        defer { key.discard() }
        let credential = try #require(try key.makeCredential().get(), "made while the user touches at once")
        try key.token.setPresence(.deny)

        var repeatedCancels = 0
        for round in 0..<9 {
            let device = try key.open()
            let sentBefore = CountingIO.writes.value
            let request = Job { () throws(FIDOError) in
                if round.isMultiple(of: 2) {
                    _ = try device.makeCredential(U2FKey.credentialRequest, pin: nil)
                } else {
                    _ = try device.getAssertions(key.assertionRequest(credential), pin: nil)
                }
            }
            Self.fidoThread.submit { request.run() }
            // Cancel at different points: racing the request's start, after its first APDU, after libfido2 sent it
            // again (it repeats the APDU every 100 ms while the key answers "touch me").
            let sentAtCancel = [0, 1, 4][round % 3]
            #expect(
                CountingIO.writes.wait(atLeast: sentBefore + sentAtCancel, until: .after(Self.bound)),
                "round \(round): the request did not reach the key")
            device.cancel()
            var cancels = 1
            while !request.wait(until: .after(Self.cancelGrace)), cancels < 60 {
                device.cancel()
                cancels += 1
            }
            repeatedCancels += cancels - 1
            let outcome = try #require(
                request.outcome, "round \(round): the request did not end after \(cancels) cancels")
            switch outcome {
            case .success: Issue.record("round \(round): the request succeeded without a touch")
            case .failure(let error):
                #expect(error.code == FIDOError.keepaliveCancel, "round \(round): \(error.codeName), not the cancel")
            }
            Self.fidoThread.sync { device.close() }
        }
        print("U2FCancelTests: \(repeatedCancels) cancels repeated in 9 rounds")

        // The key serves the next requests: opened again, as the host opens a key for each attempt.
        try key.token.setPresence(.automatic)
        #expect(throws: Never.self) { try key.makeCredential().get() }
        #expect(throws: Never.self) { try key.getAssertion(credential).get() }
    }

    @Test func aCancelAfterTheRequestEndedSignalsNoThread() throws {
        let key = try U2FKey()
        defer { key.discard() }
        let device = try key.open()
        defer { Self.fidoThread.sync { device.close() } }

        // After its request, the libfido2 thread blocks the interruption's signal and waits for the cancel: a signal
        // sent to it would stay pending, where sigpending() sees it.
        let requestEnded = Flag()
        let cancelled = Flag()
        let pending = Job { () throws(FIDOError) -> Bool in
            _ = try device.makeCredential(U2FKey.credentialRequest, pin: nil)
            var blocked = sigset_t()
            var previous = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGURG)
            pthread_sigmask(SIG_BLOCK, &blocked, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            requestEnded.set()
            _ = cancelled.wait(until: .after(Self.bound))
            var waiting = sigset_t()
            sigpending(&waiting)
            return sigismember(&waiting, SIGURG) == 1
        }
        Self.fidoThread.submit { pending.run() }
        #expect(requestEnded.wait(until: .after(Self.bound)), "the request did not end")
        device.cancel()
        device.cancel()
        cancelled.set()
        #expect(pending.wait(until: .after(Self.bound)))
        let signalled = try #require(pending.outcome).get()
        #expect(!signalled, "a cancel after the request ended signalled the libfido2 thread")

        // The thread and the key go on: the next request, on a key opened again, is served.
        #expect(throws: Never.self) { try key.makeCredential().get() }
    }
}

/// A `u2f-only` SoftToken, opened through libfido2 with `CountingIO`; all its libfido2 calls on the test thread.
private final class U2FKey: Sendable {
    static let credentialRequest = CredentialRequest(
        clientDataJSON: Array("{}".utf8), rpID: U2FCancelTests.rpID, rpName: "U2F cancel", userID: [7],
        userName: "u", userDisplayName: "U", algorithm: -7, residentKey: false)

    let token: SoftToken
    let state: String
    let path: String

    init() throws {
        state = FileManager.default.temporaryDirectory.path + "/u2f-cancel-\(UUID().uuidString).state"
        let configuration = try #require(SoftTokenProfile.named("u2f-only")).configuration
        token = try SoftToken.create(at: state, configuration: configuration, pin: nil)
        path = SoftTokenDevice.attach(token)
    }

    /// Opened on the libfido2 thread, as every call but `cancel()` must be.
    func open() throws -> Device {
        let path = path
        let opened = U2FCancelTests.fidoThread.sync { () -> Result<Device, FIDOError> in
            Result { () throws(FIDOError) in
                try Device.open(
                    DeviceLocation(
                        path: path, io: CountingIO.functions, manufacturer: "test", product: "SoftToken u2f-only",
                        isSoftware: true))
            }
        }
        let device = try opened.get()
        #expect(!device.isFIDO2, "the u2f-only profile speaks U2F only")
        return device
    }

    func assertionRequest(_ credential: [UInt8]) -> AssertionRequest {
        AssertionRequest(clientDataJSON: Array("{}".utf8), rpID: U2FCancelTests.rpID, allowList: [credential])
    }

    /// A registration on a key opened for it; its credential id.
    func makeCredential() throws -> Result<[UInt8], FIDOError> {
        let device = try open()
        return U2FCancelTests.fidoThread.sync {
            defer { device.close() }
            return Result { () throws(FIDOError) in try device.makeCredential(Self.credentialRequest, pin: nil) }
                .map(\.credentialID)
        }
    }

    func getAssertion(_ credential: [UInt8]) throws -> Result<Int, FIDOError> {
        let device = try open()
        let request = assertionRequest(credential)
        return U2FCancelTests.fidoThread.sync {
            defer { device.close() }
            return Result { () throws(FIDOError) in try device.getAssertions(request, pin: nil) }.map(\.count)
        }
    }

    func discard() {
        SoftTokenDevice.detach(path: path)
        try? FileManager.default.removeItem(atPath: state)
    }
}

/// SoftToken's I/O hooks, counting the reports libfido2 writes, so a test can wait until a request reached the key.
private enum CountingIO {
    static let writes = Counter()

    static var functions: fido_dev_io_t {
        let soft = SoftTokenDevice.ioFunctions
        return fido_dev_io_t(
            open: soft.open, close: soft.close, read: soft.read,
            write: { handle, buffer, length in
                let written = SoftTokenDevice.ioFunctions.write(handle, buffer, length)
                CountingIO.writes.add()
                return written
            })
    }
}

/// A count that can be waited for.
private final class Counter: @unchecked Sendable {
    private let condition = Condition()
    private var count = 0

    var value: Int { condition.withLock { count } }

    func add() {
        condition.withLock {
            count += 1
            condition.broadcast()
        }
    }

    func wait(atLeast target: Int, until deadline: Deadline) -> Bool {
        condition.withLock {
            while count < target, !deadline.isPast { condition.wait(until: deadline) }
            return count >= target
        }
    }
}

/// A flag one thread sets and another waits for.
private final class Flag: @unchecked Sendable {
    private let counter = Counter()
    func set() { counter.add() }
    func wait(until deadline: Deadline) -> Bool { counter.wait(atLeast: 1, until: deadline) }
}

/// A call run on the libfido2 thread, whose outcome the test thread waits for.
private final class Job<T>: @unchecked Sendable {
    private let body: () throws(FIDOError) -> T
    private let condition = Condition()
    private var result: Result<T, FIDOError>?

    init(_ body: @escaping () throws(FIDOError) -> T) { self.body = body }

    func run() {
        let outcome = Result { () throws(FIDOError) in try body() }
        condition.withLock {
            result = outcome
            condition.broadcast()
        }
    }

    /// Whether the call ended before `deadline`.
    func wait(until deadline: Deadline) -> Bool {
        condition.withLock {
            while result == nil, !deadline.isPast { condition.wait(until: deadline) }
            return result != nil
        }
    }

    var outcome: Result<T, FIDOError>? { condition.withLock { result } }
}
