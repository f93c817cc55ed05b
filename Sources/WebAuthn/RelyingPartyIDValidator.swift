/// Decides which relying party a caller may act for (§5.1.3 step 8, §5.1.4 step 8, and HTML's "is a registrable
/// domain suffix of or is equal to"). Every failure is a SecurityError raised before any device is touched, so
/// a page learns nothing from a key by asking for someone else's rp.id.
///
/// The rules, in the order they are checked:
/// 1. the caller's host must be a domain: IP-address origins have no relying party (Chromium refuses them too);
/// 2. the rp.id defaults to that host; a given rp.id is lowercased and must be a syntactically valid ASCII domain
///    (no IP literal, no empty label, so no trailing dot);
/// 3. it must equal the host or be a suffix of it on a label boundary ("notexample.com" does not end in
///    ".example.com");
/// 4. it must not be a public suffix. When it equals the host only the list's explicit rules count, so
///    "localhost" or an intranet name works; when it is a parent domain, HTML's rule applies with the list's
///    implicit "*" rule: it must not be, or reach into, the host's public suffix (for "a.b.github.io" neither
///    "github.io" nor "io" will do, "b.github.io" will; for "app.corp.internal", "internal" will not).
/// Ports and schemes play no part: an rp.id covers every port of its domain.
public struct RelyingPartyIDValidator: Sendable {
    public let publicSuffixList: PublicSuffixList

    public init(publicSuffixList: PublicSuffixList) {
        self.publicSuffixList = publicSuffixList
    }

    /// The rp.id the ceremony uses (and whose SHA-256 the authenticator data carries): lowercase ASCII.
    public func effectiveRPID(requested: String?, for caller: CallerOrigin) throws(WebAuthnError) -> String {
        guard publicSuffixList.isAvailable else {
            throw .security(
                "No public suffix list is available, so no relying party ID can be checked (install the publicsuffix package)"
            )
        }
        guard caller.hostKind == .domain else {
            throw .security(
                "The origin \(caller.serialized) is an IP address; WebAuthn needs a domain name as relying party ID")
        }
        let host = caller.host
        guard DomainName.isValid(host) else {
            throw .security("The origin's host \"\(host)\" is not a valid domain for a relying party ID")
        }
        guard let requested else {
            guard !publicSuffixList.isPublicSuffix(host) else {
                throw .security("The origin's host \"\(host)\" is a public suffix and cannot be a relying party ID")
            }
            return host
        }

        let rpID = Self.asciiLowercased(requested)
        guard rpID.allSatisfy(\.isASCII), DomainName.classify(rpID) == .domain else {
            throw .security(
                "The relying party ID \"\(requested)\" is not a valid domain (IP addresses and non-ASCII names are not accepted)"
            )
        }
        guard rpID == host || host.hasSuffix("." + rpID) else {
            throw .security(
                "The relying party ID \"\(rpID)\" is neither the origin's host \"\(host)\" nor a parent domain of it")
        }
        guard !publicSuffixList.isPublicSuffix(rpID, implicitWildcard: rpID != host) else {
            throw .security("The relying party ID \"\(rpID)\" is a public suffix")
        }
        if rpID != host, let hostSuffix = publicSuffixList.publicSuffix(of: host, implicitWildcard: true),
            hostSuffix == rpID || hostSuffix.hasSuffix("." + rpID)
        {
            throw .security(
                "The relying party ID \"\(rpID)\" lies within the public suffix \"\(hostSuffix)\" of \"\(host)\"")
        }
        return rpID
    }

    /// Lowercases A–Z only: non-ASCII must not be case-folded into ASCII (U+212A KELVIN SIGN → "k").
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
