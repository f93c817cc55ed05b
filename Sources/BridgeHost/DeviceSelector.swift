import FIDO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WebAuthn

/// Finds the key a ceremony will use, as Chromium does: no key → ask for one and wait; one key → use it;
/// several → make them all blink and take the one the user touches.
struct DeviceSelector: Sendable {
    let provider: any DeviceProvider
    let log: HostLog
    static let pollInterval: TimeInterval = 0.25

    func acquire(for controller: CeremonyController, replies: ReplyChannel, deadline: Date) throws(WebAuthnError) -> Device {
        var askedToInsert = false
        var reportedUnusable: [UnusableKey] = []
        let started = ContinuousClock.now
        while true {
            let (opened, unusable) = controller.timed { openAll(provider.locations(), request: controller.id) }
            var chosen: Device?
            if opened.count == 1 { chosen = opened[0] }
            if opened.count > 1 { chosen = try chooseByTouch(opened, controller: controller, replies: replies, deadline: deadline) }
            if let chosen {
                log.info("phase key-ready: \(chosen.location.path) in \(RequestLoop.milliseconds(since: started)) ms", request: controller.id)
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
            if controller.sleep(until: min(deadline, Date().addingTimeInterval(Self.pollInterval))) { throw ErrorMapping.aborted }
            if Date() >= deadline {
                if !unusable.isEmpty { throw WebAuthnError(name: .notAllowed, message: UnusableKey.message(unusable)) }
                throw ErrorMapping.timeout
            }
        }
    }

    private func openAll(_ locations: [DeviceLocation], request: String) -> (opened: [Device], unusable: [UnusableKey]) {
        var opened: [Device] = [], unusable: [UnusableKey] = []
        for location in locations {
            do {
                opened.append(try Device.open(location))
                if location.isSoftware {
                    log.warn("using SoftToken \(location.path): a software authenticator for development and tests only, not a security key", request: request)
                }
            } catch {
                log.warn("cannot open \(location.path) (\(location.manufacturer) \(location.product)): \(error)", request: request)
                unusable.append(UnusableKey(location, error: error))
            }
        }
        return (opened, unusable)
    }

    private func chooseByTouch(_ devices: [Device], controller: CeremonyController, replies: ReplyChannel,
                               deadline: Date) throws(WebAuthnError) -> Device {
        replies.status(controller.id, .selectKey)
        log.info("\(devices.count) keys present; waiting for a touch to choose one", request: controller.id)
        let clockDeadline = ContinuousClock.now + .milliseconds(Int(max(0, deadline.timeIntervalSinceNow) * 1000))
        do {
            let index = try TouchSelection.waitForTouch(on: devices, deadline: clockDeadline, isCancelled: { controller.isCancelled })
            for (i, other) in devices.enumerated() where i != index { other.close() }
            return devices[index]
        } catch {
            for device in devices { device.close() }
            throw ErrorMapping.webAuthnError(for: error, cancelled: controller.isCancelled, timedOut: Date() >= deadline)
        }
    }
}
