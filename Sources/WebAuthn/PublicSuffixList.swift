import CPSL

/// Mozilla's Public Suffix List through libpsl: which names are shared registries ("com", "co.uk",
/// "github.io") under which independent parties register names. WebAuthn uses it so that a page on
/// alice.github.io cannot claim rp.id "github.io" and thereby use bob.github.io's credentials.
///
/// By default lookups use the list's explicit rules only: an unlisted single label such as "localhost" is not a
/// public suffix, which is what lets http://localhost use rp.id "localhost". With `implicitWildcard` the list's
/// default "*" rule applies too (every unlisted top-level label is a public suffix), as the URL standard's
/// "public suffix" and "registrable domain" — and so HTML's registrable-domain-suffix check — define it.
public struct PublicSuffixList: Sendable {
    let context: PSLContext?

    /// The newest list on this system: libpsl compares the distribution file (Debian's `publicsuffix` package,
    /// /usr/share/publicsuffix) with its built-in copy and takes the newer. Falls back to the built-in list,
    /// then to the plain-text file. With none available every name counts as a public suffix, so the
    /// validator fails closed and says why (`isAvailable`).
    public static func system() -> PublicSuffixList {
        if let latest = psl_latest(nil) { return PublicSuffixList(context: PSLContext(latest, owned: true)) }
        if let builtin = psl_builtin() { return PublicSuffixList(context: PSLContext(builtin, owned: false)) }
        return load(path: "/usr/share/publicsuffix/public_suffix_list.dat")
    }

    /// A list from a file in the PSL text or DAFSA format; unavailable when the file cannot be read.
    public static func load(path: String) -> PublicSuffixList {
        PublicSuffixList(context: psl_load_file(path).map { PSLContext($0, owned: true) })
    }

    public var isAvailable: Bool { context != nil }

    /// True when `domain` (lowercase ASCII) is a public suffix by a rule of the list, ICANN or private section.
    public func isPublicSuffix(_ domain: String, implicitWildcard: Bool = false) -> Bool {
        guard let context else { return true }
        let type = implicitWildcard ? PSL_TYPE_ANY : PSL_TYPE_ANY | PSL_TYPE_NO_STAR_RULE
        return psl_is_public_suffix2(context.pointer, domain, Int32(type)) != 0
    }

    /// The longest public suffix `host` ends with on a label boundary (itself included), nil when none.
    public func publicSuffix(of host: String, implicitWildcard: Bool = false) -> String? {
        var candidate = Substring(host)
        while true {
            if isPublicSuffix(String(candidate), implicitWildcard: implicitWildcard) { return String(candidate) }
            guard let dot = candidate.firstIndex(of: ".") else { return nil }
            candidate = candidate[candidate.index(after: dot)...]
        }
    }

    /// The URL standard's registrable domain: the public suffix (implicit "*" rule included) plus one label,
    /// "example.co.uk" for "www.example.co.uk"; nil when `host` is itself a public suffix ("co.uk", "localhost").
    public func registrableDomain(_ host: String) -> String? {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard let suffix = publicSuffix(of: host, implicitWildcard: true), suffix != host else { return nil }
        let suffixLabels = suffix.split(separator: ".").count
        return labels.suffix(suffixLabels + 1).joined(separator: ".")
    }
}

/// Owns a libpsl context; libpsl's lookups only read it, so it is safe to share between threads.
final class PSLContext: @unchecked Sendable {
    let pointer: OpaquePointer
    let owned: Bool

    init(_ pointer: OpaquePointer, owned: Bool) {
        self.pointer = pointer
        self.owned = owned
    }

    deinit { if owned { psl_free(pointer) } }
}
