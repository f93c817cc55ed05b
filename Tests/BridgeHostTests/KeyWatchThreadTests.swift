import FIDO
import Prompts
import Secrets
import SoftToken
import Testing
import Threading
import WebAuthn

@testable import BridgeHost

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `KeyWatch` with its thread polling while keys are plugged in and pulled out from other threads: the chosen key is
/// a SoftToken opened through libfido2, the keys come from a provider at the `DeviceProvider` seam. The watch must
/// report each change (a joined key makes the ceremony start over; the chosen key pulled out during PIN entry closes
/// the prompt) and its thread must be gone once the request ends.
@Suite(.serialized) struct KeyWatchThreadTests {
    /// Bounds every wait, so a watch that never reacts fails the test instead of stopping the run.
    static let bound = Duration.seconds(30)
    static let refused = ErrorMapping.webAuthnError(
        for: FIDOError(code: FIDOError.keepaliveCancel, function: "fido_dev_make_cred"), cancelled: false,
        timedOut: false)

    @Test func keysPluggedInAndPulledOutWhileTheChosenOneWaitsAreReported() throws {
        let setting = try WatchedKey()
        defer { setting.discard() }
        let watch = setting.watch
        watch.start()
        for round in 0..<5 {
            watch.chose(setting.device, listed: Set(setting.keys.locations().map(\.path)))
            fromAnotherThread { setting.keys.plug(WatchedKey.other) }
            setting.waitForTwoLooks()
            #expect(
                watch.outcome(after: Self.refused)
                    == .startOver("another key was plugged in while \(setting.path) waited for its touch"),
                "round \(round)")

            // Pulled out again before the next attempt: that attempt sees no new key.
            fromAnotherThread { setting.keys.unplug(WatchedKey.other.path) }
            watch.chose(setting.device, listed: Set(setting.keys.locations().map(\.path)))
            setting.waitForTwoLooks()
            #expect(watch.outcome(after: Self.refused) == .fail, "round \(round): nothing joined")
        }
        watch.end()
        #expect(watch.waitUntilStopped(until: .after(Self.bound)), "the watch's thread still runs")
    }

    @Test func theChosenKeyPulledOutDuringPINEntryClosesThePrompt() throws {
        let setting = try WatchedKey()
        defer { setting.discard() }
        let watch = setting.watch
        watch.start()
        watch.chose(setting.device, listed: [setting.path])

        let prompt = WaitingPrompt()
        let answered = Outcome<PromptError>()
        fromAnotherThread(waiting: false) {
            let request = PINRequest(rpID: "watch.example", origin: "https://watch.example")
            do throws(PromptError) {
                _ = try setting.controller.using(prompt) { () throws(PromptError) in try prompt.readPIN(request) }
            } catch {
                answered.set(error)
            }
        }
        #expect(prompt.reading.wait(until: .after(Self.bound)) == true, "the prompt was not opened")
        fromAnotherThread { setting.keys.unplug(setting.path) }
        #expect(answered.wait(until: .after(Self.bound)) == .cancelled, "the watch did not close the prompt")
        #expect(watch.outcome(after: KeyWatch.removed) == .failRemovedDuringPIN)

        watch.end()
        #expect(watch.waitUntilStopped(until: .after(Self.bound)), "the watch's thread still runs")
    }

    @Test func aWatchEndedBeforeItsFirstLookStops() throws {
        let setting = try WatchedKey()
        defer { setting.discard() }
        setting.watch.start()
        setting.watch.end()
        #expect(setting.watch.waitUntilStopped(until: .after(Self.bound)))
    }

    /// Runs `body` on a thread of its own and, unless told not to, waits for it to end.
    func fromAnotherThread(waiting: Bool = true, _ body: @escaping @Sendable () -> Void) {
        let done = Outcome<Bool>()
        startDetachedThread(name: "test-plug") {
            body()
            done.set(true)
        }
        if waiting { #expect(done.wait(until: .after(Self.bound)) == true, "the other thread did not end") }
    }
}

/// A SoftToken opened as the chosen key, the keys plugged in, and a watch over them polling every 5 ms.
private final class WatchedKey: Sendable {
    static let other = DeviceLocation(path: "softfido:watch-other", manufacturer: "test", product: "other key")

    let state: String
    let path: String
    let device: Device
    let keys = PluggedKeys()
    let controller = CeremonyController(id: "watch-test")
    let logPath: String
    let watch: KeyWatch

    init() throws {
        FIDOLibrary.attachLogging(to: nil)
        let base = FileManager.default.temporaryDirectory.path + "/key-watch-\(UUID().uuidString)"
        state = base + ".state"
        logPath = base + ".log"
        path = SoftTokenDevice.attach(try SoftToken.create(at: state, configuration: .init(), pin: nil))
        let keys = keys
        let path = path
        let location = DeviceLocation(
            path: path, io: SoftTokenDevice.ioFunctions, manufacturer: "test", product: "SoftToken",
            isSoftware: true, stillPresent: { keys.isPlugged(path) })
        keys.plug(location)
        device = try Device.open(location)
        watch = KeyWatch(
            controller: controller, provider: keys, log: HostLog(path: logPath, level: .info),
            pollInterval: .milliseconds(5))
    }

    /// Waits until the watch listed the keys twice more: the second listing starts after the first look ended.
    func waitForTwoLooks() {
        let seen = keys.listings
        #expect(keys.wait(forListings: seen + 2, until: .after(KeyWatchThreadTests.bound)), "the watch stopped looking")
    }

    func discard() {
        watch.end()
        device.close()
        SoftTokenDevice.detach(path: path)
        try? FileManager.default.removeItem(atPath: state)
        try? FileManager.default.removeItem(atPath: logPath)
    }
}

/// The keys plugged in, changed by the test's threads, listed by the watch's.
private final class PluggedKeys: DeviceProvider, @unchecked Sendable {
    private let condition = Condition()
    private var plugged: [DeviceLocation] = []
    private var listed = 0

    func locations() -> [DeviceLocation] {
        condition.withLock {
            listed += 1
            condition.broadcast()
            return plugged
        }
    }

    func plug(_ location: DeviceLocation) { condition.withLock { plugged.append(location) } }
    func unplug(_ path: String) { condition.withLock { plugged.removeAll { $0.path == path } } }
    func isPlugged(_ path: String) -> Bool { condition.withLock { plugged.contains { $0.path == path } } }

    var listings: Int { condition.withLock { listed } }

    func wait(forListings target: Int, until deadline: Deadline) -> Bool {
        condition.withLock {
            while listed < target, !deadline.isPast { condition.wait(until: deadline) }
            return listed >= target
        }
    }
}

/// A value one thread sets once and another waits for.
private final class Outcome<Value: Sendable>: @unchecked Sendable {
    private let condition = Condition()
    private var value: Value?

    func set(_ newValue: Value) {
        condition.withLock {
            value = newValue
            condition.broadcast()
        }
    }

    /// The value, or nil when none came before `deadline`.
    func wait(until deadline: Deadline) -> Value? {
        condition.withLock {
            while value == nil, !deadline.isPast { condition.wait(until: deadline) }
            return value
        }
    }
}

/// A PIN prompt that waits for its cancel (the pinentry dialog the user leaves open); a read not cancelled within the
/// bound fails with `.failed`, so a watch that never closes it is seen.
private final class WaitingPrompt: PINPrompt, @unchecked Sendable {
    let reading = Outcome<Bool>()
    private let cancelled = Outcome<Bool>()

    func readPIN(_ request: PINRequest) throws(PromptError) -> SecretBytes { try waitForCancel() }
    func readNewPIN(_ request: NewPINRequest) throws(PromptError) -> SecretBytes { try waitForCancel() }
    func cancel() { cancelled.set(true) }

    private func waitForCancel() throws(PromptError) -> SecretBytes {
        reading.set(true)
        if cancelled.wait(until: .after(KeyWatchThreadTests.bound)) == true { throw .cancelled }
        throw .failed("the prompt was not closed")
    }
}
