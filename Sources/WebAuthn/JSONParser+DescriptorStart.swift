extension JSONParser {
    static let descriptorStart: StaticString = #""type":"public-key","id":"#

    /// `"type":"public-key","id":` right after an object's `{`: how the extension writes every entry of an
    /// allow/exclude list. The two names and the type are taken as they stand instead of being parsed one by
    /// one; the id's value is parsed as usual (its errors under "id", as the general parser reports them), and
    /// the caller goes on with any further members. nil, with nothing consumed, for any other start.
    mutating func parsePlainDescriptorStart(depth: Int) throws(JSONError) -> JSONValue? {
        guard skip(Self.descriptorStart) else { return nil }
        skipWhitespace()
        do { return try parseValue(depth: depth) } catch { throw error.within("id") }
    }
}
