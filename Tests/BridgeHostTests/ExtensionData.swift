import Foundation
import WebAuthn

/// A data module of extension/common/ (protocol-constants.js, chromium-texts.js), the one list the extension
/// imports and the host's tests check the host against: strict JSON after `export default`.
enum ExtensionData {
    static func read(_ name: String) -> JSONValue {
        let file = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("extension/common").appendingPathComponent(name)
        guard let text = FileManager.default.contents(atPath: file.path).map({ String(decoding: $0, as: UTF8.self) }),
            let start = text.range(of: "export default ")?.upperBound,
            let end = text.lastIndex(of: "}"),
            let json = try? JSONValue.parse(Array(text[start...end].utf8))
        else { preconditionFailure("cannot read the data of \(file.path)") }
        return json
    }
}
