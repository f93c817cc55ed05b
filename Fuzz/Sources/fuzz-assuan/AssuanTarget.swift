import FuzzSupport
import Glibc

@testable import Prompts
@testable import Secrets

/// The Assuan reader the PIN prompt uses, fed whatever a "pinentry" could print: the input is the program's
/// whole output. The host's side of a session runs as `PinentryPrompt` runs it (greeting, best-effort OPTIONs,
/// SETTITLE/SETDESC/SETPROMPT, GETPIN into a zeroing buffer, a second GETPIN as for a new PIN, BYE) until the
/// first error. Every failure must be a `PromptError`; the PIN must never be longer than the data lines sent.
///
/// Also fed to `escape`: the text the host puts into a command must never carry a line break (which would
/// start a second command) and must stay within the line length Assuan allows.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAssuan(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count <= Pipes.capacity else { return -1 }
    checkEscape(String(decoding: bytes, as: UTF8.self))

    let fromPinentry = Pipes.readEnd(holding: bytes)
    let toPinentry = Pipes.sink()
    defer {
        close(fromPinentry)
        close(toPinentry)
    }
    guard let cancelSignal = try? CancelSignal() else { fatalError("no pipe for the cancel signal") }
    let connection = AssuanConnection(input: toPinentry, output: fromPinentry, cancelSignal: cancelSignal)
    do {
        try session(connection, inputSize: bytes.count)
    } catch {
        switch error {
        case .cancelled, .failed, .unavailable: break
        }
    }
    return 0
}

private func session(_ connection: AssuanConnection, inputSize: Int) throws(PromptError) {
    try connection.readGreeting()
    for option in ["ttyname=/dev/pts/0", "lc-ctype=C.UTF-8"] {
        do { try connection.transact("OPTION " + option) } catch .cancelled { throw .cancelled } catch { continue }
    }
    try connection.transact("SETTITLE webauthn-bridge")
    try connection.transact("SETDESC Enter the PIN of your security key")
    try connection.transact("SETPROMPT PIN")
    for _ in 0..<2 {
        let pin = ZeroingBuffer()
        try connection.transact("GETPIN", data: pin)
        precondition(pin.count <= inputSize, "a PIN longer than everything pinentry sent")
        _ = pin.takeSecret()
    }
    try connection.send("BYE")
}

private func checkEscape(_ text: String) {
    let escaped = AssuanConnection.escape(text)
    precondition(!escaped.utf8.contains(0x0A) && !escaped.utf8.contains(0x0D), "escaped text contains a line break")
    precondition(escaped.utf8.count <= AssuanConnection.maximumLineLength - 32 + 3, "escaped text too long for a line")
}
