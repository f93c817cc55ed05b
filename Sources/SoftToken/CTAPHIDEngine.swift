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

/// The authenticator side of CTAPHID: turns reports written by libfido2 into commands and commands' answers into
/// reports for libfido2 to read. Every entry point takes the token's monitor.
extension SoftToken {
    // MARK: - Host → token

    /// One report from the host (64 bytes, or 65 with libfido2's leading report ID). False: the "device" is gone.
    func receive(report raw: [UInt8], on connection: DeviceConnection) -> Bool {
        monitor.lock()
        defer {
            monitor.unlock()
            monitor.broadcast()
        }
        guard !connection.closed, !isUnplugged else { return false }
        let report = raw.count == CTAPHID.reportSize + 1 ? Array(raw.dropFirst()) : raw
        if report.count == CTAPHID.reportSize { noteMessageStartForFaults(report) }
        guard countReportForFaults(), report.count == CTAPHID.reportSize else { return false }
        let channel = UInt32(report[0]) << 24 | UInt32(report[1]) << 16 | UInt32(report[2]) << 8 | UInt32(report[3])

        guard report[4] & 0x80 != 0 else {
            receiveContinuation(report, channel: channel, on: connection)
            return true
        }
        let command = report[4] & 0x7F
        let length = Int(report[5]) << 8 | Int(report[6])

        if command == CTAPHIDCommand.initialize.rawValue {
            handleInit(report, channel: channel, length: length, on: connection)
            return true
        }
        guard channel != 0, channel != CTAPHID.broadcastChannel, transport.isAllocated(channel) else {
            sendError(.invalidChannel, channel: channel, on: connection)
            return true
        }
        transport.noteUse(of: channel)
        if command == CTAPHIDCommand.cancel.rawValue {
            cancel(channel: channel, on: connection)
            return true
        }
        if let assembly = connection.assembly {
            // A new request while one is still arriving: a protocol error on that channel, busy on another.
            if assembly.channel == channel {
                connection.assembly = nil
                sendError(.invalidSequence, channel: channel, on: connection)
            } else {
                sendError(.channelBusy, channel: channel, on: connection)
            }
            return true
        }
        if let busy = transport.busy, busy.connection !== connection || busy.channel != channel {
            // The busy connection may have stopped reading (its host timed out); a touch that is due still happens.
            settleIfDue(busy.connection)
            if transport.busy != nil {
                sendError(.channelBusy, channel: channel, on: connection)
                return true
            }
        }
        guard length <= CTAPHID.maxMessage else {
            sendError(.invalidLength, channel: channel, on: connection)
            return true
        }
        let data = Array(report[7..<(7 + min(length, CTAPHID.initPayload))])
        if length <= CTAPHID.initPayload {
            dispatch(command: command, payload: data, channel: channel, on: connection)
        } else {
            connection.assembly = .init(channel: channel, command: command, length: length, data: data, nextSequence: 0)
        }
        return true
    }

    private func receiveContinuation(_ report: [UInt8], channel: UInt32, on connection: DeviceConnection) {
        // A continuation without an initialization report is ignored, as the spec says.
        guard var assembly = connection.assembly, assembly.channel == channel else { return }
        guard report[4] == assembly.nextSequence else {
            connection.assembly = nil
            sendError(.invalidSequence, channel: channel, on: connection)
            return
        }
        let take = min(CTAPHID.continuationPayload, assembly.length - assembly.data.count)
        assembly.data += report[5..<(5 + take)]
        assembly.nextSequence += 1
        if assembly.data.count == assembly.length {
            connection.assembly = nil
            dispatch(command: assembly.command, payload: assembly.data, channel: channel, on: connection)
        } else {
            connection.assembly = assembly
        }
    }

    private func handleInit(_ report: [UInt8], channel: UInt32, length: Int, on connection: DeviceConnection) {
        guard length == 8 else {
            sendError(.invalidLength, channel: channel, on: connection)
            return
        }
        let nonce = Array(report[7..<15])
        let assigned: UInt32
        if channel == CTAPHID.broadcastChannel {
            assigned = transport.allocateChannel()
        } else if transport.isAllocated(channel) {
            // Re-INIT of an existing channel: abandon whatever it was doing and keep the id.
            transport.noteUse(of: channel)
            if connection.assembly?.channel == channel { connection.assembly = nil }
            if connection.pending?.channel == channel { abandonPending(on: connection) }
            assigned = channel
        } else {
            sendError(.invalidChannel, channel: channel, on: connection)
            return
        }
        let capabilities = CTAPHID.capabilities(ctap2: state.configuration.ctap2, u2f: u2fEnabled)
        let payload = nonce + withUnsafeBytes(of: assigned.bigEndian) { Array($0) } + [2, 1, 0, 0, capabilities]
        connection.outbox += CTAPHID.frames(
            channel: channel, command: CTAPHIDCommand.initialize.rawValue, payload: payload)
    }

    private func dispatch(command: UInt8, payload: [UInt8], channel: UInt32, on connection: DeviceConnection) {
        connection.endlessKeepalive = nil
        switch CTAPHIDCommand(rawValue: command) {
        case .ping:
            connection.outbox += CTAPHID.frames(channel: channel, command: command, payload: payload)
        case .wink:
            guard payload.isEmpty else { return sendError(.invalidLength, channel: channel, on: connection) }
            connection.outbox += CTAPHID.frames(channel: channel, command: command, payload: [])
        case .msg where u2fEnabled:
            if connection.pending != nil { abandonPending(on: connection) }
            connection.outbox.removeAll()
            connection.outbox += CTAPHID.frames(
                channel: channel, command: command, payload: withSharedStateFile { executeU2F(payload) })
        case .cbor where state.configuration.ctap2:
            // A new command supersedes one the host gave up on (e.g. after a libfido2 timeout), and an answer it
            // never read (e.g. the KEEPALIVE_CANCEL of a fido_dev_cancel sent after that timeout) is dropped, so
            // it cannot be mistaken for the answer to this command.
            if connection.pending != nil { abandonPending(on: connection) }
            connection.outbox.removeAll()
            connection.responseFault = nil
            guard !payload.isEmpty else { return sendError(.invalidLength, channel: channel, on: connection) }
            guard payload.count <= state.configuration.maxMessageSize else {
                return sendCBOR([CTAPStatus.requestTooLarge.rawValue], channel: channel, on: connection)
            }
            let fault = faults(forRequest: payload)
            connection.responseFault = fault.response
            if let status = fault.status { return sendCBOR([status], channel: channel, on: connection) }
            if fault.response == .untouched { return parkUntouched(payload, channel: channel, on: connection) }
            switch withSharedStateFile({ execute(payload, userTouched: false) }) {
            case .response(let response):
                sendCBOR(response, channel: channel, on: connection)
            case .awaitingUser(let milliseconds):
                connection.pending = .init(
                    channel: channel, message: payload, touchAt: milliseconds.map { .after(.milliseconds($0)) },
                    nextKeepalive: .now, awaitsSignal: milliseconds == nil)
                transport.busy = (connection, channel)
            }
        default:
            sendError(.invalidCommand, channel: channel, on: connection)
        }
    }

    /// CTAPHID_CANCEL: a command waiting for the user ends with CTAP2_ERR_KEEPALIVE_CANCEL; otherwise nothing happens.
    private func cancel(channel: UInt32, on connection: DeviceConnection) {
        guard let pending = connection.pending, pending.channel == channel else { return }
        abandonPending(on: connection)
        sendCBOR([CTAPStatus.keepaliveCancel.rawValue], channel: channel, on: connection)
    }

    func abandonPending(on connection: DeviceConnection) {
        connection.pending = nil
        if transport.busy?.connection === connection { transport.busy = nil }
    }

    // MARK: - Token → host

    private func sendError(_ code: CTAPHID.ErrorCode, channel: UInt32, on connection: DeviceConnection) {
        connection.outbox += CTAPHID.frames(
            channel: channel, command: CTAPHIDCommand.error.rawValue, payload: [code.rawValue])
    }

    /// Queues a CBOR response, corrupted as the fault plan said when its request arrived.
    private func sendCBOR(_ response: [UInt8], channel: UInt32, on connection: DeviceConnection) {
        if connection.responseFault == .keepAliveForever { connection.endlessKeepalive = (channel, .now) }
        connection.outbox += Self.responseReports(response, channel: channel, fault: connection.responseFault)
    }

    /// A token whose state file is gone has been pulled out of the port: every open connection fails from then
    /// on, as reads and writes on a removed USB key's hidraw node do. Checked on every report and every 100 ms
    /// while a command waits for the user, so removing the file during a touch or PIN wait unplugs the key.
    var isUnplugged: Bool { access(path, F_OK) != 0 }

    // MARK: - Reading

    /// Blocks until a report is ready for the host or `milliseconds` pass (negative: no deadline).
    /// While a command waits for the user, emits KEEPALIVE(UPNEEDED) every 100 ms and completes it at touch time.
    func nextReport(on connection: DeviceConnection, milliseconds: Int) -> [UInt8]? {
        monitor.lock()
        defer { monitor.unlock() }
        let deadline = milliseconds < 0 ? nil : Deadline.after(.milliseconds(milliseconds))
        while true {
            if connection.closed || isUnplugged { return nil }
            if !connection.outbox.isEmpty {
                guard countReportForFaults() else { return nil }
                return connection.outbox.removeFirst()
            }
            var wake = deadline
            if let pending = connection.pending {
                if pending.touchAt?.isPast == true {
                    settleIfDue(connection)
                    continue
                }
                if pending.nextKeepalive.isPast {
                    touchIfNoLongerUntouched(connection)
                    touchIfSignalled(connection)
                    connection.pending?.nextKeepalive = .after(.milliseconds(100))
                    connection.outbox += CTAPHID.frames(
                        channel: pending.channel, command: CTAPHIDCommand.keepalive.rawValue,
                        payload: [CTAPHID.KeepaliveStatus.userPresenceNeeded.rawValue])
                    continue
                }
                wake = [wake, pending.touchAt, pending.nextKeepalive].compactMap { $0 }.min()
            } else if let endless = connection.endlessKeepalive {
                if endless.next.isPast {
                    connection.endlessKeepalive = (endless.channel, .after(.milliseconds(100)))
                    connection.outbox += CTAPHID.frames(
                        channel: endless.channel, command: CTAPHIDCommand.keepalive.rawValue,
                        payload: [CTAPHID.KeepaliveStatus.processing.rawValue])
                    continue
                }
                wake = [wake, endless.next].compactMap { $0 }.min()
            }
            if let deadline, deadline.isPast { return nil }
            if let wake { _ = monitor.wait(until: wake) } else { monitor.wait() }
        }
    }

    /// Runs a parked command whose simulated touch has come, queueing its answer on its connection.
    func settleIfDue(_ connection: DeviceConnection) {
        guard let pending = connection.pending, pending.touchAt?.isPast == true else { return }
        abandonPending(on: connection)
        switch withSharedStateFile({ execute(pending.message, userTouched: true) }) {
        case .response(let response): sendCBOR(response, channel: pending.channel, on: connection)
        case .awaitingUser: sendCBOR([CTAPStatus.other.rawValue], channel: pending.channel, on: connection)
        }
    }

    /// At every keepalive of a command waiting for a signalled touch: a touch file beside the state file is the
    /// user's touch, taken by removing it, so one file is one touch for one command.
    func touchIfSignalled(_ connection: DeviceConnection) {
        guard let pending = connection.pending, pending.awaitsSignal, pending.touchAt == nil else { return }
        if unlink(Self.touchFile(for: path)) == 0 { connection.pending?.touchAt = .now }
    }

    /// The file whose creation is one touch of a key with `PresenceMode.onSignal`.
    public static func touchFile(for statePath: String) -> String { statePath + ".touch" }

    /// The host closed its device handle: forget anything in flight on it.
    func close(_ connection: DeviceConnection) {
        monitor.lock()
        defer {
            monitor.unlock()
            monitor.broadcast()
        }
        connection.closed = true
        abandonPending(on: connection)
        connection.endlessKeepalive = nil
        connection.outbox.removeAll()
    }
}
