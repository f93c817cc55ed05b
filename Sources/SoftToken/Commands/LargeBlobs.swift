import CBOR
import CTAP
import Cryptography

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SoftToken {
    /// authenticatorLargeBlobs (CTAP 2.1 §6.10): fragment-wise get and set of the serialized large-blob array.
    ///
    /// A set is only committed when its last fragment arrives and the array's 16-byte SHA-256 trailer checks out,
    /// so the file never holds a half-written array.
    func largeBlobs(_ p: CBOR) throws(CTAPStatus) -> CBOR? {
        let get = try p.int(1)
        let set = try p.bytes(2)
        guard let offset = try p.int(3) else { throw .missingParameter }
        let maxFragment = state.configuration.maxMessageSize - 64
        switch (get, set) {
        case (let length?, nil):
            guard p[int: 4] == nil, p[int: 5] == nil, p[int: 6] == nil else { throw .invalidParameter }
            guard length >= 0, length <= maxFragment else { throw .invalidLength }
            let array = Array(state.largeBlobArray)
            guard offset >= 0, offset <= array.count else { throw .invalidParameter }
            return .map([(1, .bytes(Array(array[offset..<min(array.count, offset + length)])))])
        case (nil, let fragment?):
            guard fragment.count <= maxFragment else { throw .invalidLength }
            if offset == 0 {
                guard let total = try p.int(4) else { throw .invalidParameter }
                guard total <= state.configuration.maxSerializedLargeBlobArray else { throw .largeBlobStorageFull }
                guard total >= 17 else { throw .invalidParameter }
                session.largeBlobWrite = LargeBlobWrite(expectedLength: total, buffer: [])
            } else if p[int: 4] != nil {
                throw .invalidParameter
            }
            guard var write = session.largeBlobWrite else { throw .invalidSequence }
            guard offset == write.buffer.count else { throw .invalidSequence }
            if isProtectedByUV {
                guard let param = try p.bytes(5) else { throw .puatRequired }
                var message = [UInt8](repeating: 0xFF, count: 32) + [0x0C, 0x00]
                message += withUnsafeBytes(of: UInt32(offset).littleEndian) { Array($0) }
                message += Digest.sha256(fragment)
                try verifyPinUvAuthParam(
                    param, protocolVersion: try p.int(6), message: message,
                    permission: Permission.largeBlobWrite, rpID: nil)
            }
            guard offset + fragment.count <= write.expectedLength else { throw .invalidParameter }
            write.buffer += fragment
            session.largeBlobWrite = write
            if write.buffer.count == write.expectedLength {
                session.largeBlobWrite = nil
                let body = write.buffer.dropLast(16)
                guard Digest.constantTimeEqual(Array(Digest.sha256(body).prefix(16)), Array(write.buffer.suffix(16)))
                else {
                    throw .integrityFailure
                }
                try commit { $0.largeBlobArray = Data(write.buffer) }
            }
            return nil
        default:
            throw .invalidParameter
        }
    }
}
