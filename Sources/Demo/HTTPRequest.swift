/// One HTTP/1.1 request as the demo server accepts it. The server is for one local browser, so the parser is
/// strict rather than lenient: CRLF line ends only, no obsolete line folding, no chunked bodies, one
/// Content-Length, bounded sizes. Anything else is refused with the status a careful server would give.
public struct HTTPRequest: Sendable, Equatable {
    public let method: String
    /// The request target's path, without the query.
    public let path: String
    /// Header names lowercased, in the order received.
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// The value of the one header named `name` (lowercase); nil when absent.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

/// A request the server refuses, with the status it answers and a reason for the log.
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let reason: String
    public init(_ status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }
    public var description: String { "HTTP \(status): \(reason)" }
}

/// Sizes the parser accepts: enough for the demo page's JSON (a credential is a few KiB), far from anything that
/// could exhaust memory.
public struct HTTPLimits: Sendable {
    public var maxHeaderBytes = 8 * 1024
    public var maxHeaderCount = 48
    public var maxBodyBytes = 64 * 1024
    public init() {}
}

public enum HTTPRequestParser {
    public enum Outcome: Sendable, Equatable {
        /// More bytes are needed.
        case incomplete
        /// A whole request, and how many bytes of the buffer it used.
        case complete(HTTPRequest, consumed: Int)
    }

    static let methods: Set<String> = ["GET", "POST"]

    /// Parses the request at the start of `buffer`. Throws as soon as the bytes received already break a rule,
    /// so an oversized or malformed request is refused without waiting for the rest of it.
    public static func parse(_ buffer: [UInt8], limits: HTTPLimits = HTTPLimits()) throws(HTTPError) -> Outcome {
        guard let headerEnd = endOfHeaders(in: buffer, limit: limits.maxHeaderBytes) else {
            if buffer.count > limits.maxHeaderBytes {
                throw HTTPError(431, "request line and headers exceed \(limits.maxHeaderBytes) bytes")
            }
            try rejectBareLineFeed(buffer[...])
            return .incomplete
        }
        let headBytes = buffer[..<headerEnd]
        try rejectBareLineFeed(headBytes)
        guard let head = String(validating: headBytes, as: UTF8.self) else {
            throw HTTPError(400, "headers are not UTF-8")
        }
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let (method, path) = try requestLine(lines.removeFirst())
        let headers = try headerFields(lines, limits: limits)

        let bodyLength = try contentLength(headers, limits: limits)
        if method == "GET", bodyLength > 0 { throw HTTPError(400, "a GET request with a body") }
        let bodyStart = headerEnd + 4
        guard buffer.count >= bodyStart + bodyLength else { return .incomplete }
        let body = Array(buffer[bodyStart..<bodyStart + bodyLength])
        return .complete(
            HTTPRequest(method: method, path: path, headers: headers, body: body), consumed: bodyStart + bodyLength)
    }

    /// The offset of the CRLFCRLF ending the headers, searched only within the limit.
    static func endOfHeaders(in buffer: [UInt8], limit: Int) -> Int? {
        let end = min(buffer.count, limit + 4)
        guard end >= 4 else { return nil }
        for i in 0...(end - 4)
        where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }

    /// Line ends are CRLF and nothing else: a lone LF or CR is where request smuggling starts.
    static func rejectBareLineFeed(_ bytes: ArraySlice<UInt8>) throws(HTTPError) {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == 10, previous != 13 { throw HTTPError(400, "a line ends in LF without CR") }
            if previous == 13, byte != 10 { throw HTTPError(400, "a CR not followed by LF") }
            if byte == 0 { throw HTTPError(400, "a NUL byte in the headers") }
            previous = byte
        }
    }

    static func requestLine(_ line: String) throws(HTTPError) -> (String, String) {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw HTTPError(400, "malformed request line") }
        let method = String(parts[0])
        let target = parts[1]
        let version = parts[2]
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            throw HTTPError(505, "unsupported version \(version.prefix(16))")
        }
        guard methods.contains(method) else { throw HTTPError(405, "method \(method.prefix(16)) not allowed") }
        guard target.first == "/", target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw HTTPError(400, "the request target is not an absolute path of visible ASCII")
        }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return (method, String(path))
    }

    static func headerFields(_ lines: [String], limits: HTTPLimits) throws(HTTPError) -> [(name: String, value: String)]
    {
        guard lines.count <= limits.maxHeaderCount else {
            throw HTTPError(431, "more than \(limits.maxHeaderCount) headers")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let first = line.first, first != " ", first != "\t" else {
                throw HTTPError(400, "obsolete line folding or an empty header line")
            }
            guard let colon = line.firstIndex(of: ":") else { throw HTTPError(400, "a header line without a colon") }
            let name = line[..<colon]
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter) else {
                throw HTTPError(400, "an invalid header name")
            }
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            headers.append((name.lowercased(), value))
        }
        return headers
    }

    static func contentLength(_ headers: [(name: String, value: String)], limits: HTTPLimits) throws(HTTPError) -> Int {
        if headers.contains(where: { $0.name == "transfer-encoding" }) {
            throw HTTPError(501, "Transfer-Encoding is not supported")
        }
        let values = headers.filter { $0.name == "content-length" }.map(\.value)
        guard let text = values.first else { return 0 }
        guard values.count == 1 else { throw HTTPError(400, "more than one Content-Length") }
        guard !text.isEmpty, text.count <= 12, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let length = Int(text)
        else {
            throw HTTPError(400, "Content-Length is not a number")
        }
        guard length <= limits.maxBodyBytes else {
            throw HTTPError(413, "a body of \(length) bytes exceeds \(limits.maxBodyBytes)")
        }
        return length
    }

    /// RFC 9110 token characters.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
