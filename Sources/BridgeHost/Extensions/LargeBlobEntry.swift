import CBOR
import Cryptography
import FIDO

/// One entry of the largeBlobs array, sealed by the host (CTAP 2.1 §6.10.3): {1: AES-256-GCM ciphertext‖tag,
/// 2: nonce, 3: origSize}, associated data "blob" ‖ uint64LE(origSize), plaintext = DEFLATE(blob).
///
/// Used only when libfido2 1.12's own sealing refuses a blob (it cannot seal fewer than 16 deflated bytes). The
/// DEFLATE stream is written with stored (uncompressed) blocks, which every inflater reads, so no compressor is
/// needed; libfido2's reader and any other CTAP client open these entries as usual.
enum LargeBlobEntry {
    static func seal(_ blob: [UInt8], key: [UInt8]) throws(CryptoError) -> CBOR {
        let nonce = Digest.randomBytes(12)
        var plaintext = storedDeflate(blob)
        defer { Digest.zero(&plaintext) }
        let sealed = try SymmetricCipher.aes256GCMSeal(
            key: key, nonce: nonce, plaintext: plaintext, aad: associatedData(blob.count))
        return .map([(1, .bytes(sealed)), (2, .bytes(nonce)), (3, .int(blob.count))])
    }

    /// Whether `entry` was sealed with `key` (the only way to tell whose entry it is).
    static func isSealed(_ entry: CBOR, with key: [UInt8]) -> Bool {
        guard var opened = open(entry, key: key)?.plaintext else { return false }
        Digest.zero(&opened)
        return true
    }

    /// The DEFLATE plaintext and original size of `entry`, when it was sealed with `key`.
    static func open(_ entry: CBOR, key: [UInt8]) -> (plaintext: [UInt8], size: Int)? {
        guard let map = entry.mapValue,
            let sealed = map.first(where: { $0.0.intValue == 1 })?.1.bytesValue,
            let nonce = map.first(where: { $0.0.intValue == 2 })?.1.bytesValue, nonce.count == 12,
            let size = map.first(where: { $0.0.intValue == 3 })?.1.intValue, size >= 0,
            let opened = try? SymmetricCipher.aes256GCMOpen(
                key: key, nonce: nonce, sealed: sealed, aad: associatedData(size))
        else { return nil }
        return (opened, size)
    }

    /// The blob of `key`'s entry when it is stored uncompressed (as `seal` writes it): the fallback reader for
    /// entries libfido2 1.12 cannot open (it refuses origSize 0). nil when there is no such entry.
    static func storedBlob(in arrayCBOR: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard let entries = (try? CBOR.decode(arrayCBOR))?.arrayValue else { return nil }
        for entry in entries {
            guard case (var plaintext, let size)? = open(entry, key: key) else { continue }
            defer { Digest.zero(&plaintext) }
            guard let blob = inflateStored(plaintext), blob.count == size else { return nil }
            return blob
        }
        return nil
    }

    /// Reads stored (BTYPE=00) DEFLATE blocks only; nil for anything else.
    static func inflateStored(_ data: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var offset = 0
        while offset + 5 <= data.count {
            let header = data[offset]
            guard header & 0x06 == 0 else { return nil }
            let length = Int(data[offset + 1]) | Int(data[offset + 2]) << 8
            let check = Int(data[offset + 3]) | Int(data[offset + 4]) << 8
            guard length == ~check & 0xFFFF, offset + 5 + length <= data.count else { return nil }
            out += data[offset + 5..<offset + 5 + length]
            offset += 5 + length
            if header & 1 == 1 { return offset == data.count ? out : nil }
        }
        return nil
    }

    /// The array with `key`'s entry replaced by (or extended with) a new sealing of `blob`.
    static func array(_ arrayCBOR: [UInt8], storing blob: [UInt8], key: [UInt8]) throws -> [UInt8] {
        guard let entries = try CBOR.decode(arrayCBOR).arrayValue else {
            throw CryptoError("largeBlobs array is not a CBOR array")
        }
        let entry = try seal(blob, key: key)
        var replaced = false
        var result: [CBOR] = []
        for existing in entries {
            if !replaced, isSealed(existing, with: key) {
                result.append(entry)
                replaced = true
            } else {
                result.append(existing)
            }
        }
        if !replaced { result.append(entry) }
        return CBOR.array(result).encode()
    }

    static func associatedData(_ size: Int) -> [UInt8] {
        Array("blob".utf8) + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(size) >> (8 * $0)) }
    }

    /// RFC 1951 stored blocks: header (BFINAL, BTYPE=00), LEN and NLEN little-endian, then the bytes.
    static func storedDeflate(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        repeat {
            let length = min(0xFFFF, data.count - offset)
            let final = offset + length == data.count
            out.append(final ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        return out
    }
}
