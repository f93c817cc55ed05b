import CBOR

/// The authenticator extension outputs map of authenticator data, read by name: where the host learns what a
/// key actually did (libfido2's fido_cred_prot()/fido_cred_pin_minlen() echo the request instead).
struct ExtensionOutputs {
    let map: [(CBOR, CBOR)]
    init(_ cbor: CBOR?) { map = cbor?.mapValue ?? [] }
    func value(_ name: String) -> CBOR? { map.first(where: { $0.0.textValue == name })?.1 }
    func bool(_ name: String) -> Bool? {
        if case .bool(let b)? = value(name) { return b }
        return nil
    }
    func int(_ name: String) -> Int? { value(name)?.intValue }
}
