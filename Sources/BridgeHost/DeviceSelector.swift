import FIDO
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds the keys a ceremony runs on, as Chromium does: no key → ask for one and wait; then the request goes to
/// every key (`KeyRace`), which also takes in keys plugged in and drops keys pulled out while they wait for a
/// touch. Once a key has the ceremony, a `KeyWatch` follows it (see `followingKeys`).
struct DeviceSelector: Sendable {
    let provider: any DeviceProvider
    let log: HostLog
    let watches = KeyWatches()
    /// What each key opened here can do, for `info` (which opens none).
    let capabilities = KeyCapabilityCache.shared
    static let pollInterval: Duration = .milliseconds(250)

    /// Runs a ceremony (`attempt`) while its keys are watched, starting it over (with its first deadline) when
    /// its key is pulled out while waiting for a touch or another key is plugged in then, as `KeyWatch` says.
    func followingKeys<T>(
        of controller: CeremonyController,
        _ attempt: () throws(WebAuthnError) -> T
    ) throws(WebAuthnError) -> T {
        let watch = KeyWatch(controller: controller, provider: provider, log: log, pollInterval: Self.pollInterval)
        watches.set(watch, for: controller.id)
        watch.start()
        defer {
            watch.end()
            watches.set(nil, for: controller.id)
        }
        while true {
            do {
                return try attempt()
            } catch {
                switch watch.outcome(after: error) {
                case .fail: throw error
                case .failRemovedDuringPIN: throw KeyWatch.removed
                case .startOver(let reason): log.info("\(reason); finding a key again", request: controller.id)
                }
            }
        }
    }

    /// The deadline of the ceremony `controller` runs: `proposed` the first time, the same one when it starts over.
    func deadline(for controller: CeremonyController, _ proposed: Deadline) -> Deadline {
        watches[controller.id]?.deadline(proposed) ?? proposed
    }

    /// Runs `attempt` (a ceremony's steps on one key) on the keys present, as Chromium does: no key → ask for one
    /// and wait; then on every key at once, the first the user acts on answering (`KeyRace`: with several keys,
    /// `select-key` then the statuses of the key chosen; keys plugged in meanwhile join).
    func dispatch<T: Sendable>(
        for controller: CeremonyController, replies: ReplyChannel, deadline: Deadline,
        _ attempt: @escaping KeyRace<T>.Attempt
    ) throws(WebAuthnError) -> T {
        let started = ContinuousClock.now
        while true {
            let (devices, listed) = try acquire(for: controller, replies: replies, deadline: deadline)
            let keys = devices.count == 1 ? devices[0].location.path : "\(devices.count) keys"
            log.info(
                "phase key-ready: \(keys) in \(RequestLoop.milliseconds(since: started)) ms; the request goes to every key",
                request: controller.id)
            let race = KeyRace(
                selector: self, ceremony: controller, replies: replies, deadline: deadline, attempt: attempt)
            switch race.run(devices, listed: listed) {
            case .answered(let result): return try result.get()
            case .noKeyLeft:
                log.info(
                    "every key was removed while it waited for its touch; finding a key again", request: controller.id)
            }
        }
    }

    /// The keys present and open (at least one), and every key listed; waits for one until `deadline`.
    private func acquire(for controller: CeremonyController, replies: ReplyChannel, deadline: Deadline)
        throws(WebAuthnError) -> ([Device], [DeviceLocation])
    {
        var askedToInsert = false
        var reportedUnusable: [UnusableKey] = []
        while true {
            let locations = provider.locations()
            capabilities.forget(allBut: locations)
            let (opened, unusable) = controller.timed { openAll(locations, request: controller.id) }
            if !opened.isEmpty { return (opened, locations) }
            if !unusable.isEmpty, unusable != reportedUnusable {
                // A key in the port that cannot be opened: say so, not "insert your key" (and keep waiting: the
                // user may fix it, close the program holding it, or plug in another key).
                replies.status(controller.id, .keyUnusable, detail: UnusableKey.message(unusable))
                log.warn("no usable security key: \(UnusableKey.message(unusable))", request: controller.id)
                reportedUnusable = unusable
            } else if unusable.isEmpty, !askedToInsert || !reportedUnusable.isEmpty {
                replies.status(controller.id, .insertKey)
                log.info("no security key found; waiting for one", request: controller.id)
                askedToInsert = true
                reportedUnusable = []
            }
            if controller.sleep(until: min(deadline, .after(Self.pollInterval))) { throw ErrorMapping.aborted }
            if deadline.isPast {
                if !unusable.isEmpty { throw WebAuthnError(name: .notAllowed, message: UnusableKey.message(unusable)) }
                throw ErrorMapping.timeout
            }
        }
    }

    func openAll(_ locations: [DeviceLocation], request: String) -> (opened: [Device], unusable: [UnusableKey]) {
        var opened: [Device] = []
        var unusable: [UnusableKey] = []
        for location in locations {
            do {
                let device = try Device.open(location)
                capabilities.remember(device)
                opened.append(device)
                if location.isSoftware {
                    log.warn(
                        "using SoftToken \(location.path): a software authenticator for development and tests only, not a security key",
                        request: request)
                }
            } catch {
                log.warn(
                    "cannot open \(location.path) (\(location.manufacturer) \(location.product)): \(error)",
                    request: request)
                unusable.append(UnusableKey(location, error: error))
            }
        }
        return (opened, unusable)
    }
}
