import Glibc
import TestSupport
import Testing

@testable import NativeMessaging

/// Signals arrive at a host (the browser, a debugger, the runtime); a read or write they interrupt is retried.
struct InterruptionTests {
    init() { _ = ignoreSIGPIPE }

    @Test func readInterruptedBySignalsIsRetried() {
        let signal = interruptingSignal
        let pipe = Pipe()
        let readerThread = Locked<pthread_t?>(nil)
        let result = Locked<Result<InboundFrame, FrameError>?>(nil)
        let reading = TestThread {
            acceptSignal(signal)
            readerThread.with { $0 = pthread_self() }
            var reader = FrameReader(fileDescriptor: pipe.readEnd)
            let frame = Result { () throws(FrameError) in try reader.next() }
            result.with { $0 = frame }
        }
        #expect(interrupt(readerThread, with: signal, times: 5))
        pipe.writeRaw(nativeHeader(3))
        #expect(interrupt(readerThread, with: signal, times: 3))  // now blocked inside the body
        pipe.writeRaw([1, 2, 3])
        #expect(reading.join())
        #expect(result.current == .success(.message([1, 2, 3])))
    }

    @Test func writeInterruptedBySignalsIsRetried() {
        let signal = interruptingSignal
        let pipe = Pipe(bufferSize: 4096)
        let writerThread = Locked<pthread_t?>(nil)
        let failure = Locked<FrameError?>(nil)
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 / 3) }
        let writing = TestThread {
            acceptSignal(signal)
            writerThread.with { $0 = pthread_self() }
            do throws(FrameError) { try FrameWriter(fileDescriptor: pipe.writeEnd).write(payload) } catch {
                failure.with { $0 = error }
            }
            pipe.closeWrite()
        }
        #expect(interrupt(writerThread, with: signal, times: 5))  // the pipe is full: write(2) is blocked
        var reader = FrameReader(fileDescriptor: pipe.readEnd)
        let frame = Result { () throws(FrameError) in try reader.next() }
        #expect(frame.map(summary) == .success(summary(.message(payload))))
        #expect(writing.join())
        #expect(failure.current == nil)
    }

    /// Threads inherit their creator's mask, and the test runner's pool threads block signals.
    private func acceptSignal(_ signal: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Sends `signal` to the thread once it has published its id, pausing so it is blocked in a system call.
    private func interrupt(_ thread: Locked<pthread_t?>, with signal: Int32, times: Int) -> Bool {
        for _ in 0..<500 where thread.current == nil { usleep(10_000) }
        guard let id = thread.current else { return false }
        for _ in 0..<times {
            usleep(20_000)
            pthread_kill(id, signal)
        }
        usleep(20_000)
        return true
    }
}
