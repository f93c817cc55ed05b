import Demo
import Glibc
import Testing

/// `HTTPServer.stop()` with connections in flight: it returns only once the accept loop and every connection's
/// thread have ended (so the listener is closed when no accept() can follow and reach a reused descriptor number),
/// and a connection that never finished its request is ended by the stop, not by the server's 10 s I/O timeout.
/// Started and stopped many times to give the threads many interleavings (and ThreadSanitizer many chances).
@Suite struct HTTPServerTests {
    static let rounds = 25
    /// Bounds each wait for the peer's end; the server ends its side at once, its own I/O timeout is 10 s.
    static let pollMilliseconds: Int32 = 5_000

    @Test func stopEndsEveryConnectionThreadBeforeItReturns() throws {
        for round in 0..<Self.rounds {
            let server = try HTTPServer(log: { _ in })
            server.start { request in .text(200, "served \(request.path)") }

            let answered = try Self.connect(server.port)
            Self.send("GET /round-\(round) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", on: answered)
            let idle = try Self.connect(server.port)
            let halfSent = try Self.connect(server.port)
            Self.send("GET /never-finished HTTP/1.1\r\nHost: 12", on: halfSent)
            // The answered request is read before the stop, so the server has served at least one connection.
            let reply = Self.readToEnd(answered)
            #expect(reply.hasPrefix("HTTP/1.1 200 OK"), "round \(round): \(reply)")
            #expect(reply.hasSuffix("served /round-\(round)\n"), "round \(round)")
            let inFlight = try Self.connect(server.port)
            Self.send("GET /in-flight HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", on: inFlight)

            #expect(server.stop(), "round \(round): a server thread was still running when stop() returned")

            // Each connection's thread has closed its socket: the peer sees the end at once, not after 10 s.
            for socket in [idle, halfSent] {
                #expect(Self.readToEnd(socket).isEmpty, "round \(round): the server answered a request never sent")
            }
            let late = Self.readToEnd(inFlight)
            #expect(late.isEmpty || late.hasSuffix("served /in-flight\n"), "round \(round): \(late)")
            for socket in [answered, idle, halfSent, inFlight] { close(socket) }
            #expect(throws: ConnectRefused.self, "round \(round): the listener is still open") {
                close(try Self.connect(server.port))
            }
            #expect(server.stop(), "a second stop() does nothing")
        }
    }

    @Test func aServerNeverStartedStops() throws {
        let server = try HTTPServer(log: { _ in })
        #expect(server.stop())
        #expect(throws: ConnectRefused.self) { close(try Self.connect(server.port)) }
    }

    struct ConnectRefused: Error {}

    static func connect(_ port: UInt16) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(socket >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            close(socket)
            throw ConnectRefused()
        }
        return socket
    }

    static func send(_ text: String, on socket: Int32) {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        precondition(sent == bytes.count)
    }

    /// What the server sent until it ended the connection (a reset counts as the end); "<no end>" when the server
    /// neither sent nor ended anything within the poll bound.
    static func readToEnd(_ socket: Int32) -> String {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, pollMilliseconds)
            if polled < 0, errno == EINTR { continue }
            guard polled == 1 else { return "<no end>" + String(decoding: received, as: UTF8.self) }
            let count = recv(socket, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return String(decoding: received, as: UTF8.self) }
            received += chunk[..<count]
        }
    }
}
