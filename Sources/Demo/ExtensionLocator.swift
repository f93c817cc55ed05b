import Cryptography
import Glibc
import WebAuthn

/// The unpacked extension the demo loads, and the ids each browser will give it.
public struct DemoExtension: Sendable {
    public let directory: String
    /// Firefox: the manifest's browser_specific_settings.gecko.id.
    public let geckoID: String
    /// Chromium: derived from the manifest's `key` as Chromium derives it.
    public let chromiumID: String

    /// Where the extension is looked for, in order: `--extension DIR`; next to an installed binary
    /// (PREFIX/libexec/webauthn-bridge/ or a package's /usr/lib/webauthn-bridge/ → PREFIX/share/webauthn-bridge/extension);
    /// /usr/share/webauthn-bridge/extension; the source tree the binary was built in (a directory holding
    /// Package.swift and extension/manifest.json, above the binary).
    public static func locate(explicit: String?, executable: String) throws(DemoError) -> DemoExtension {
        if let explicit {
            guard isFile("\(explicit)/manifest.json") else {
                throw DemoError("--extension \(explicit): no manifest.json there")
            }
            return try load(absolute(explicit))
        }
        let candidates = candidates(executable: executable)
        guard let found = candidates.first(where: { isFile("\($0)/manifest.json") }) else {
            throw DemoError(
                "the webauthn-bridge extension was not found; looked in:\n  " + candidates.joined(separator: "\n  ")
                    + "\nGive its directory with --extension DIR (a clone's extension/ directory).")
        }
        return try load(found)
    }

    static func candidates(executable: String) -> [String] {
        let binaryDirectory = parent(executable)
        var found = [
            normalized("\(binaryDirectory)/../../share/webauthn-bridge/extension"),
            "/usr/share/webauthn-bridge/extension",
        ]
        var directory = binaryDirectory
        while directory != "/" {
            if isFile("\(directory)/Package.swift"), isFile("\(directory)/extension/manifest.json") {
                found.append("\(directory)/extension")
                break
            }
            directory = parent(directory)
        }
        return found
    }

    static func load(_ directory: String) throws(DemoError) -> DemoExtension {
        guard let text = readFile("\(directory)/manifest.json"), let manifest = try? JSONValue.parse(text) else {
            throw DemoError("\(directory)/manifest.json is not readable JSON")
        }
        guard let geckoID = manifest["browser_specific_settings"]?["gecko"]?["id"]?.stringValue else {
            throw DemoError("\(directory)/manifest.json has no browser_specific_settings.gecko.id, which Firefox needs")
        }
        guard let key = manifest["key"]?.stringValue, let chromiumID = chromiumID(publicKeyBase64: key) else {
            throw DemoError(
                "\(directory)/manifest.json has no usable \"key\": Chromium would give the extension an id the host does not serve"
            )
        }
        return DemoExtension(directory: directory, geckoID: geckoID, chromiumID: chromiumID)
    }

    /// Chromium's id for an extension with a `key`: the first 16 bytes of SHA-256 of the key's DER, each nibble
    /// written as a letter a–p.
    static func chromiumID(publicKeyBase64 key: String) -> String? {
        let urlAlphabet = String(key.compactMap { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 == "=" ? nil : $0 })
        guard let der = Base64URL.decode(urlAlphabet), !der.isEmpty else { return nil }
        let letters = Array("abcdefghijklmnop")
        return String(Digest.sha256(der).prefix(16).flatMap { [letters[Int($0 >> 4)], letters[Int($0 & 15)]] })
    }
}

// MARK: small file helpers, shared by the demo's files

func isFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
}

func parent(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// The canonical absolute path (symlinks and `..` resolved); the path itself when it does not exist.
func normalized(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
}

func absolute(_ path: String) -> String {
    normalized(path.hasPrefix("/") ? path : "\(currentDirectory())/\(path)")
}

func currentDirectory() -> String {
    guard let cwd = getcwd(nil, 0) else { return "." }
    defer { free(cwd) }
    return String(cString: cwd)
}

func readFile(_ path: String, limit: Int = 1 << 20) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count <= limit {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        bytes += chunk[..<count]
    }
    return String(validating: bytes, as: UTF8.self)
}

/// Writes `text` to a new file (mode 0644, or `mode`), replacing one that exists.
func writeFile(_ path: String, _ text: String, mode: mode_t = 0o644) throws(DemoError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard fd >= 0 else { throw DemoError("cannot write \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
        throw DemoError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
}

func makeDirectories(_ path: String) throws(DemoError) {
    var built = ""
    for component in path.split(separator: "/") {
        built += "/\(component)"
        if mkdir(built, 0o700) != 0, errno != EEXIST {
            throw DemoError("cannot create \(built): \(String(cString: strerror(errno)))")
        }
    }
}
