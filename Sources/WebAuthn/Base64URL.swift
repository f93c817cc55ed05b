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
        Array(string.utf8).withUnsafeBufferPointer { decode(utf8: $0) }
    }

    static func decode(utf8 buffer: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = buffer.count
        guard count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for char in buffer {
            let value = values[Int(char)]
            guard value != 255 else { return nil }
            accumulator = (accumulator << 6 | UInt32(value)) & 0xFFFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return out
    }
}
