import FuzzSupport
import WebAuthn

private let validator = RelyingPartyIDValidator(publicSuffixList: .system())

/// Caller-origin parsing and rp.id validation, as a ceremony runs them on the origin the browser reported and
/// the rp.id the page asked for.
///
/// Input: `origin LF topOrigin LF rpId` (an empty topOrigin or a missing rpId means none). Checked beyond
/// "no crash": an accepted origin serializes to a string that parses back to the same origin, and an accepted
/// rp.id is lowercase ASCII and equals the origin's host or is a parent domain of it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOrigin(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let pieces = FuzzInput.split(Array(UnsafeBufferPointer(start: data, count: size)), on: 0x0A, maxPieces: 3)
    let text = pieces.map { String(decoding: $0, as: UTF8.self) }
    let origin = text[0]
    let topOrigin = text.count > 1 && !text[1].isEmpty ? text[1] : nil
    let rpID = text.count > 2 ? text[2] : nil

    let caller: CallerOrigin
    do {
        caller = try CallerOrigin(origin: origin, topOrigin: topOrigin)
    } catch {
        precondition(error.name == .security, "origin refused with \(error.name), not SecurityError")
        return 0
    }
    let reparsed = try? CallerOrigin(origin: caller.serialized, topOrigin: caller.topOrigin)
    precondition(reparsed == caller, "origin \(caller.serialized) does not parse back to itself")

    do {
        let effective = try validator.effectiveRPID(requested: rpID, for: caller)
        precondition(
            effective.utf8.allSatisfy { $0 < 0x80 && !(0x41...0x5A).contains($0) },
            "rp.id \(effective) is not lowercase ASCII")
        precondition(
            effective == caller.host || caller.host.hasSuffix("." + effective),
            "rp.id \(effective) is not the host \(caller.host) or a parent of it")
    } catch {
        precondition(error.name == .security, "rp.id refused with \(error.name), not SecurityError")
    }
    return 0
}
