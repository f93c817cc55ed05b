/// Where a dictionary of the options sits ("" at the top, "user", "excludeCredentials[417]"), kept as its parts
/// and rendered only for an error message: rendering it for every entry of a long list cost more than
/// converting the entry.
struct OptionsPath: CustomStringConvertible {
    let parent: String
    let index: Int?

    init(_ text: String) {
        parent = text
        index = nil
    }

    /// Entry `index` of the sequence at `sequence`.
    init(_ sequence: String, index: Int) {
        parent = sequence
        self.index = index
    }

    var description: String { index.map { "\(parent)[\($0)]" } ?? parent }
}
