import CBOR
import CTAP
import FuzzSupport
import SoftToken

private let template = TokenTemplate(name: "ctap-commands")

/// SoftToken's command dispatch and every CTAP 2.1 command it implements (makeCredential, getAssertion,
/// getNextAssertion, getInfo, clientPIN, reset, largeBlobs), reached through well-formed CTAPHID framing.
///
/// Input: CTAP messages (command byte, then CBOR parameters), each preceded by its length in two big-endian
/// bytes, sent in order on one channel of a fresh token with PIN 1234, so one input can be a whole exchange.
/// Checked beyond "no crash": every message gets exactly one CBOR response, and a success carries either no
/// body or one well-formed CBOR item.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCTAPCommands(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let token = template.fresh()
    let client = CTAPHIDClient(token: token)
    defer { client.close() }
    guard let channel = client.allocateChannel() else { preconditionFailure("CTAPHID_INIT failed") }
    while !input.isEmpty {
        let message = input.lengthPrefixed()
        guard !message.isEmpty else { continue }
        guard let response = client.cbor(message, channel: channel) else {
            preconditionFailure(
                "no CBOR response to a \(message.count)-byte message starting 0x\(String(message[0], radix: 16))")
        }
        precondition(!response.isEmpty, "an empty CBOR response")
        if response[0] == 0, response.count > 1 {
            precondition((try? CBOR.decode(Array(response.dropFirst()))) != nil, "a success whose body is not CBOR")
        }
    }
    return 0
}
