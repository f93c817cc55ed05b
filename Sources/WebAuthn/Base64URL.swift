/// base64url without padding (RFC 4648 §5), the encoding of every binary value on the wire and of the
/// challenge inside clientDataJSON.
///
/// Decoding is strict on purpose: the extension always writes unpadded base64url, so padding, whitespace,
/// `+`/`/` or a dangling single character mean the frame was not produced by our encoder.
public enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 255 marks a byte outside the alphabet.
    static let values: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        String(decoding: encodeToUTF8(bytes), as: UTF8.self)
    }

    /// The encoding as UTF-8 bytes, for serializers that write bytes directly.
    static func encodeToUTF8(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        bytes.withUnsafeBufferPointer { input in
            var i = 0
            while i + 3 <= input.count {
                let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                out.append(alphabet[Int(n >> 18 & 63)])
                out.append(alphabet[Int(n >> 12 & 63)])
                out.append(alphabet[Int(n >> 6 & 63)])
                out.append(alphabet[Int(n & 63)])
                i += 3
            }
            switch input.count - i {
            case 1:
                let n = UInt32(input[i]) << 16
                out.append(alphabet[Int(n >> 18 & 63)])
                out.append(alphabet[Int(n >> 12 & 63)])
            case 2:
                let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                out.append(alphabet[Int(n >> 18 & 63)])
                out.append(alphabet[Int(n >> 12 & 63)])
                out.append(alphabet[Int(n >> 6 & 63)])
            default: break
            }
        }
        return out
    }

    /// nil for any character outside the base64url alphabet (including `=`) or an impossible length.
    public static func decode(_ string: String) -> [UInt8]? {
        var text = string
        return text.withUTF8 { decode(utf8: $0) }
    }

    /// Decodes four characters to three bytes at a time, with the table and the output held as raw
    /// buffers: lists of a thousand credential ids make this one of the hottest loops of a frame.
    static func decode(utf8 buffer: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = buffer.count
        guard count % 4 != 1 else { return nil }
        let decodedCount = count / 4 * 3 + max(0, count % 4 - 1)
        return values.withUnsafeBufferPointer { table in
            decodedCount <= stagedDecodeLimit
                ? decodeStaged(buffer, count: decodedCount, table: table)
                : decodeInPlace(buffer, count: decodedCount, table: table)
        }
    }

    /// Up to this many bytes, a value is decoded on the stack and then copied into its array: building an array
    /// from a buffer allocates it inline, while an uninitialized-capacity array goes through a generic runtime
    /// call (a metadata lookup per array) that costs more than the copy. Credential ids are far below it.
    static let stagedDecodeLimit = 1024

    static func decodeStaged(_ input: UnsafeBufferPointer<UInt8>, count: Int, table: UnsafeBufferPointer<UInt8>)
        -> [UInt8]?
    {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { staging in
            decode(input, table: table, into: staging) ? Array(UnsafeBufferPointer(staging)) : nil
        }
    }

    /// Large values (blobs) are decoded straight into their array, sparing a second pass over them.
    static func decodeInPlace(_ input: UnsafeBufferPointer<UInt8>, count: Int, table: UnsafeBufferPointer<UInt8>)
        -> [UInt8]?
    {
        var valid = true
        let out = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            valid = decode(input, table: table, into: output)
            initialized = valid ? count : 0
        }
        return valid ? out : nil
    }

    /// False at the first character outside the alphabet; `output` holds exactly the decoded length.
    private static func decode(
        _ input: UnsafeBufferPointer<UInt8>, table: UnsafeBufferPointer<UInt8>,
        into output: UnsafeMutableBufferPointer<UInt8>
    ) -> Bool {
        var i = 0
        var o = 0
        while i + 4 <= input.count {
            let a = table[Int(input[i])]
            let b = table[Int(input[i + 1])]
            let c = table[Int(input[i + 2])]
            let d = table[Int(input[i + 3])]
            // 255 is the only table value with the top bits set, so one test covers all four characters.
            guard (a | b | c | d) & 0xC0 == 0 else { return false }
            let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            output[o] = UInt8(truncatingIfNeeded: n >> 16)
            output[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
            output[o + 2] = UInt8(truncatingIfNeeded: n)
            i += 4
            o += 3
        }
        var n: UInt32 = 0
        for k in i..<input.count {
            let v = table[Int(input[k])]
            guard v != 255 else { return false }
            n |= UInt32(v) << (18 - 6 * UInt32(k - i))
        }
        // A tail of 2 or 3 characters carries 1 or 2 bytes; their unused low bits are ignored, as before.
        if input.count - i >= 2 { output[o] = UInt8(truncatingIfNeeded: n >> 16) }
        if input.count - i == 3 { output[o + 1] = UInt8(truncatingIfNeeded: n >> 8) }
        return true
    }
}
