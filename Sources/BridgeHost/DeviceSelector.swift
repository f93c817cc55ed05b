import FIDO
import Threading
import WebAuthn

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds the key a ceremony will use, as Chromium does: no key → ask for one and wait; one key → use it;
/// several → make them all blink and take the one the user touches. Keys plugged in or pulled out later in the
/// request are followed by a `KeyWatch` (see `followingKeys`).
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

    func acquire(for controller: CeremonyController, replies: ReplyChannel, deadline: Deadline) throws(WebAuthnError)
        -> Device
    {
        var askedToInsert = false
        var reportedUnusable: [UnusableKey] = []
        let started = ContinuousClock.now
        while true {
            let locations = provider.locations()
            let (opened, unusable) = controller.timed { openAll(locations, request: controller.id) }
            var chosen: Device?
            if opened.count == 1 { chosen = opened[0] }
            if opened.count > 1 {
                // nil: the keys changed while the user was choosing (one plugged in, all pulled out): look again.
                guard
                    let touched = try chooseByTouch(
                        opened, listed: locations, controller: controller, replies: replies,
                        deadline: deadline)
                else { continue }
                chosen = touched
            }
            if let chosen {
                log.info(
                    "phase key-ready: \(chosen.location.path) in \(RequestLoop.milliseconds(since: started)) ms",
                    request: controller.id)
                watches[controller.id]?.chose(chosen, listed: Set(locations.map(\.path)))
                return chosen
            }
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

    private func openAll(_ locations: [DeviceLocation], request: String) -> (opened: [Device], unusable: [UnusableKey])
    {
        var opened: [Device] = []
        var unusable: [UnusableKey] = []
        capabilities.forget(allBut: locations)
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

    /// The key the user touches among `devices`; nil when every one was pulled out, or another key was plugged
    /// in meanwhile (it joins: the caller opens them all again).
    private func chooseByTouch(
        _ devices: [Device], listed: [DeviceLocation], controller: CeremonyController,
        replies: ReplyChannel, deadline: Deadline
    ) throws(WebAuthnError) -> Device? {
        replies.status(controller.id, .selectKey)
        log.info("\(devices.count) keys present; waiting for a touch to choose one", request: controller.id)
        let known = Set(listed.map(\.path))
        var lastLook = ContinuousClock.now
        var joined = false
        let anotherKeyPlugged = { () -> Bool in
            guard ContinuousClock.now - lastLook >= Self.pollInterval else { return false }
            lastLook = .now
            joined = !Set(provider.locations().map(\.path)).isSubset(of: known)
            return joined
        }
        do {
            let index = try TouchSelection.waitForTouch(
                on: devices, deadline: deadline,
                isCancelled: { controller.isCancelled || anotherKeyPlugged() })
            for (i, other) in devices.enumerated() where i != index { other.close() }
            return devices[index]
        } catch {
            for device in devices { device.close() }
            let cancelled = controller.isCancelled
            let timedOut = deadline.isPast
            if !cancelled, !timedOut, joined || error.code == FIDOError.deviceRemoved {
                log.info(
                    joined ? "another key was plugged in; asking every key again" : "every key was removed",
                    request: controller.id)
                return nil
            }
            throw ErrorMapping.webAuthnError(for: error, cancelled: cancelled, timedOut: timedOut)
        }
    }
}
