import Glibc
import TestSupport
import Testing

@testable import NativeMessaging

struct FrameWriterTests {
    /// Several threads share one writer (status frames and replies); the reader must see whole frames only.
    /// Frames larger than PIPE_BUF make interleaving likely if the lock did not span header and body.
    @Test func concurrentWritersNeverInterleaveFrames() throws {
        _ = ignoreSIGPIPE
        let pipe = Pipe()
        let writer = FrameWriter(fileDescriptor: pipe.writeEnd)
        let threads = 4
        let framesPerThread = 100
        let failures = Locked(0)
        let writers = (0..<threads).map { id in
            TestThread {
                for index in 0..<framesPerThread {
                    // Every byte of a frame is the writer id; the length varies, up to several pipe buffers.
                    let size = 1 + (index * 7919 + id * 104_729) % 100_000
                    do { try writer.write(Array(repeating: UInt8(id), count: size)) } catch {
                        failures.with { $0 += 1 }
                    }
                }
            }
        }
        let received = Locked([Int](repeating: 0, count: threads))
        let malformed = Locked(0)
        let reading = TestThread {
            var reader = FrameReader(fileDescriptor: pipe.readEnd)
            while case .message(let body)? = try? reader.next() {
                guard let first = body.first, Int(first) < threads, body.allSatisfy({ $0 == first }) else {
                    malformed.with { $0 += 1 }
                    continue
                }
                received.with { $0[Int(first)] += 1 }
            }
            pipe.closeRead()  // out of sync or done: writers get EPIPE instead of blocking forever
        }
        for thread in writers { #expect(thread.join()) }
        pipe.closeWrite()
        #expect(reading.join())
        #expect(failures.current == 0)
        #expect(malformed.current == 0)
        #expect(received.current == Array(repeating: framesPerThread, count: threads))
    }

    @Test func frameOfExactlyOneMebibyteIsWritten() throws {
        _ = ignoreSIGPIPE
        let pipe = Pipe()
        let payload = (0..<FrameLimits.outbound).map { UInt8(truncatingIfNeeded: $0 * 31) }
        let result = Locked<InboundFrame?>(nil)
        let reading = TestThread {
            var reader = FrameReader(fileDescriptor: pipe.readEnd)
            let frame = try? reader.next()
            result.with { $0 = frame }
            pipe.closeRead()
        }
        try FrameWriter(fileDescriptor: pipe.writeEnd).write(payload)
        pipe.closeWrite()
        #expect(reading.join())
        #expect(summary(result.current) == summary(.message(payload)))
    }

    @Test func frameOneByteOverTheBrowserLimitIsRefusedAndNothingIsWritten() throws {
        let pipe = Pipe()
        let writer = FrameWriter(fileDescriptor: pipe.writeEnd)
        #expect(throws: FrameError.outboundTooLarge(FrameLimits.outbound + 1)) {
            try writer.write(Array(repeating: 0, count: FrameLimits.outbound + 1))
        }
        try writer.write([1])  // the caller's small error frame still goes out cleanly
        pipe.closeWrite()
        #expect(pipe.readAll() == nativeHeader(1) + [1])
    }

    /// A one-page pipe takes a 200 KB frame in many short writes while a reader thread drains it.
    @Test func shortWritesToASmallPipeBufferDeliverWholeFrames() throws {
        _ = ignoreSIGPIPE
        let pipe = Pipe(bufferSize: 4096)
        let payloads = (0..<5).map { n in (0..<200_000 + n).map { UInt8(truncatingIfNeeded: $0 &+ n) } }
        let received = Locked<[InboundFrame]>([])
        let reading = TestThread {
            var reader = FrameReader(fileDescriptor: pipe.readEnd)
            while let frame = try? reader.next() {
                received.with { $0.append(frame) }
                if frame == .endOfStream { break }
            }
            pipe.closeRead()
        }
        let writing = TestThread {
            defer { pipe.closeWrite() }
            let writer = FrameWriter(fileDescriptor: pipe.writeEnd)
            for payload in payloads { try? writer.write(payload) }
        }
        #expect(writing.join())
        #expect(reading.join())
        #expect(received.current.map(summary) == (payloads.map { .message($0) } + [.endOfStream]).map(summary))
    }

    /// The browser went away: with SIGPIPE ignored (as the host does at start-up) this is an error, not death.
    @Test func writeToAClosedPipeFailsWithEPIPE() {
        _ = ignoreSIGPIPE
        let pipe = Pipe()
        pipe.closeRead()
        #expect(throws: FrameError.writeFailed(errno: EPIPE)) {
            try FrameWriter(fileDescriptor: pipe.writeEnd).write([1, 2, 3])
        }
    }
}
