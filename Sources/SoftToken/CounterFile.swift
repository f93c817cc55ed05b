import Cryptography

/// The credentials' signature counters, kept next to the state file in `FILE.counters` so a getAssertion, which
/// changes one counter, rewrites a few kilobytes without fsync instead of the whole state file with two. Kept for
/// its figure: `bench --ceremonies 300` (a 300-credential token), release builds with and without it interleaved,
/// four runs each (load 10–11): get p50 round trip 2.2–3.8 ms with it, 5.0–20.8 ms without.
///
/// Layout: `"WBSTCTR1"` ‖ generation (32 ASCII hex digits) ‖ count (UInt32 LE) ‖ count × signCount (UInt32 LE,
/// in the order of the state file's credentials) ‖ LEFT(SHA-256(everything before), 16).
///
/// It applies only to the state file whose `counterGeneration` it names. Every whole save of the state file writes
/// the current counters into the state file itself under a new generation, so a counter file from before is ignored
/// rather than applied to other credentials. Within a generation credentials are only ever appended (through the
/// journal), so a counter file written before the latest credentials were made still names the first ones right.
///
/// Durability: replaced with tmp + rename like the state file, so kill -9 leaves the old or the new file, but not
/// fsynced. After a power loss it may be old, torn or missing; then it is ignored and the counters are the state
/// file's, i.e. a counter may repeat a value it already signed. The state file (credentials, PIN, retries) keeps
/// its fsyncs, so power loss can cost a stale counter but never a credential.
enum CounterFile {
    static let magic = Array("WBSTCTR1".utf8)
    static let generationLength = 32
    static let checksumLength = 16

    static func path(for statePath: String) -> String { statePath + ".counters" }

    static func newGeneration() -> String {
        let hex = Array("0123456789abcdef")
        return String(Digest.randomBytes(generationLength / 2).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]] })
    }

    static func encode(_ counts: [UInt32], generation: String) -> [UInt8] {
        var out = magic + Array(generation.utf8)
        out.reserveCapacity(out.count + 4 + 4 * counts.count + checksumLength)
        append(UInt32(counts.count), to: &out)
        for count in counts { append(count, to: &out) }
        out += Digest.sha256(out).prefix(checksumLength)
        return out
    }

    /// The counters of the first credentials, or nil when the bytes are not a whole counter file for this
    /// generation with at most `atMost` counters.
    static func decode(_ bytes: [UInt8], generation: String, atMost limit: Int) -> [UInt32]? {
        let header = magic.count + generationLength + 4
        guard bytes.count >= header + checksumLength, bytes.starts(with: magic) else { return nil }
        let count = Int(readUInt32(bytes, at: magic.count + generationLength))
        guard count <= limit, bytes.count == header + 4 * count + checksumLength else { return nil }
        let body = Array(bytes.prefix(bytes.count - checksumLength))
        let checksum = Array(bytes.suffix(checksumLength))
        guard Array(body[magic.count..<magic.count + generationLength]) == Array(generation.utf8),
            Digest.constantTimeEqual(Array(Digest.sha256(body).prefix(checksumLength)), checksum)
        else { return nil }
        return (0..<count).map { readUInt32(body, at: header + 4 * $0) }
    }

    private static func append(_ value: UInt32, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out += $0 }
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}
