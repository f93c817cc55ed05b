import FuzzSupport
import WebAuthn

@testable import BridgeHost

/// A request frame's body, as the request loop handles it: the strict JSON parser (with `__binary__`), then —
/// for an object — conversion of its `options` into creation and request options and of their `extensions`
/// into the extension inputs; for unparseable bytes, the lenient request-id recovery the loop answers with.
///
/// Checked beyond "no crash": whatever parses serializes to JSON that parses back to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONOptions(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let frame: JSONValue
    do {
        frame = try JSONValue.parse(bytes)
    } catch {
        _ = error.description
        _ = RequestLoop.recoverID(bytes)
        return 0
    }
    let text = frame.serialized()
    guard let again = try? JSONValue.parse(text) else {
        preconditionFailure("serialized JSON does not parse: \(String(decoding: text, as: UTF8.self))")
    }
    precondition(again == frame, "JSON round trip changed the value: \(String(decoding: text, as: UTF8.self))")

    // The request loop takes `options` from the frame; a bare options object is tried too, so inputs that are
    // only options (most seeds) reach the conversion without the frame around them.
    for options in [frame["options"], frame].compactMap({ $0 }) {
        convert(options)
    }
    return 0
}

private func convert(_ options: JSONValue) {
    do {
        let creation = try PublicKeyCredentialCreationOptions(json: options)
        _ = try RegistrationExtensionInputs(creation.extensions)
    } catch {
        precondition(!error.message.isEmpty, "an options error without a message")
    }
    do {
        let request = try PublicKeyCredentialRequestOptions(json: options)
        _ = try AuthenticationExtensionInputs(request.extensions, allowCredentials: request.allowCredentials.map(\.id))
    } catch {
        precondition(!error.message.isEmpty, "an options error without a message")
    }
    // The extension readers also meet whatever the page put under `extensions`, even when other members fail.
    if let extensions = options["extensions"] {
        _ = try? RegistrationExtensionInputs(extensions)
        _ = try? AuthenticationExtensionInputs(extensions, allowCredentials: [])
    }
}
