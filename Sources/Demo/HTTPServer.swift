import Glibc
import Threading

/// Why the demo could not start or run; the message is for the user.
public struct DemoError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A small HTTP/1.1 server on 127.0.0.1 and a port the kernel picks, for one local browser. Each connection gets
/// a thread of its own (browsers open spare connections that may never send anything) with read and write
/// timeouts; a few at a time, the rest refused. One request per connection.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public let port: UInt16
    private let listener: Int32
    private let log: @Sendable (String) -> Void
    private let limits: HTTPLimits
    /// The accept loop and the connections being served. Behind a pthread `Condition`, not a `Mutex`, which
    /// ThreadSanitizer cannot see on Linux (docs/robustness.md, "Sanitizers"): the server keeps no state TSan could
    /// only be told to ignore.
    private let threads = ServerThreads()
    static let maxConnections = 16
    static let ioTimeoutSeconds = 10

    /// Listens at once, so `port` is known before the routes that need it are made.
    public init(limits: HTTPLimits = HTTPLimits(), log: @escaping @Sendable (String) -> Void) throws(DemoError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DemoError("cannot create a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")  // loopback only: nothing outside this machine can connect
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw DemoError("cannot listen on 127.0.0.1: \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        self.log = log
        self.limits = limits
    }

    /// Accepts connections on a thread of its own until `stop()`, each request answered by `handler`.
    public func start(_ handler: @escaping Handler) {
        // Handed to each connection's thread with the closure that starts it. (It was kept in a Mutex, whose reads by
        // two connection threads ThreadSanitizer reported as a race it cannot see is ordered.)
        threads.acceptLoopStarted()
        startDetachedThread(name: "demo-http") { [self] in
            defer { threads.acceptLoopEnded() }
            while true {
                // accept4 needs _GNU_SOURCE, which Glibc's module lacks; the browser is started with every descriptor
                // above stderr closed (BrowserProcess), so the moment without FD_CLOEXEC leaks nothing.
                let connection = accept(listener, nil, nil)
                if connection < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return  // the listener was shut down
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                guard threads.admit(connection, limit: Self.maxConnections) else {
                    close(connection)
                    continue
                }
                startDetachedThread(name: "demo-conn") { [self] in
                    serve(connection, handler: handler)
                    threads.connectionEnded(connection)
                }
            }
        }
    }

    /// Stops accepting and ends the connections being served (their sockets shut down, so a read or write returns at
    /// once), then waits for the accept loop and every connection thread to end (a handler still running is waited
    /// for up to the I/O timeout). Only then is the listener closed: closed while the accept loop could still call
    /// accept(), its descriptor number could already belong to a file the process opened since. False when a thread
    /// was still running at the bound.
    @discardableResult
    public func stop() -> Bool {
        guard threads.stopping({ shutdown(listener, Int32(SHUT_RDWR)) }) else { return true }  // stopped before
        let ended = threads.waitUntilAllEnded(until: .after(.seconds(Self.ioTimeoutSeconds)))
        if ended.acceptLoop { close(listener) }  // else leaked rather than closed under a thread that may use it
        return ended.acceptLoop && ended.connections
    }

    private func serve(_ connection: Int32, handler: Handler) {
        var timeout = timeval(tv_sec: Self.ioTimeoutSeconds, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let response: HTTPResponse
        switch readRequest(connection) {
        case .success(let request):
            response = handler(request)
        case .failure(let error):
            if error.status == 0 { return }  // the peer closed or went quiet before sending a request
            log("refused a request: \(error)")
            response = .text(error.status, error.reason)
        }
        send(response.serialized, on: connection)
    }

    private func readRequest(_ connection: Int32) -> Result<HTTPRequest, HTTPError> {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(connection, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                return .failure(
                    buffer.isEmpty
                        ? HTTPError(0, "idle connection") : HTTPError(408, "the request did not arrive in time"))
            }
            if count <= 0 { return .failure(HTTPError(0, "closed")) }
            buffer += chunk[..<count]
            do {
                if case .complete(let request, _) = try HTTPRequestParser.parse(buffer, limits: limits) {
                    return .success(request)
                }
            } catch {
                return .failure(error)
            }
        }
    }

    private func send(_ bytes: [UInt8], on connection: Int32) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return }
            offset += sent
        }
        shutdown(connection, Int32(SHUT_WR))
    }
}

/// Which of the server's threads still run: the accept loop, and each connection's thread with its socket, which
/// that thread closes (the socket is only shut down by others, so its number is never reused while listed here).
private final class ServerThreads: @unchecked Sendable {
    private let condition = Condition()
    private var acceptLoopRunning = false
    private var connections: Set<Int32> = []
    private var stopped = false

    func acceptLoopStarted() { condition.withLock { acceptLoopRunning = true } }

    func acceptLoopEnded() {
        condition.withLock {
            acceptLoopRunning = false
            condition.broadcast()
        }
    }

    /// Lists `connection` for a thread of its own; false once stopping or when `limit` connections are served.
    func admit(_ connection: Int32, limit: Int) -> Bool {
        condition.withLock {
            guard !stopped, connections.count < limit else { return false }
            connections.insert(connection)
            return true
        }
    }

    func connectionEnded(_ connection: Int32) {
        condition.withLock {
            connections.remove(connection)
            close(connection)
            condition.broadcast()
        }
    }

    /// Marks the server stopping, runs `shutDownListener` and shuts down every connection's socket; false (and
    /// nothing done) when it was stopped before.
    func stopping(_ shutDownListener: () -> Void) -> Bool {
        condition.withLock {
            guard !stopped else { return false }
            stopped = true
            shutDownListener()
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
            return true
        }
    }

    func waitUntilAllEnded(until deadline: Deadline) -> (acceptLoop: Bool, connections: Bool) {
        condition.withLock {
            while acceptLoopRunning || !connections.isEmpty, !deadline.isPast { condition.wait(until: deadline) }
            return (!acceptLoopRunning, connections.isEmpty)
        }
    }
}
