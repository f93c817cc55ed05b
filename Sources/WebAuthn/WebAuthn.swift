// WebAuthn — the client-side rules and data formats of Web Authentication Level 3, as a browser applies them.
//
// What this module does, one file per step of a request:
//   JSONParser / JSONValue(+Serialization)  the wire format, with `JSONValue.binaryKey` marking every BufferSource
//   CreationOptions / RequestOptions         WebIDL dictionary conversion of the page's options (§5.4, §5.5) → TypeError
//   CallerOrigin / RelyingPartyIDValidator   the trusted origin and the rp.id rules (§5.1.3 steps 7–8, HTML's
//     PublicSuffixList                       "registrable domain suffix"), public suffixes through libpsl → SecurityError
//   Timeouts / AlgorithmSelection            client-side clamping and pubKeyCredParams filtering
//   ClientDataJSON                           CollectedClientData built byte by byte (§5.8.1.1 limited serialization)
//   AuthenticatorData / AttestationObject    parsing what the authenticator returned, packing the attestation object
//   CredentialJSON / CredProps               the `credential` object of a result frame
//
// What it deliberately does not do:
//   - talk to authenticators, libfido2, processes or files (only libpsl reads the public suffix list);
//   - verify attestation statements or signatures — that is the relying party's job, not the client's;
//   - accept IP-address or non-ASCII (IDN) rp ids: an rp.id here is a lowercase ASCII domain. Browsers convert
//     IDNs with UTS #46 first; pages passing punycode work, raw Unicode rp ids get SecurityError;
//   - AppID (U2F) extension semantics, related origins (§5.11) or conditional mediation;
//   - coerce mistyped values the way JavaScript would: the extension's page world converts the page's objects
//     with the browser's WebIDL rules first (extension/page/webidl.js), so a wrong type here means the JSON did
//     not come from that conversion, and is a TypeError. A member that is null counts as absent;
//   - accept anything but a bare serialized origin ("https://host[:port]") from the browser: a path or a
//     trailing "/" means the caller passed a URL where an origin belongs, and that is refused, not trimmed.
