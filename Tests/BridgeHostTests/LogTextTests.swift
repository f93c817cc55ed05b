import Foundation
import Testing

@testable import BridgeHost

/// Outside text in the log: visible escapes instead of line breaks and terminal controls.
struct LogTextTests {
    @Test(arguments: [
        ("rp\nforged", "rp\\nforged"),
        ("a\r\tb", "a\\r\\tb"),
        ("title \u{1B}]0;owned\u{07}", "title \\x1b]0;owned\\x07"),
        ("nul \u{0} del \u{7F}", "nul \\x00 del \\x7f"),
        ("c1 \u{85}\u{9B}", "c1 \\u0085\\u009b"),
        ("line \u{2028} para \u{2029}", "line \\u2028 para \\u2029"),
        ("rtl \u{202E}moc.elpmaxe", "rtl \\u202emoc.elpmaxe"),
        ("zero\u{200B}width", "zero\\u200bwidth"),
        ("tag \u{E0001}", "tag \\U000e0001"),
        ("back\\slash", "back\\\\slash"),
    ])
    func controlAndInvisibleCharactersAreWrittenVisibly(raw: String, escaped: String) {
        #expect(LogText.escaped(raw) == escaped)
    }

    @Test(arguments: ["plain ASCII line [r-1] ok", "é ü ñ 日本 🔑 CTAP → authenticatorMakeCredential"])
    func printableTextStaysAsItIs(text: String) {
        #expect(LogText.escaped(text) == text)
    }

    @Test func printingAnEscapedLineAgainChangesNothing() {
        let written = LogText.escaped("a\\b\nc\u{1B}")
        #expect(LogText.escaped(written, backslashes: false) == written)
    }

    @Test func aMessageWithNewlinesIsOneLineInTheFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("logtext-\(UUID().uuidString).log")
            .path
        let log = HostLog(path: path, level: .info)
        log.info("rp=example.com\n2026-01-01T00:00:00.000Z INFO forged", request: "r\n1")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 1)
        #expect(text.hasSuffix(" INFO [r\\n1] rp=example.com\\n2026-01-01T00:00:00.000Z INFO forged\n"))
    }
}
