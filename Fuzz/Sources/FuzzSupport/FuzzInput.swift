/// The bytes libFuzzer hands a target, read front to back: targets that feed several parsers (or one parser
/// several pieces) cut their input with these, so every piece stays under the fuzzer's control.
public struct FuzzInput {
    public private(set) var bytes: ArraySlice<UInt8>

    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))[...]
    }

    public init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    public var isEmpty: Bool { bytes.isEmpty }

    /// The next byte, or 0 once the input is used up (so a short input still picks a mode).
    public mutating func byte() -> UInt8 {
        guard let first = bytes.first else { return 0 }
        bytes = bytes.dropFirst()
        return first
    }

    /// Up to `count` bytes.
    public mutating func take(_ count: Int) -> [UInt8] {
        let piece = bytes.prefix(count)
        bytes = bytes.dropFirst(piece.count)
        return Array(piece)
    }

    /// A piece preceded by its length as two big-endian bytes (shorter when the input ends first).
    public mutating func lengthPrefixed() -> [UInt8] {
        let length = Int(byte()) << 8 | Int(byte())
        return take(length)
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        defer { bytes = [] }
        return Array(bytes)
    }

    /// Pieces separated by `separator` (the separator is not part of any piece); seeds stay readable text.
    public static func split(_ bytes: [UInt8], on separator: UInt8, maxPieces: Int) -> [[UInt8]] {
        bytes.split(separator: separator, maxSplits: maxPieces - 1, omittingEmptySubsequences: false).map(Array.init)
    }
}

/// Writes a length-prefixed piece in the format `FuzzInput.lengthPrefixed()` reads (for seeds and tests).
public func lengthPrefixed(_ piece: [UInt8]) -> [UInt8] {
    precondition(piece.count <= 0xFFFF)
    return [UInt8(piece.count >> 8), UInt8(piece.count & 0xFF)] + piece
}
