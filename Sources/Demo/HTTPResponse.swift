/// A response of the demo server. Every response closes the connection: one browser, a handful of requests,
/// no keep-alive state to get wrong.
public struct HTTPResponse: Sendable {
    public let status: Int
    public let contentType: String
    public let body: [UInt8]

    public init(status: Int, contentType: String, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    public static func text(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
    }

    static let reasons: [Int: String] = [
        200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
        408: "Request Timeout", 413: "Content Too Large", 415: "Unsupported Media Type", 421: "Misdirected Request",
        431: "Request Header Fields Too Large", 500: "Internal Server Error", 501: "Not Implemented",
        503: "Service Unavailable", 505: "HTTP Version Not Supported",
    ]

    /// The bytes on the wire. The page's scripts come from this origin only, and nothing is cached: each demo
    /// run is a new server on a new port.
    public var serialized: [UInt8] {
        let head =
            [
                "HTTP/1.1 \(status) \(Self.reasons[status] ?? "Status")",
                "Content-Type: \(contentType)",
                "Content-Length: \(body.count)",
                "Cache-Control: no-store",
                "X-Content-Type-Options: nosniff",
                "Referrer-Policy: no-referrer",
                "Content-Security-Policy: default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
                "Connection: close",
            ].joined(separator: "\r\n") + "\r\n\r\n"
        return Array(head.utf8) + body
    }
}
