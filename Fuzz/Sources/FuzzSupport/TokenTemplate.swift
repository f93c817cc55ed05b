import SoftToken

/// A SoftToken made once per fuzzing process (PIN "1234", resident keys, certificate attestation) and restored
/// from its saved files before every input, so each input meets the same token: crashes replay, and PIN retries
/// used up by one input do not block the next.
public final class TokenTemplate: @unchecked Sendable {
    public static let pin = "1234"
    public let scratch: ScratchDirectory
    private let files: [String: [UInt8]]
    public static let stateName = "token.state"

    public init(name: String) {
        scratch = ScratchDirectory(name: name)
        do {
            _ = try SoftToken.create(
                at: scratch.file(Self.stateName), configuration: SoftTokenConfiguration(), pin: Self.pin)
        } catch {
            fatalError("cannot create the template SoftToken: \(error)")
        }
        var files: [String: [UInt8]] = [:]
        for name in [Self.stateName, Self.stateName + ".journal", Self.stateName + ".counters"] {
            if let bytes = scratch.read(name) { files[name] = bytes }
        }
        self.files = files
    }

    /// The template token, freshly loaded from its files.
    public func fresh() -> SoftToken {
        scratch.empty()
        for (name, bytes) in files { scratch.write(bytes, to: name) }
        do { return try SoftToken(stateFile: scratch.file(Self.stateName)) } catch {
            fatalError("cannot load the template SoftToken: \(error)")
        }
    }
}
