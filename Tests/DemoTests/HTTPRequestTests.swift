import Demo
import Testing

@Suite struct HTTPRequestTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func parsesAPostWithItsBody() throws {
        let text =
            "POST /api/login/options HTTP/1.1\r\nHost: localhost:8080\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        guard case .complete(let request, let consumed) = try HTTPRequestParser.parse(Self.bytes(text)) else {
            Issue.record("not complete")
            return
        }
        #expect(consumed == text.utf8.count)
        #expect(request.method == "POST")
        #expect(request.path == "/api/login/options")
        #expect(request.header("host") == "localhost:8080")
        #expect(request.body == Self.bytes("{}"))
    }

    @Test func waitsForTheRestOfHeadersAndBody() throws {
        #expect(try HTTPRequestParser.parse(Self.bytes("GET / HTTP/1.1\r\nHost: x")) == .incomplete)
        #expect(
            try HTTPRequestParser.parse(Self.bytes("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n{}")) == .incomplete)
    }

    @Test func stripsTheQuery() throws {
        guard case .complete(let request, _) = try HTTPRequestParser.parse(Self.bytes("GET /?a=b HTTP/1.1\r\n\r\n"))
        else {
            Issue.record("not complete")
            return
        }
        #expect(request.path == "/")
    }

    @Test(arguments: [
        (
            "GET / HTTP/1.1\r\nHost: a\r\n"
                + String(repeating: "X-Pad: " + String(repeating: "a", count: 100) + "\r\n", count: 90) + "\r\n", 431
        ),
        ("GET / HTTP/1.1\r\n" + String(repeating: "a", count: 9000), 431),
        ("POST / HTTP/1.1\r\nContent-Length: 70000\r\n\r\n", 413),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}", 400),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n", 400),
        ("GET / HTTP/1.1\nHost: a\n\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\n continued\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nNo colon here\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
        ("GET  / HTTP/1.1\r\n\r\n", 400),
        ("GET http://evil/ HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\n\r\n", 505),
        ("DELETE / HTTP/1.1\r\n\r\n", 405),
        ("GET / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 400),
    ])
    func refusesOversizedAndMalformedRequests(text: String, status: Int) {
        #expect(throws: HTTPError.self) { try HTTPRequestParser.parse(Self.bytes(text)) }
        do {
            _ = try HTTPRequestParser.parse(Self.bytes(text))
        } catch {
            #expect(error.status == status, "\(error.reason)")
        }
    }

    @Test func refusesNonUTF8Headers() {
        var bytes = Self.bytes("GET / HTTP/1.1\r\nX-A: ")
        bytes += [0xFF, 0xFE]
        bytes += Self.bytes("\r\n\r\n")
        #expect(throws: HTTPError(400, "headers are not UTF-8")) { try HTTPRequestParser.parse(bytes) }
    }
}
