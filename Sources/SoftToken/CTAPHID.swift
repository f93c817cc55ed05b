import Threading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// CTAPHID constants (CTAP 2.1 §11.2).
enum CTAPHID {
    static let reportSize = 64
    static let initPayload = reportSize - 7
    static let continuationPayload = reportSize - 5
    static let broadcastChannel: UInt32 = 0xFFFF_FFFF
    /// Largest CTAPHID message: one init and 128 continuation reports.
    static let maxMessage = initPayload + 128 * continuationPayload

    enum ErrorCode: UInt8 {
        case invalidCommand = 0x01
        case invalidParameter = 0x02
        case invalidLength = 0x03
        case invalidSequence = 0x04
        case messageTimeout = 0x05
        case channelBusy = 0x06
        case invalidChannel = 0x0B
        case other = 0x7F
    }

    enum KeepaliveStatus: UInt8 {
        case processing = 1
        case userPresenceNeeded = 2
    }

    /// Capability flags in the INIT response: WINK, CBOR when it speaks CTAP2, NMSG when it does not speak U2F.
    static func capabilities(ctap2: Bool, u2f: Bool) -> UInt8 {
        0x01 | (ctap2 ? 0x04 : 0) | (u2f ? 0 : 0x08)
    }

    /// Splits a message into 64-byte reports.
    static func frames(channel: UInt32, command: UInt8, payload: [UInt8], firstSequence: UInt8 = 0) -> [[UInt8]] {
        let cid = withUnsafeBytes(of: channel.bigEndian) { Array($0) }
        var first = cid + [0x80 | command, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        first += payload.prefix(initPayload)
        var reports = [pad(first)]
        var offset = min(payload.count, initPayload)
        var sequence = firstSequence
        while offset < payload.count {
            let end = min(payload.count, offset + continuationPayload)
            reports.append(pad(cid + [sequence & 0x7F] + payload[offset..<end]))
            sequence &+= 1
            offset = end
        }
        return reports
    }

    static func pad(_ report: [UInt8]) -> [UInt8] { report + [UInt8](repeating: 0, count: reportSize - report.count) }
}

/// Token-wide CTAPHID state: which channels exist, and which one is busy waiting for the user.
struct TransportState {
    /// How many channels the token keeps. A key's firmware keeps a small fixed table (RIOT's FIDO2 stack 8, with
    /// the same eviction), not one entry per CTAPHID_INIT ever answered: libfido2 sends one on every
    /// `fido_dev_open`, so a host session running ceremonies for hours would otherwise grow without end. 8 is
    /// well above what a host holds open on one key at once (one device: a selection opens each key once).
    static let channelLimit = 8

    /// The allocated channels, least recently used first. A new channel beyond `channelLimit` evicts the least
    /// recently used one that no command waits on; a command on an evicted channel gets ERR_INVALID_CHANNEL.
    private(set) var channels: [UInt32] = []
    var nextChannel: UInt32 = UInt32.random(in: 1...0x00FF_FFFF)
    /// The connection and channel with a command waiting for the user; other channels get ERR_CHANNEL_BUSY
    /// meanwhile. Cleared when that command ends, is cancelled or superseded, or its connection closes.
    var busy: (connection: DeviceConnection, channel: UInt32)?

    func isAllocated(_ channel: UInt32) -> Bool { channels.contains(channel) }

    /// The host used the channel: it becomes the most recently used.
    mutating func noteUse(of channel: UInt32) {
        guard let index = channels.firstIndex(of: channel), index != channels.count - 1 else { return }
        channels.append(channels.remove(at: index))
    }

    /// A fresh id for CTAPHID_INIT on the broadcast channel. Ids are not reused until the 32-bit counter wraps,
    /// so a handle still holding an evicted id gets ERR_INVALID_CHANNEL rather than another handle's channel.
    mutating func allocateChannel() -> UInt32 {
        repeat {
            nextChannel = nextChannel &+ 1
        } while nextChannel == 0 || nextChannel == CTAPHID.broadcastChannel || channels.contains(nextChannel)
        if channels.count >= Self.channelLimit {
            // Never the channel a command waits on: its answer and a CANCEL for it still have to get through.
            let victim = channels.firstIndex { $0 != busy?.channel } ?? 0
            channels.remove(at: victim)
        }
        channels.append(nextChannel)
        return nextChannel
    }
}

/// One `fido_dev_open` of a token: what the host has sent so far and what it has yet to read.
final class DeviceConnection: @unchecked Sendable {
    let token: SoftToken
    var outbox: [[UInt8]] = []
    var assembly: Assembly?
    var pending: PendingCommand?
    /// Set by the keepAliveForever fault: the channel to pester and when the next KEEPALIVE is due.
    var endlessKeepalive: (channel: UInt32, next: Deadline)?
    /// How the fault plan corrupts the answer to the CBOR request in progress (nil: it does not).
    var responseFault: ResponseFault?
    var closed = false

    init(token: SoftToken) { self.token = token }

    /// A message arriving in several reports.
    struct Assembly {
        var channel: UInt32
        var command: UInt8
        var length: Int
        var data: [UInt8]
        var nextSequence: UInt8
    }

    /// A CBOR command parked until the simulated user touches.
    struct PendingCommand {
        var channel: UInt32
        var message: [UInt8]
        /// nil: not before the `.untouched` fault plan is lifted, or the test signals the touch (`.onSignal`).
        var touchAt: Deadline?
        var nextKeepalive: Deadline
        /// Touched when the test signals it (`PresenceMode.onSignal`), not when a fault plan is lifted.
        var awaitsSignal = false
    }
}
