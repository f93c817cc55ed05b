/// The names of `rp` and `user` (`name`, `displayName`) as the client sends them to an authenticator.
///
/// CTAP 2.1 §6.1.2 lets an authenticator keep only 64 bytes of each and lets the platform truncate them first;
/// browsers do (Chromium 156 and Firefox 153 register an `rp.name` of 100,000 characters, which as sent
/// would not fit a key's message size). The cut falls on a character boundary, so the key gets valid UTF-8.
public enum EntityName {
    /// CTAP 2.1's limit for a stored name, in UTF-8 bytes.
    public static let maximumBytes = 64

    /// `name` whole when it fits in `maximumBytes` UTF-8 bytes, else its longest prefix of whole characters
    /// (Unicode scalars) that does.
    public static func forAuthenticator(_ name: String) -> String {
        guard name.utf8.count > maximumBytes else { return name }
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in name.unicodeScalars {
            bytes += String(scalar).utf8.count
            if bytes > maximumBytes { break }
            kept.append(scalar)
        }
        return String(kept)
    }
}
