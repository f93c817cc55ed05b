import CTAP
import Threading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// How the CTAPHID engine applies a `FaultPlan`. Every function here runs with the token's monitor held.
extension SoftToken {
    /// Installs `plan` and restarts its report count.
    func install(_ plan: FaultPlan) {
        faultPlan = plan
        faultReportCount = 0
        faultCountingStarted = plan.command == nil
    }

    /// At the first report of every message from the host: takes up a changed fault file, and starts counting
    /// reports when the message is the CBOR request a plan with a `command` aims at.
    func noteMessageStartForFaults(_ report: [UInt8]) {
        guard report[4] & 0x80 != 0 else { return }
        refreshFaultFile()
        let isCBOR = report[4] & 0x7F == CTAPHIDCommand.cbor.rawValue
        if isCBOR, let command = faultPlan.command, report[7] == command { faultCountingStarted = true }
    }

    /// Parks a request for the `.untouched` fault: it waits for a touch until the plan is lifted.
    func parkUntouched(_ payload: [UInt8], channel: UInt32, on connection: DeviceConnection) {
        connection.pending = .init(channel: channel, message: payload, touchAt: nil, nextKeepalive: .now)
        transport.busy = (connection, channel)
    }

    /// At every keepalive of a parked request: once the `.untouched` plan is lifted, the user touches.
    func touchIfNoLongerUntouched(_ connection: DeviceConnection) {
        guard let pending = connection.pending, pending.touchAt == nil, !pending.awaitsSignal else { return }
        refreshFaultFile()
        if faultPlan.response != .untouched { connection.pending?.touchAt = .now }
    }

    private func refreshFaultFile() {
        let text = FaultPlanFile.read(FaultPlanFile.path(for: path))
        guard text != faultFileText else { return }
        // A file that went away ends its own plan, not one a test set in this process.
        if text != nil || faultFileText != nil { install(text.map(FaultPlanFile.plan(from:)) ?? .none) }
        faultFileText = text
    }

    /// Counts one report against the plan's report limit; false once the connection is broken. A plan that
    /// unplugs the key renames its state file when the limit is reached, so the key is gone from the port too.
    func countReportForFaults() -> Bool {
        guard faultCountingStarted, let limit = faultPlan.reportLimit else { return true }
        guard faultReportCount < limit else {
            if faultPlan.unplugAfterReports == limit, !isUnplugged { _ = rename(path, path + ".unplugged") }
            return false
        }
        faultReportCount += 1
        return true
    }

    /// The faults a CBOR request meets: a status to answer instead of running it, and how to corrupt its
    /// response. Each request hit uses up one of the plan's `times`.
    func faults(forRequest payload: [UInt8]) -> (status: UInt8?, response: ResponseFault?) {
        if let times = faultPlan.times, times <= 0 { return (nil, nil) }
        let command = payload[0]
        var status = faultPlan.injectedErrors[command]
        if status == nil, command == CTAPCommand.clientPIN.rawValue, !faultPlan.clientPINErrors.isEmpty,
            let subcommand = try? Self.parameters(Array(payload.dropFirst())).int(2),
            let byte = UInt8(exactly: subcommand)
        {
            status = faultPlan.clientPINErrors[byte]
        }
        let aimed = faultPlan.command == nil || faultPlan.command == command
        let response = aimed ? faultPlan.response : nil
        if status != nil || response != nil, let times = faultPlan.times { faultPlan.times = times - 1 }
        return (status, response)
    }

    /// The reports of a CBOR response, corrupted as `fault` says (`.keepAliveForever` is the reader's job).
    static func responseReports(_ response: [UInt8], channel: UInt32, fault: ResponseFault?) -> [[UInt8]] {
        let command = CTAPHIDCommand.cbor.rawValue
        let reports = CTAPHID.frames(channel: channel, command: command, payload: response)
        let otherChannel: UInt32 = channel == 0x0BAD_F00D ? 0x0BAD_F00E : 0x0BAD_F00D
        switch fault {
        case nil, .untouched:
            return reports
        case .garbage:
            var noise = (0..<(CTAPHID.reportSize - 4)).map { _ in UInt8.random(in: 0...255) }
            // A command byte that is neither CBOR, KEEPALIVE nor ERROR, so libfido2 cannot mistake it for an answer.
            noise[0] = 0x80 | 0x2A
            return [Array(reports[0].prefix(4)) + noise] + reports.dropFirst()
        case .shortReport:
            return [Array(reports[0].prefix(16))] + reports.dropFirst()
        case .wrongChannel:
            return CTAPHID.frames(channel: otherChannel, command: command, payload: response)
        case .strayReport:
            return CTAPHID.frames(channel: otherChannel, command: command, payload: response) + reports
        case .badSequence:
            return CTAPHID.frames(channel: channel, command: command, payload: response, firstSequence: 5)
        case .truncatedCBOR:
            let body = response.dropFirst()
            return CTAPHID.frames(
                channel: channel, command: command, payload: Array(response.prefix(1) + body.prefix(body.count / 2)))
        case .oversizedCBOR:
            let padded = response + [UInt8](repeating: 0, count: max(0, CTAPHID.maxMessage - response.count))
            return CTAPHID.frames(channel: channel, command: command, payload: padded)
        case .stall, .keepAliveForever:
            return []
        }
    }
}
