import WebAuthn

/// The `index` of a `select` frame, read without trusting it: any JSON value may arrive there.
enum AccountChoice: Equatable {
    /// A non-negative integer: an index into the accounts of the `select-account` status (the ceremony
    /// range-checks it against them).
    case index(Int)
    /// `null` or absent: the user closed the chooser without choosing.
    case declined
    /// Anything else: negative, fractional, beyond `Int`, not a number. The reason is for the log.
    case invalid(String)

    init(_ value: JSONValue?) {
        guard let value, !value.isNull else {
            self = .declined
            return
        }
        // `intValue` is nil for fractions and for magnitudes beyond Int, where Int(n) would trap.
        if let index = value.intValue, index >= 0 {
            self = .index(index)
        } else if let number = value.numberValue {
            self = .invalid("index \(number), not a non-negative integer")
        } else {
            self = .invalid("an index that is not a number")
        }
    }

    /// What the ceremony is handed: the chosen index, or nil for "no account chosen".
    var index: Int? {
        if case .index(let index) = self { return index }
        return nil
    }
}
