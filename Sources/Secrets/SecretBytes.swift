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
    /// `count` bytes and the trailing NUL; allocated as a pointer (never nil), then seen as a buffer.
    private let start: UnsafeMutableRawPointer
    private var storage: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: start, count: count + 1) }
    public let count: Int

    /// Test hook: called from `deinit` after the storage was zeroed and before it is freed, so a test can
    /// look at the real memory. Internal on purpose: production code has no reason to observe this.
    var onRelease: ((UnsafeRawBufferPointer) -> Void)?

    /// Copies `bytes`; the caller zeroes its own array afterwards (`SecretBytes.zero(&array)`).
    public init(_ bytes: [UInt8]) {
        count = bytes.count
        start = .allocate(byteCount: bytes.count + 1, alignment: 1)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
    }

    /// Copies from a raw buffer (used by the decoders, which never hold the PIN in an array).
    public init(copying source: UnsafeRawBufferPointer) {
        count = source.count
        start = .allocate(byteCount: source.count + 1, alignment: 1)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        storage.copyMemory(from: source)
    }

    /// The secret's bytes (without the trailing NUL), valid only inside `body`.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// The secret as a NUL-terminated C string (libfido2 takes the PIN as `const char *`), valid only inside
    /// `body`. A secret containing a NUL byte would be cut short there; PIN readers never return one.
    public func withCString<R, E: Error>(_ body: (UnsafePointer<CChar>) throws(E) -> R) throws(E) -> R {
        try body(start.assumingMemoryBound(to: CChar.self))
    }

    /// Constant-time comparison, so comparing two PIN entries leaks nothing through timing.
    public func hasSameBytes(as other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<count { difference |= storage[index] ^ other.storage[index] }
        return difference == 0
    }

    deinit {
        explicit_bzero(start, storage.count)
        onRelease?(UnsafeRawBufferPointer(storage))
        start.deallocate()
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
    /// Allocated as a pointer (never nil), then seen as a buffer of `capacity` bytes.
    private var start: UnsafeMutableRawPointer
    private var capacity: Int
    private var storage: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: start, count: capacity) }
    package private(set) var count = 0

    package init(capacity: Int = 128) {
        self.capacity = max(capacity, 16)
        start = .allocate(byteCount: self.capacity, alignment: 1)
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
        explicit_bzero(start + (count - n), n)
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
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: capacity * 2, alignment: 1)
        bigger.initializeMemory(as: UInt8.self, repeating: 0, count: capacity * 2)
        bigger.copyMemory(from: start, byteCount: count)
        explicit_bzero(start, capacity)
        start.deallocate()
        start = bigger
        capacity *= 2
    }

    deinit {
        explicit_bzero(start, capacity)
        start.deallocate()
    }
}
