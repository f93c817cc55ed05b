import CBOR
import CFIDO2
import FIDO
import FuzzSupport
import WebAuthn

/// What the host reads from a security key, whatever the key sends.
///
/// Input: a mode byte, then
/// - 0: authenticator data, as `AuthenticatorData` parses it from makeCredential and getAssertion;
/// - 1: a format byte, the authenticator data (two-byte length first), then the attestation statement's CBOR:
///   the attestation object the host builds for the page from them, under each conveyance preference;
/// - 2: the CBOR body of an authenticatorGetInfo response, answered by a simulated key through libfido2's I/O
///   hooks so that `Device.open` reads it the way it reads a real key's (libfido2's parser, then the host's).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuthenticatorOutput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    switch input.byte() % 3 {
    case 0: checkAuthenticatorData(input.rest())
    case 1: checkAttestation(&input)
    default: checkGetInfo(input.rest())
    }
    return 0
}

private func checkAuthenticatorData(_ bytes: [UInt8]) {
    guard let parsed = try? AuthenticatorData(bytes: bytes) else { return }
    precondition(parsed.bytes == bytes, "authenticator data not kept byte for byte")
    if let credential = parsed.attestedCredential {
        precondition(
            credential.aaguid.count == 16 && credential.credentialID.count <= bytes.count,
            "attested credential out of bounds")
        precondition((try? CBOR.decode(credential.publicKeyCOSEBytes)) != nil, "COSE key bytes do not decode alone")
    }
}

private let formats = ["packed", "none", "fido-u2f", "tpm", "android-key", "apple"]

private func checkAttestation(_ input: inout FuzzInput) {
    let format = formats[Int(input.byte()) % formats.count]
    let authData = input.lengthPrefixed()
    let statement = input.rest()
    guard let parsed = try? AuthenticatorData(bytes: authData) else { return }
    // libfido2 hands the host only statements that are CBOR maps; the host splices them in without re-encoding.
    guard let decoded = try? CBOR.decode(statement), decoded.mapValue != nil else { return }
    for preference in [AttestationConveyance.none, .indirect, .direct] {
        let object = AttestationObject.conveyed(
            preference, format: format, statement: .raw(statement), authenticatorData: parsed)
        guard let item = try? CBOR.decode(object), item.mapValue?.count == 3,
            item[text: "authData"]?.bytesValue == authData, item[text: "fmt"]?.textValue != nil
        else { preconditionFailure("attestation object for \(preference) is malformed") }
    }
}

// MARK: - getInfo through libfido2

/// libfido2 set up once per process, without a log handler (as the host runs it when tracing is off).
private let libraryReady: Void = FIDOLibrary.attachLogging(to: nil)

private func checkGetInfo(_ body: [UInt8]) {
    _ = libraryReady
    SimulatedKey.getInfoBody = body
    SimulatedKey.outbox = []
    guard
        let device = try? Device.open(
            DeviceLocation(path: "fuzz:getinfo", io: SimulatedKey.io, manufacturer: "fuzz", product: "getInfo"))
    else { return }
    let info = device.info
    _ = (
        info.isFIDO2, info.hasClientPIN, info.supportsClientPIN, info.hasBuiltInUV, info.supportsResidentKeys,
        info.supportsLargeBlobs, info.alwaysUV, info.makeCredentialUVNotRequired, info.supportedAlgorithms,
        info.supportsExtension("hmac-secret")
    )
    _ = (
        device.isFIDO2, device.hasPIN, device.hasBuiltInUV, device.supportsPermissions,
        device.supportsCredentialProtection
    )
    device.close()
}

/// A key that answers CTAPHID_INIT properly and every CTAPHID_CBOR request with status 0 and the fuzzed body.
/// libfido2's I/O hooks are C functions without context, so its state is global (one fuzzing thread).
enum SimulatedKey {
    nonisolated(unsafe) static var getInfoBody: [UInt8] = []
    nonisolated(unsafe) static var outbox: [[UInt8]] = []
    static let channel: UInt32 = 0x0102_0304
    nonisolated(unsafe) static let handle = UnsafeMutableRawPointer(bitPattern: 0x1)  // any non-nil value

    static let io = fido_dev_io_t(
        open: { _ in SimulatedKey.handle },
        close: { _ in },
        read: { _, buffer, length, _ in
            guard let buffer, !SimulatedKey.outbox.isEmpty else { return -1 }
            let report = SimulatedKey.outbox.removeFirst()
            let count = min(length, report.count)
            _ = UnsafeMutableBufferPointer(start: buffer, count: count).update(fromContentsOf: report.prefix(count))
            return Int32(count)
        },
        write: { _, buffer, length in
            guard let buffer, length > 0 else { return -1 }
            SimulatedKey.receive(Array(UnsafeBufferPointer(start: buffer, count: length)))
            return Int32(length)
        })

    static func receive(_ written: [UInt8]) {
        // libfido2 writes a leading report ID (0) before the 64-byte report.
        let report = written.count == CTAPHIDClient.reportSize + 1 ? Array(written.dropFirst()) : written
        guard report.count >= 7, report[4] & 0x80 != 0 else { return }
        let cid = report[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
        switch report[4] & 0x7F {
        case 0x06:  // INIT: echo the nonce, assign the channel, version 2, capabilities CBOR | NMSG
            let nonce = Array(report[7..<15])
            let payload = nonce + withUnsafeBytes(of: channel.bigEndian) { Array($0) } + [2, 1, 0, 0, 0x04 | 0x08]
            outbox += CTAPHIDClient.frames(channel: cid, command: 0x06, payload: payload)
        case 0x10:
            outbox += CTAPHIDClient.frames(channel: cid, command: 0x10, payload: [0x00] + getInfoBody)
        default:
            break
        }
    }
}
