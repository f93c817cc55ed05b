import Glibc

extension JSONParser {
    /// The strings every entry of an allow/exclude list repeats, returned without building a String from the
    /// frame's bytes (a thousand entries repeat each a thousand times); nil for any other text.
    static func repeatedName(_ run: UnsafeBufferPointer<UInt8>) -> String? {
        switch run.count {
        case 2: return run[0] == UInt8(ascii: "i") && run[1] == UInt8(ascii: "d") ? "id" : nil
        case 4: return matches(run, "type") ? "type" : nil
        case 10: return matches(run, "public-key") ? "public-key" : (matches(run, "transports") ? "transports" : nil)
        default: return nil
        }
    }

    private static func matches(_ run: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        run.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }
}
