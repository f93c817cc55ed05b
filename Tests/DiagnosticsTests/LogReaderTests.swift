import BridgeHost
import Foundation
import Testing

@testable import Diagnostics

struct LogReaderTests {
    static func scratchLog() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("log-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("host.log").path
    }

    /// Follows until `count` lines came, or two seconds passed.
    static func followed(_ reader: LogReader, from point: LogReader.FollowPoint, count: Int) -> [String] {
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(2)
        reader.follow(
            from: point, pollInterval: 0.01, shouldStop: { seen.count >= count || Date() > deadline },
            emit: { seen.append($0) })
        return seen
    }

    @Test func rotatedFilesComeOldestFirstAndAnUnfinishedLineWaits() throws {
        let path = try Self.scratchLog()
        try "one\n".write(toFile: path + ".2", atomically: true, encoding: .utf8)
        try "two\n".write(toFile: path + ".1", atomically: true, encoding: .utf8)
        try "three\nfou".write(toFile: path, atomically: true, encoding: .utf8)
        let (lines, point) = LogReader(path: path).contents()
        #expect(lines == ["one", "two", "three"])
        #expect(point.offset == 6)
    }

    @Test func aLineWrittenBetweenPrintingAndFollowingIsFollowed() throws {
        let path = try Self.scratchLog()
        try "before\n".write(toFile: path, atomically: true, encoding: .utf8)
        let reader = LogReader(path: path)
        let (_, point) = reader.contents()
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("written in between\n".utf8))
        try handle.close()
        #expect(Self.followed(reader, from: point, count: 1) == ["written in between"])
    }

    @Test func aRotationStartsTheNewFileFromItsFirstLine() throws {
        let path = try Self.scratchLog()
        try "old\n".write(toFile: path, atomically: true, encoding: .utf8)
        let reader = LogReader(path: path)
        let (_, point) = reader.contents()
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try "new ünïcode\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(Self.followed(reader, from: point, count: 1) == ["new ünïcode"])
    }
}
