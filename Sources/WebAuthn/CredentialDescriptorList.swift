/// The bounds Chromium puts on `allowCredentials` / `excludeCredentials` before any key is asked
/// (crbug.com/1248862): a list of more than 64 entries is refused, and an id listed twice is sent once.
///
/// Without them one request could carry tens of thousands of ids (a 4 MiB frame), each a silent probe of the
/// key, and a page could repeat an id to amplify the small difference in time a key takes over a credential it
/// holds and one it does not.
public enum CredentialDescriptorList {
    /// Chromium's `kPublicKeyCredentialDescriptorListMaxSize`.
    public static let maximumEntries = 64

    /// `list` (the converted descriptors of `member`) after Chromium's two rules:
    /// - more than `maximumEntries` entries, counted as the page listed them (`listed`: before descriptors of
    ///   unknown types are dropped and before duplicates are merged, as Blink counts the IDL sequence), is refused
    ///   with the name "RangeError" and Chromium's message;
    /// - a repeated id is dropped, keeping its first place in the list; the repeats' `transports` (hints the host
    ///   does not act on) go with them.
    static func bounded(_ list: [PublicKeyCredentialDescriptor], listed: Int, member: String)
        throws(WebAuthnError) -> [PublicKeyCredentialDescriptor]
    {
        guard listed <= maximumEntries else {
            throw WebAuthnError(
                .range, "The `\(member)` attribute exceeds the maximum allowed size (\(maximumEntries)).")
        }
        var seen = Set<[UInt8]>(minimumCapacity: list.count)
        return list.filter { seen.insert($0.id).inserted }
    }
}
