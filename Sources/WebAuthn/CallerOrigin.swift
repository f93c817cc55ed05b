/// The origin on whose behalf a ceremony runs, as the browser reported it (the extension's background script
/// reads it from the sender record; the page never supplies it), plus the top-level origin when the call comes
/// from a frame.
///
/// Construction enforces §5.1.3 step 7 / §5.1.4 step 7's precondition that the caller is a secure context:
/// the origin must be "potentially trustworthy" — https, or http on a loopback name (localhost, *.localhost,
/// 127.0.0.0/8, [::1]). Opaque origins ("null") and every other scheme (chrome-extension:, file:, data:) are
/// refused. Whether the host may use a given rp.id is `RelyingPartyIDValidator`'s question, not this type's:
/// an http://127.0.0.1 origin is a secure context, it only has no domain to be a relying party for.
public struct CallerOrigin: Sendable, Equatable {
    public enum HostKind: Sendable, Equatable { case domain, ipv4, ipv6 }

    /// "https" or "http", lowercase.
    public let scheme: String
    /// Lowercase; IPv6 addresses keep their brackets ("[::1]").
    public let host: String
    /// nil when absent or the scheme's default (443 for https, 80 for http), as origin serialization omits it.
    public let port: Int?
    public let hostKind: HostKind
    /// The top-level origin, serialized, when the browser gave one.
    public let topOrigin: String?
    /// The extension found an ancestor of another origin although the top-level origin equals this one (A→B→A
    /// nesting): WebAuthn L3 §5.1.3 step 2's "same-origin with its ancestors" is over every ancestor.
    public let hasCrossOriginAncestor: Bool

    /// Parses and checks the trusted origin. `origin` must be a serialized origin ("https://host[:port]"): no path,
    /// query, fragment or credentials, since the browser's own serialization never has them.
    public init(origin: String, topOrigin: String?, crossOrigin: Bool = false) throws(WebAuthnError) {
        let parsed = try OriginParts(parsing: origin, role: "origin")
        scheme = parsed.scheme
        host = parsed.host
        port = parsed.port
        hostKind = parsed.kind
        if let topOrigin {
            self.topOrigin = try OriginParts(parsing: topOrigin, role: "topOrigin").serialized
        } else {
            self.topOrigin = nil
        }
        hasCrossOriginAncestor = crossOrigin && topOrigin != nil
    }

    /// The ASCII serialization that goes into clientDataJSON's `origin`.
    public var serialized: String { OriginParts.serialize(scheme: scheme, host: host, port: port) }

    /// True when the call comes from a frame not same-origin with all its ancestors: its origin differs from the
    /// top-level one, or an ancestor in between had another (clientDataJSON's `crossOrigin`; `topOrigin` is then
    /// recorded there too).
    public var isCrossOrigin: Bool {
        guard let topOrigin else { return false }
        return hasCrossOriginAncestor || topOrigin != serialized
    }

    public var isIPAddress: Bool { hostKind != .domain }
}

/// The pieces of a serialized http(s) origin, validated.
struct OriginParts {
    let scheme: String
    let host: String
    let port: Int?
    let kind: CallerOrigin.HostKind

    init(parsing text: String, role: String) throws(WebAuthnError) {
        func refuse(_ why: String) -> WebAuthnError { .security("The \(role) \"\(text)\" \(why)") }

        guard text != "null" else { throw refuse("is opaque; WebAuthn needs a secure http(s) origin") }
        guard let separator = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { throw refuse("is not an origin") }
        let schemeText = String(text[..<separator]).lowercased()
        guard schemeText == "https" || schemeText == "http" else {
            throw refuse("has scheme \"\(schemeText)\"; WebAuthn needs https (or http on localhost)")
        }
        let rest = text[text.index(after: separator)...]
        guard rest.hasPrefix("//") else { throw refuse("is not an origin") }
        let authority = rest.dropFirst(2)
        guard !authority.isEmpty else { throw refuse("has no host") }
        guard authority.allSatisfy({ $0.isASCII }) else {
            throw refuse("has a non-ASCII host; the browser sends punycode")
        }
        guard !authority.contains(where: { "/?#@\\ ".contains($0) }) else {
            throw refuse("is not a bare origin (scheme://host[:port] without path, query or credentials)")
        }

        var hostText: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("has an unterminated IPv6 address") }
            hostText = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("has characters after its IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            hostText = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            hostText = authority
        }

        var port: Int?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isWholeNumber),
                let value = Int(portText), value <= 65535
            else { throw refuse("has an invalid port") }
            port = value
        }
        if (schemeText == "https" && port == 443) || (schemeText == "http" && port == 80) { port = nil }

        let host = hostText.lowercased()
        let kind: CallerOrigin.HostKind
        if host.hasPrefix("[") {
            let inner = host.dropFirst().dropLast()
            guard !inner.isEmpty, inner.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), inner.contains(":")
            else {
                throw refuse("has an invalid IPv6 address")
            }
            kind = .ipv6
        } else if let kindOfHost = DomainName.classify(host) {
            kind = kindOfHost
        } else {
            throw refuse("has an invalid host")
        }

        guard schemeText == "https" || Self.isLoopback(host: host, kind: kind) else {
            throw refuse("is not a secure context; use https (http is allowed only for localhost)")
        }
        self.scheme = schemeText
        self.host = host
        self.port = port
        self.kind = kind
    }

    /// The loopback names the Secure Contexts spec treats as potentially trustworthy over http.
    static func isLoopback(host: String, kind: CallerOrigin.HostKind) -> Bool {
        switch kind {
        case .domain: return host == "localhost" || host.hasSuffix(".localhost")
        case .ipv4: return host.hasPrefix("127.")
        case .ipv6: return host == "[::1]"
        }
    }

    var serialized: String { Self.serialize(scheme: scheme, host: host, port: port) }

    static func serialize(scheme: String, host: String, port: Int?) -> String {
        port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}

/// Syntax of the domains this module accepts as hosts and rp ids: lowercase ASCII labels of letters, digits,
/// '-' and '_', 1–63 bytes each, at most 253 bytes in all, no empty label (so no trailing dot).
enum DomainName {
    /// `.domain` or `.ipv4` for a valid host, nil for anything else. Like the URL standard, a host whose last
    /// label is numeric is an IPv4 address or invalid, never a domain.
    static func classify(_ host: String) -> CallerOrigin.HostKind? {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard let last = labels.last, !last.isEmpty else { return nil }
        if last.allSatisfy(\.isASCIIDigitCharacter) {
            guard labels.count == 4,
                labels.allSatisfy({ label in
                    !label.isEmpty && label.count <= 3 && label.allSatisfy(\.isASCIIDigitCharacter)
                        && (Int(label) ?? 256) <= 255
                })
            else { return nil }
            return .ipv4
        }
        return isValid(host) ? .domain : nil
    }

    static func isValid(_ domain: String) -> Bool {
        guard !domain.isEmpty, domain.utf8.count <= 253 else { return false }
        return domain.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63
                && label.utf8.allSatisfy { byte in
                    (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x5F
                }
        }
    }
}

extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isWholeNumber }
}
