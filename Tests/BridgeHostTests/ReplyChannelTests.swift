import Foundation
import Glibc
import NativeMessaging
import Testing
import WebAuthn

@testable import BridgeHost

/// A ReplyChannel with a small outbound limit writing into a pipe, and the frames that reached the other end.
private final class SmallPipe {
    let replies: ReplyChannel
    private var reader: FrameReader
    private let fds: [Int32]

    init(limit: Int) {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        self.fds = fds
        let log = HostLog(
            path: FileManager.default.temporaryDirectory.appendingPathComponent("replies-\(UUID().uuidString).log")
                .path, level: .error)
        replies = ReplyChannel(writer: FrameWriter(fileDescriptor: fds[1], maxFrameSize: limit), log: log)
        reader = FrameReader(fileDescriptor: fds[0])
    }

    deinit { for fd in fds { close(fd) } }

    /// Every frame written so far (the channel writes a closing marker first).
    func frames() throws -> [JSONValue] {
        replies.result("m", "m", .null)
        var frames: [JSONValue] = []
        while case .message(let bytes) = try reader.next() {
            let frame = try JSONValue.parse(bytes)
            if frame["id"]?.stringValue == "m" { return frames }
            frames.append(frame)
        }
        return frames
    }
}

struct ReplyChannelTests {
    @Test func aResultTooLargeForTheBrowserBecomesOneErrorWithItsID() throws {
        let channel = SmallPipe(limit: 300)
        channel.replies.result("r-1", "credential", .string(String(repeating: "x", count: 1000)))
        let frames = try channel.frames()
        #expect(frames.count == 1)
        #expect(frames.first?["id"]?.stringValue == "r-1")
        #expect(
            frames.first?["error"]
                == .object([
                    ("name", .string("NotAllowedError")), ("message", .string(ErrorMapping.PageText.notAllowed)),
                ]))
        #expect(frames.first?["detail"]?.stringValue?.contains("larger than a browser accepts") == true)
    }

    @Test func anAnswerWhoseIDIsTooLongToEchoGoesOutOnceWithIDNull() throws {
        let channel = SmallPipe(limit: 300)
        channel.replies.error(String(repeating: "i", count: 1000), WebAuthnError(name: .typeError, message: "bad"))
        let frames = try channel.frames()
        #expect(frames.count == 1)
        #expect(frames.first?["id"] == .null)
        #expect(frames.first?["type"]?.stringValue == "error")
        #expect(frames.first?["error"]?["message"]?.stringValue?.contains("too long") == true)
    }

    @Test func aStatusTooLargeForTheBrowserIsDroppedAndEndsNothing() throws {
        let channel = SmallPipe(limit: 300)
        channel.replies.status(
            "r-1", .selectAccount, extra: [("accounts", .string(String(repeating: "a", count: 1000)))])
        channel.replies.error("r-1", WebAuthnError(name: .notAllowed, message: "No account was chosen."))
        let frames = try channel.frames()
        #expect(
            frames.map { $0["type"]?.stringValue } == ["error"], "one final answer, and no error in place of the status"
        )
    }

    @Test func theErrorFrameTellsThePageChromiumsTextAndCarriesThePreciseReasonBesideIt() throws {
        let channel = SmallPipe(limit: 1 << 20)
        channel.replies.error("r-1", WebAuthnError(name: .notAllowed, message: "The security key's PIN is blocked."))
        let frame = try #require(try channel.frames().first)
        #expect(
            frame["error"]
                == .object([
                    ("name", .string("NotAllowedError")), ("message", .string(ErrorMapping.PageText.notAllowed)),
                ]))
        #expect(frame["detail"]?.stringValue == "The security key's PIN is blocked.")
    }

    @Test func anErrorThePageCausedKeepsItsMessageAndHasNoDetail() throws {
        let channel = SmallPipe(limit: 1 << 20)
        channel.replies.error("r-1", .typeError("user.id must be 1 to 64 bytes"))
        let frame = try #require(try channel.frames().first)
        #expect(frame["error"]?["message"]?.stringValue == "user.id must be 1 to 64 bytes")
        #expect(frame["detail"] == nil)
    }

    @Test func aFailureTheUserMayTryAgainSaysSoBesideThePagesError() throws {
        let channel = SmallPipe(limit: 1 << 20)
        channel.replies.error("r-1", ErrorMapping.noCredential)
        channel.replies.error("r-2", ErrorMapping.timeout)
        let frames = try channel.frames()
        #expect(frames.map { $0["retry"] } == [.bool(true), nil])
        #expect(
            frames.map { $0["error"]?["message"]?.stringValue } == [
                ErrorMapping.PageText.notAllowed, ErrorMapping.PageText.notAllowed,
            ])
    }
}
