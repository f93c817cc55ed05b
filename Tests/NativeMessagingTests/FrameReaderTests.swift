import Glibc
import Testing

@testable import NativeMessaging

struct FrameReaderTests {
    @Test func frameWrittenByTheWriterReadsBackUnchanged() throws {
        let pipe = Pipe()
        let payload = Array(#"{"id":"r-1","type":"info"}"#.utf8)
        try FrameWriter(fileDescriptor: pipe.writeEnd).write(payload)
        pipe.closeWrite()
        var reader = FrameReader(fileDescriptor: pipe.readEnd)
        #expect(try reader.next() == .message(payload))
        #expect(try reader.next() == .endOfStream)
    }

    @Test func lengthHeaderIsInNativeByteOrder() throws {
        let pipe = Pipe()
        try FrameWriter(fileDescriptor: pipe.writeEnd).write(Array(repeating: 0x41, count: 0x0102))
        pipe.closeWrite()
        let raw = pipe.readAll()
        #expect(Array(raw.prefix(4)) == nativeHeader(0x0102))
        #if _endian(little)
        #expect(Array(raw.prefix(4)) == [0x02, 0x01, 0x00, 0x00])
        #endif
        #expect(raw.count == 4 + 0x0102)
    }

    @Test func framesBackToBackAreReadOneAtATime() throws {
        let pipe = Pipe()
        let bodies: [[UInt8]] = [[1], [2, 2], [], Array(repeating: 3, count: 1000), [4, 4, 4, 4]]
        pipe.writeRaw(bodies.flatMap { nativeHeader(UInt32($0.count)) + $0 })
        pipe.closeWrite()
        var reader = FrameReader(fileDescriptor: pipe.readEnd)
        for body in bodies { #expect(try reader.next() == .message(body)) }
        #expect(try reader.next() == .endOfStream)
    }

    @Test func zeroLengthFrameIsAnEmptyMessage() throws {
        let pipe = Pipe()
        pipe.writeRaw(nativeHeader(0))
        pipe.closeWrite()
        var reader = FrameReader(fileDescriptor: pipe.readEnd)
        #expect(try reader.next() == .message([]))
        #expect(try reader.next() == .endOfStream)
    }

    @Test func eofBeforeAnyFrameIsACleanEnd() throws {
        let pipe = Pipe()
        pipe.closeWrite()
        var reader = FrameReader(fileDescriptor: pipe.readEnd)
        #expect(try reader.next() == .endOfStream)
    }

    @Test func oversizeFrameIsDiscardedAndTheNextFrameStillReads() throws {
        let pipe = Pipe()
        pipe.writeRaw(nativeHeader(100) + Array(repeating: 0xEE, count: 100) + nativeHeader(2) + [7, 8])
        pipe.closeWrite()
        var reader = FrameReader(fileDescriptor: pipe.readEnd, maxFrameSize: 16)
        #expect(try reader.next() == .oversize(length: 100))
        #expect(try reader.next() == .message([7, 8]))
        #expect(try reader.next() == .endOfStream)
    }

    /// A body far larger than both the limit and the pipe buffer: discarded in chunks as it streams in.
    @Test func largeOversizeFrameIsDiscardedWhileTheWriterStreamsIt() throws {
        let pipe = Pipe()
        let oversize = 5 * 1024 * 1024 + 3
        let writer = TestThread {
            defer { pipe.closeWrite() }
            pipe.writeRaw(nativeHeader(UInt32(oversize)) + Array(repeating: 0x55, count: oversize))
            pipe.writeRaw(nativeHeader(1) + [9])
        }
        var reader = FrameReader(fileDescriptor: pipe.readEnd)
        #expect(try reader.next() == .oversize(length: oversize))
        #expect(try reader.next() == .message([9]))
        #expect(try reader.next() == .endOfStream)
        #expect(writer.join())
    }

    @Test func implausibleLengthMeansTheStreamIsOutOfSync() {
        let pipe = Pipe()
        pipe.writeRaw(nativeHeader(0xFFFF_FFFF) + Array("garbage".utf8))
        pipe.closeWrite()
        var reader = FrameReader(fileDescriptor: pipe.readEnd)
        #expect(throws: FrameError.implausibleLength(0xFFFF_FFFF)) { try reader.next() }
    }

    @Test func lengthJustAboveTheSanityCapIsImplausible() {
        let pipe = Pipe()
        pipe.writeRaw(nativeHeader(UInt32(FrameLimits.implausible + 1)))
        pipe.closeWrite()
        var reader = FrameReader(fileDescriptor: pipe.readEnd)
        #expect(throws: FrameError.implausibleLength(FrameLimits.implausible + 1)) { try reader.next() }
    }

    @Test(arguments: [1, 2, 3])
    func eofInsideTheHeaderIsTruncatedHeader(headerBytes: Int) {
        let pipe = Pipe()
        pipe.writeRaw(Array(nativeHeader(10).prefix(headerBytes)))
        pipe.closeWrite()
        var reader = FrameReader(fileDescriptor: pipe.readEnd)
        #expect(throws: FrameError.truncatedHeader) { try reader.next() }
    }

    @Test func eofInsideTheBodyIsTruncatedBody() {
        let pipe = Pipe()
        pipe.writeRaw(nativeHeader(10) + [1, 2, 3])
        pipe.closeWrite()
        var reader = FrameReader(fileDescriptor: pipe.readEnd)
        #expect(throws: FrameError.truncatedBody(expected: 10, received: 3)) { try reader.next() }
    }

    @Test func eofInsideADiscardedBodyIsTruncatedBody() {
        let pipe = Pipe()
        pipe.writeRaw(nativeHeader(100) + Array(repeating: 0, count: 40))
        pipe.closeWrite()
        var reader = FrameReader(fileDescriptor: pipe.readEnd, maxFrameSize: 10)
        #expect(throws: FrameError.truncatedBody(expected: 100, received: 40)) { try reader.next() }
    }

    @Test func readErrorIsReported() {
        var reader = FrameReader(fileDescriptor: -1)
        #expect(throws: FrameError.readFailed(errno: EBADF)) { try reader.next() }
    }
}
