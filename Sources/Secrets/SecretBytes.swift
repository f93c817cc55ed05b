import Glibc

/// A secret (a PIN) in one heap buffer that is zeroed when the last reference goes away.
///
/// Swift arrays and strings copy themselves freely and never zero freed storage, so a PIN is kept here
/// instead, from the moment it is decoded until libfido2 has used it: the prompt returns it, and libfido2 is
/// handed this very buffer as its `const char *` (its own copies it zeroes itself). The one secret type of
/// the host, in a module of its own so that the prompt (Prompts) and the key (FIDO) share it without
/// knowing about each other. It never prints itself:
/// `description`, `debugDescription` and reflection all say "<redacted>", so a stray `"\(pin)"` in a log line
/// leaks nothing. The storage carries a trailing NUL so it can be handed to C as a string without a copy.
public final class SecretBytes: @unchecked Sendable {
    // @unchecked: the bytes are written only in init and deinit; readers get them through scoped closures.
    // (`onRelease` is a test hook, set before the value is shared.)
    private let storage: UnsafeMutableRawBufferPointer
    public let count: Int

    /// Test hook: called from `deinit` after the storage was zeroed and before it is freed, so a test can
    /// look at the real memory. Internal on purpose: production code has no reason to observe this.
    var onRelease: ((UnsafeRawBufferPointer) -> Void)?

    /// Copies `bytes`; the caller zeroes its own array afterwards (`SecretBytes.zero(&array)`).
    public init(_ bytes: [UInt8]) {
        count = bytes.count
        storage = .allocate(byteCount: bytes.count + 1, alignment: 1)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { storage.baseAddress!.copyMemory(from: base, byteCount: source.count) }
        }
    }

    /// Copies from a raw buffer (used by the decoders, which never hold the PIN in an array).
    public init(copying source: UnsafeRawBufferPointer) {
        count = source.count
        storage = .allocate(byteCount: source.count + 1, alignment: 1)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        if let base = source.baseAddress { storage.baseAddress!.copyMemory(from: base, byteCount: source.count) }
    }

    /// The secret's bytes (without the trailing NUL), valid only inside `body`.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// The secret as a NUL-terminated C string (libfido2 takes the PIN as `const char *`), valid only inside
    /// `body`. A secret containing a NUL byte would be cut short there; PIN readers never return one.
    public func withCString<R, E: Error>(_ body: (UnsafePointer<CChar>) throws(E) -> R) throws(E) -> R {
        try body(storage.baseAddress!.assumingMemoryBound(to: CChar.self))
    }

    /// Constant-time comparison, so comparing two PIN entries leaks nothing through timing.
    public func hasSameBytes(as other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<count { difference |= storage[index] ^ other.storage[index] }
        return difference == 0
    }

    deinit {
        explicit_bzero(storage.baseAddress!, storage.count)
        onRelease?(UnsafeRawBufferPointer(storage))
        storage.deallocate()
    }

    /// Zeroes an array that held a secret, in place (its current storage, which is what matters).
    public static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { explicit_bzero(base, buffer.count) }
        }
    }
}

extension SecretBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .class) }
}

/// A growable byte buffer for secrets in transit (a PIN being decoded or typed): when it grows, the old
/// storage is zeroed before it is freed, and `clear`/`deinit` zero it too, unlike `[UInt8]`.
package final class ZeroingBuffer {
    private var storage: UnsafeMutableRawBufferPointer
    package private(set) var count = 0

    package init(capacity: Int = 128) {
        storage = .allocate(byteCount: max(capacity, 16), alignment: 1)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
    }

    package func append(_ byte: UInt8) {
        if count == storage.count { grow() }
        storage[count] = byte
        count += 1
    }

    /// Drops the last `n` bytes (terminal erase), zeroing them.
    package func removeLast(_ n: Int) {
        let n = min(n, count)
        explicit_bzero(storage.baseAddress! + (count - n), n)
        count -= n
    }

    package func clear() { removeLast(count) }

    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }

    /// Moves the contents into a `SecretBytes` and clears this buffer.
    package func takeSecret() -> SecretBytes {
        let secret = SecretBytes(copying: bytes)
        clear()
        return secret
    }

    private func grow() {
        let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: storage.count * 2, alignment: 1)
        bigger.initializeMemory(as: UInt8.self, repeating: 0)
        bigger.baseAddress!.copyMemory(from: storage.baseAddress!, byteCount: count)
        explicit_bzero(storage.baseAddress!, storage.count)
        storage.deallocate()
        storage = bigger
    }

    deinit {
        explicit_bzero(storage.baseAddress!, storage.count)
        storage.deallocate()
    }
}
