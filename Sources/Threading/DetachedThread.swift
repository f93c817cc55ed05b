import Glibc

/// Starts `body` on a new detached thread named `name` (shown by `ps -L`, gdb and in /proc). Foundation's
/// Thread is only in full Foundation, which the host does not link (see `Condition`).
public func startDetachedThread(name: String, _ body: @escaping @Sendable () -> Void) {
    final class Start: @unchecked Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
    let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
        &thread, nil,
        { argument in
            guard let argument else { return nil }  // always the Start passed below
            let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
            nameCurrentThread(start.name)
            start.body()
            return nil
        }, start)
    // Running out of threads at start-up leaves nothing sensible to do; Foundation's Thread traps too.
    precondition(status == 0, "pthread_create failed: \(status)")
    pthread_detach(thread)
}

/// Names the calling thread through /proc (pthread_setname_np needs _GNU_SOURCE, which Glibc's module map
/// lacks). The kernel keeps 15 bytes; a name that cannot be set only makes debugging less convenient.
private func nameCurrentThread(_ name: String) {
    let file = open("/proc/thread-self/comm", O_WRONLY)
    guard file >= 0 else { return }
    defer { close(file) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
}
