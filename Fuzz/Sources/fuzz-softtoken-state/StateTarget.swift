import CBOR
import FuzzSupport
import SoftToken

private let scratch = ScratchDirectory(name: "softtoken-state")

/// SoftToken's loaders: the state file, its journal of later changes and the signature-counter file, as
/// `SoftToken(stateFile:)` reads them after a crash or a copy. Input: a byte saying which of journal and
/// counter file exist (bits 0 and 1), then the state file and the journal (each with a two-byte length) and the
/// counter file (the rest). A file that loads must be a working token: it answers getInfo.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSoftTokenState(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let present = input.byte()
    let state = input.lengthPrefixed()
    let journal = input.lengthPrefixed()
    let counters = input.rest()

    scratch.empty()
    let path = scratch.file("token.state")
    scratch.write(state, to: "token.state")
    if present & 1 != 0 { scratch.write(journal, to: "token.state.journal") }
    if present & 2 != 0 { scratch.write(counters, to: "token.state.counters") }

    let token: SoftToken
    do { token = try SoftToken(stateFile: path) } catch {
        precondition(!error.description.isEmpty, "a load error without a message")
        return 0
    }
    _ = token.summary()
    let client = CTAPHIDClient(token: token)
    defer { client.close() }
    guard let channel = client.allocateChannel(), let info = client.cbor([0x04], channel: channel),
        info.first == 0, (try? CBOR.decode(Array(info.dropFirst()))) != nil
    else { preconditionFailure("a token that loaded does not answer getInfo") }
    return 0
}
