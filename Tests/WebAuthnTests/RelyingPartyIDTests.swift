import Testing

@testable import WebAuthn

let validator = RelyingPartyIDValidator(publicSuffixList: .system())

/// The outcome of checking `rpID` for a caller at `origin`: the effective rp.id, or the error's name.
func check(_ origin: String, _ rpID: String?, top: String? = nil) -> Result<String, WebAuthnError> {
    do {
        let caller = try CallerOrigin(origin: origin, topOrigin: top)
        return .success(try validator.effectiveRPID(requested: rpID, for: caller))
    } catch {
        return .failure(error)
    }
}

struct RelyingPartyIDTests {
    @Test(
        arguments: [
            // (origin, requested rp.id, effective rp.id)
            ("https://example.com", nil, "example.com"),
            ("https://example.com", "example.com", "example.com"),
            ("https://sub.example.com", "example.com", "example.com"),
            ("https://sub.example.com", "sub.example.com", "sub.example.com"),
            ("https://a.b.example.co.uk", "example.co.uk", "example.co.uk"),
            ("https://alice.github.io", "alice.github.io", "alice.github.io"),
            ("https://login.example.com:8443", "example.com", "example.com"),
            ("https://EXAMPLE.com", nil, "example.com"),
            ("https://Sub.Example.COM", "Example.COM", "example.com"),
            ("https://example.com:443", nil, "example.com"),
            ("http://localhost", nil, "localhost"),
            ("http://localhost:8080", "localhost", "localhost"),
            ("http://app.localhost:3000", nil, "app.localhost"),
            ("https://localhost", nil, "localhost"),
            ("https://xn--bcher-kva.example", nil, "xn--bcher-kva.example"),
            ("https://intranet", nil, "intranet"),
            ("https://app.corp.internal", "corp.internal", "corp.internal"),
        ] as [(String, String?, String)])
    func allowedRelyingPartyIDs(origin: String, rpID: String?, effective: String) {
        #expect(check(origin, rpID) == .success(effective))
    }

    @Test(
        arguments: [
            // spoofed domain
            ("https://evil.com", "example.com"),
            // suffix but not a subdomain
            ("https://notexample.com", "example.com"),
            ("https://example.com", "ample.com"),
            // sibling and child of the origin
            ("https://sub.example.com", "other.example.com"),
            ("https://example.com", "sub.example.com"),
            // public suffixes (ICANN and private sections)
            ("https://example.com", "com"),
            ("https://example.co.uk", "co.uk"),
            ("https://alice.github.io", "github.io"),
            ("https://app.appspot.com", "appspot.com"),
            ("https://github.io", nil),
            ("https://co.uk", nil),
            // a name inside a multi-label public suffix
            ("https://example.co.uk", "uk"),
            // parent domains are judged with the list's implicit "*" rule
            ("https://app.corp.internal", "internal"),
            ("http://app.localhost", "localhost"),
            // IP literals, as origin and as rp.id
            ("http://127.0.0.1", nil),
            ("http://127.0.0.1:8080", "127.0.0.1"),
            ("https://127.0.0.1", nil),
            ("http://[::1]", nil),
            ("https://[2001:db8::1]", nil),
            ("https://192.168.1.10", "192.168.1.10"),
            ("https://example.com", "127.0.0.1"),
            ("http://localhost", "127.0.0.1"),
            // trailing dot and malformed rp ids
            ("https://example.com", "example.com."),
            ("https://example.com.", nil),
            ("https://example.com", ""),
            ("https://example.com", ".example.com"),
            ("https://example.com", "exa mple.com"),
            ("https://example.com", "bücher.example.com"),
            ("https://sub.example.com", "EXAMPLE.COM\u{212A}"),
            // non-secure or non-web origins
            ("http://example.com", nil),
            ("http://example.com", "example.com"),
            ("http://localhost.example.com", nil),
            ("chrome-extension://abcdefghijklmnopabcdefghijklmnop", nil),
            ("moz-extension://3c1f0b7e-0000-4000-8000-000000000000", nil),
            ("file:///home/user/page.html", nil),
            ("data:text/html,hi", nil),
            ("ws://localhost", nil),
            ("null", nil),
            // garbage and non-origins
            ("", nil),
            ("example.com", nil),
            ("https://", nil),
            ("https:example.com", nil),
            ("https://example.com/", nil),
            ("https://example.com/path", nil),
            ("https://user@example.com", nil),
            ("https://example.com:99999", nil),
            ("https://example.com:", nil),
            ("https://example.com:8x", nil),
            ("https://ex ample.com", nil),
            ("https://bücher.example", nil),
            ("https://[::1", nil),
            ("https://1.2.3", nil),
        ] as [(String, String?)])
    func refusedWithSecurityError(origin: String, rpID: String?) {
        switch check(origin, rpID) {
        case .success(let id): Issue.record("accepted as \(id)")
        case .failure(let error): #expect(error.name == .security, "\(error)")
        }
    }

    @Test func messagesNameTheRelyingPartyAndTheHost() {
        #expect(
            check("https://evil.com", "example.com")
                == .failure(
                    .security(
                        "The relying party ID \"example.com\" is neither the origin's host \"evil.com\" nor a parent domain of it"
                    )))
        #expect(
            check("https://alice.github.io", "github.io")
                == .failure(.security("The relying party ID \"github.io\" is a public suffix")))
        #expect(
            check("http://example.com", nil)
                == .failure(
                    .security(
                        "The origin \"http://example.com\" is not a secure context; use https (http is allowed only for localhost)"
                    )))
    }

    @Test func unavailablePublicSuffixListFailsClosed() throws {
        let strict = RelyingPartyIDValidator(publicSuffixList: .load(path: "/nonexistent/list.dat"))
        let caller = try CallerOrigin(origin: "https://example.com", topOrigin: nil)
        #expect(throws: WebAuthnError.self) { try strict.effectiveRPID(requested: nil, for: caller) }
    }
}

struct PublicSuffixListTests {
    let list = PublicSuffixList.system()

    @Test(arguments: ["com", "co.uk", "uk", "github.io", "appspot.com", "blogspot.com"])
    func publicSuffixes(name: String) { #expect(list.isPublicSuffix(name)) }

    @Test(arguments: ["example.com", "example.co.uk", "alice.github.io", "localhost", "app.localhost"])
    func notPublicSuffixes(name: String) { #expect(!list.isPublicSuffix(name)) }

    @Test func theImplicitWildcardMakesUnlistedTopLevelLabelsPublic() {
        #expect(list.isPublicSuffix("localhost", implicitWildcard: true))
        #expect(list.isPublicSuffix("internal", implicitWildcard: true))
        #expect(!list.isPublicSuffix("corp.internal", implicitWildcard: true))
    }

    @Test(arguments: [
        ("www.example.co.uk", "example.co.uk"), ("a.b.example.com", "example.com"),
        ("alice.github.io", "alice.github.io"),
        ("x.alice.github.io", "alice.github.io"),
    ])
    func registrableDomains(host: String, registrable: String) { #expect(list.registrableDomain(host) == registrable) }

    @Test func aPublicSuffixHasNoRegistrableDomain() {
        #expect(list.registrableDomain("co.uk") == nil)
        #expect(list.registrableDomain("localhost") == nil)
        #expect(list.registrableDomain("app.localhost") == "app.localhost")
        #expect(list.publicSuffix(of: "www.example.co.uk") == "co.uk")
    }
}

struct CallerOriginTests {
    @Test func parsesAndSerializesCanonically() throws {
        let caller = try CallerOrigin(origin: "HTTPS://Example.COM:8443", topOrigin: nil)
        #expect(caller.scheme == "https")
        #expect(caller.host == "example.com")
        #expect(caller.port == 8443)
        #expect(caller.serialized == "https://example.com:8443")
        #expect(!caller.isCrossOrigin)
        #expect(try CallerOrigin(origin: "http://localhost:80", topOrigin: nil).serialized == "http://localhost")
        #expect(try CallerOrigin(origin: "http://[::1]:3000", topOrigin: nil).serialized == "http://[::1]:3000")
        #expect(try CallerOrigin(origin: "http://127.0.0.1", topOrigin: nil).hostKind == .ipv4)
    }

    @Test func topOriginThatDiffersMakesTheCallCrossOrigin() throws {
        let framed = try CallerOrigin(origin: "https://pay.example", topOrigin: "https://shop.example")
        #expect(framed.isCrossOrigin)
        #expect(framed.topOrigin == "https://shop.example")
        let same = try CallerOrigin(origin: "https://example.com", topOrigin: "https://EXAMPLE.com:443")
        #expect(!same.isCrossOrigin)
    }

    @Test func topOriginMayBeAnIPAddressButMustBeSecure() throws {
        #expect(try CallerOrigin(origin: "https://example.com", topOrigin: "https://192.168.1.1").isCrossOrigin)
        #expect(
            throws: WebAuthnError.security(
                "The topOrigin \"http://shop.example\" is not a secure context; use https (http is allowed only for localhost)"
            )
        ) {
            try CallerOrigin(origin: "https://example.com", topOrigin: "http://shop.example")
        }
    }
}
