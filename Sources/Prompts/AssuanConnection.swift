import Glibc
import Secrets

/// The client side of the Assuan line protocol, as GnuPG speaks it to pinentry.
///
/// A command is one line; the server answers with any number of `D` (percent-encoded data), `S` (status),
/// `#` (comment) and `INQUIRE` lines, then exactly one `OK [text]` or `ERR <code> [text]`. Lines are at most
/// 1000 bytes including the newline. This is all pinentry needs; no sockets, no file-descriptor passing.
///
/// Secrets: incoming bytes sit in one fixed buffer that is zeroed as lines are consumed and on close; `D`
/// lines are decoded straight from it into a `ZeroingBuffer`, never into a `String` or `[UInt8]`.
final class AssuanConnection {
    static let maximumLineLength = 1000
    /// gpg-error codes (low 16 bits of an ERR code) that mean the user cancelled:
    /// GPG_ERR_CANCELED (99; 83886179 as pinentry sends it) and GPG_ERR_FULLY_CANCELED (198).
    static let cancelCodes: Set<UInt32> = [99, 198]

    private let input: Int32
    private let output: Int32
    private let cancelSignal: CancelSignal
    /// Allocated as a pointer (never nil), then seen as a buffer.
    private let start: UnsafeMutableRawPointer
    private var buffer: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: start, count: 4 * Self.maximumLineLength)
    }
    private var filled = 0

    init(input: Int32, output: Int32, cancelSignal: CancelSignal) {
        self.input = input
        self.output = output
        self.cancelSignal = cancelSignal
        start = .allocate(byteCount: 4 * Self.maximumLineLength, alignment: 1)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        explicit_bzero(start, buffer.count)
        start.deallocate()
    }

    /// The server speaks first; anything but `OK` means this is not an Assuan server we can talk to.
    func readGreeting() throws(PromptError) {
        let greeted = try nextLine(during: "start-up") { line in line.starts(with: "OK".utf8) }
        guard greeted else { throw .failed("pinentry did not greet with OK: is it really a pinentry program?") }
    }

    /// Sends `command` and waits for its `OK`. `D` lines go to `data` (dropped when nil); `ERR` throws,
    /// `.cancelled` for the cancel codes.
    func transact(_ command: String, data: ZeroingBuffer? = nil) throws(PromptError) {
        let verb = String(command.prefix { $0 != " " })
        try send(command)
        while true {
            let reply = try nextLine(during: verb) { line throws(PromptError) -> Reply in
                try Self.classify(line, data: data)
            }
            switch reply {
            case .ok: return
            case .more: continue
            case .inquire: try send("END")  // pinentry never needs to ask us anything: answer with no data
            case .error(let code, let message):
                if Self.cancelCodes.contains(code & 0xFFFF) { throw .cancelled }
                throw .failed("pinentry refused \(verb): \(message.isEmpty ? "error \(code)" : message)")
            }
        }
    }

    /// Sends one line. A command never carries a secret (we only read PINs), so it can be a `String`.
    func send(_ command: String) throws(PromptError) {
        var line = Array(command.utf8)
        line.append(0x0A)
        var written = 0
        while written < line.count {
            let n = line.withUnsafeBytes { write(input, $0.baseAddress?.advanced(by: written), $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                if cancelSignal.isFired { throw .cancelled }
                throw .failed("pinentry exited unexpectedly (writing \(command.prefix { $0 != " " }))")
            }
            written += n
        }
    }

    private enum Reply {
        case ok, more, inquire
        case error(UInt32, String)
    }

    private static func classify(_ line: UnsafeRawBufferPointer, data: ZeroingBuffer?) throws(PromptError) -> Reply {
        func isVerb(_ verb: String) -> Bool {
            let verb = Array(verb.utf8)
            return line.count >= verb.count && line.starts(with: verb)
                && (line.count == verb.count || line[verb.count] == 0x20)
        }
        if isVerb("OK") { return .ok }
        if isVerb("D") {
            if let data { percentDecode(UnsafeRawBufferPointer(rebasing: line.dropFirst(2)), into: data) }
            return .more
        }
        if isVerb("S") || line.first == UInt8(ascii: "#") || line.isEmpty { return .more }
        if isVerb("INQUIRE") { return .inquire }
        if isVerb("ERR") {
            let text = String(decoding: line.dropFirst(4), as: UTF8.self)
            let code = UInt32(text.prefix { $0.isNumber }) ?? 0
            let message = text.drop { $0.isNumber }.trimmingPrefix(" ")
            return .error(code, String(message.prefix(200)))
        }
        // The line itself is not quoted: whatever it is, it might contain what the user typed.
        throw .failed("pinentry sent a line that is not Assuan (is it really a pinentry program?)")
    }

    /// Hands the next complete line (without its newline) to `body`, then zeroes it in the buffer.
    private func nextLine<R>(
        during verb: String,
        _ body: (UnsafeRawBufferPointer) throws(PromptError) -> R
    ) throws(PromptError) -> R {
        while true {
            if let newline = buffer[0..<filled].firstIndex(of: 0x0A) {
                defer { consume(newline + 1) }
                var end = newline
                if end > 0, buffer[end - 1] == 0x0D { end -= 1 }
                return try body(UnsafeRawBufferPointer(rebasing: buffer[0..<end]))
            }
            guard filled < buffer.count else { throw .failed("pinentry sent a line longer than Assuan allows") }
            try cancelSignal.waitReadable(output)
            let n = read(output, start + filled, buffer.count - filled)
            if n > 0 {
                filled += n
            } else if n == 0 {
                throw .failed("pinentry exited unexpectedly (during \(verb))")
            } else if errno != EINTR {
                throw .failed("reading from pinentry failed (errno \(errno))")
            }
        }
    }

    private func consume(_ count: Int) {
        memmove(start, start + count, filled - count)
        explicit_bzero(start + (filled - count), count)
        filled -= count
    }

    // MARK: Percent coding

    /// Escapes text for a command argument: Assuan requires `%`, CR and LF escaped; other control characters
    /// are escaped too so nothing a page chose can inject a second command or garble the terminal.
    /// Stops (adding "…") before the line would pass Assuan's length limit; never splits a character.
    static func escape(_ text: String, budget: Int = maximumLineLength - 32) -> String {
        var result = ""
        var used = 0
        for character in text {
            var piece = ""
            for scalar in character.unicodeScalars {
                if scalar == "%" || scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    piece += hex.count == 1 ? "%0" + hex : "%" + hex
                } else {
                    piece.unicodeScalars.append(scalar)
                }
            }
            if used + piece.utf8.count > budget {
                result += "…"
                break
            }
            result += piece
            used += piece.utf8.count
        }
        return result
    }

    /// Decodes `%XX` escapes; a `%` not followed by two hex digits is kept literally.
    static func percentDecode(_ encoded: UnsafeRawBufferPointer, into output: ZeroingBuffer) {
        var index = 0
        while index < encoded.count {
            let byte = encoded[index]
            if byte == UInt8(ascii: "%"), index + 2 < encoded.count,
                let high = hexValue(encoded[index + 1]), let low = hexValue(encoded[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
