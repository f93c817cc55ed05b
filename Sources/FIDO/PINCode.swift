import Glibc

/// A PIN on its way to libfido2, NUL-terminated as libfido2 wants it. The buffer is zeroed when the
/// value is released; it has no description, so it cannot end up in a log line by accident.
public final class PINCode: @unchecked Sendable, CustomStringConvertible {
    private var storage: [CChar]

    /// Takes the UTF-8 bytes of the PIN (the caller zeroes its own copy).
    public init(utf8 bytes: UnsafeRawBufferPointer) {
        storage = bytes.map { CChar(bitPattern: $0) } + [0]
    }

    /// Length in Unicode code points, as CTAP counts minimum PIN length.
    public var codePointCount: Int {
        storage.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeRawBufferPointer(buffer).dropLast().map { $0 }, as: UTF8.self).unicodeScalars.count
        }
    }

    func withCString<R, E: Error>(_ body: (UnsafePointer<CChar>) throws(E) -> R) throws(E) -> R {
        try storage.withUnsafeBufferPointer { (buffer) throws(E) -> R in try body(buffer.baseAddress!) }
    }

    public var description: String { "<PIN redacted>" }

    deinit {
        storage.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { explicit_bzero(base, raw.count) }
        }
    }
}
