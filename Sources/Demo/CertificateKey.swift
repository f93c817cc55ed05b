/// Reads the SubjectPublicKeyInfo out of an X.509 certificate's DER, which is all the demo needs of an
/// attestation certificate. Every length is checked against what is left, so a hostile certificate is nil.
enum CertificateKey {
    /// Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version?, serialNumber, signature, issuer,
    /// validity, subject, subjectPublicKeyInfo, … }, … } (RFC 5280 §4.1). Returns the SPKI's whole TLV.
    static func subjectPublicKeyInfo(_ der: [UInt8]) -> [UInt8]? {
        guard let certificate = element(der[...]), certificate.tag == 0x30,
            let tbs = element(certificate.content), tbs.tag == 0x30
        else { return nil }
        var rest = tbs.content
        guard let first = element(rest) else { return nil }
        if first.tag == 0xA0 { rest = first.remainder }  // explicit version
        for _ in 0..<5 {  // serial, signature, issuer, validity, subject
            guard let skipped = element(rest) else { return nil }
            rest = skipped.remainder
        }
        guard let spki = element(rest), spki.tag == 0x30 else { return nil }
        return Array(spki.whole)
    }

    struct Element {
        let tag: UInt8
        let whole: ArraySlice<UInt8>
        let content: ArraySlice<UInt8>
        let remainder: ArraySlice<UInt8>
    }

    /// One TLV at the start of `bytes` (definite lengths of up to 3 bytes: far more than a certificate needs).
    static func element(_ bytes: ArraySlice<UInt8>) -> Element? {
        var index = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let tag = bytes[index]
        index += 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...3).contains(count), bytes.endIndex - index >= count else { return nil }
            length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard bytes.endIndex - index >= length else { return nil }
        let end = index + length
        return Element(
            tag: tag, whole: bytes[bytes.startIndex..<end], content: bytes[index..<end], remainder: bytes[end...])
    }
}
