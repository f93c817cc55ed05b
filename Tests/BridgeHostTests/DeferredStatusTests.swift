import Foundation
import Glibc
import NativeMessaging
import Testing
import WebAuthn

@testable import BridgeHost

/// A ReplyChannel writing into a pipe, and what reached the other end.
private final class Channel {
    let replies: ReplyChannel
    private var reader: FrameReader
    private let fds: [Int32]

    init() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        self.fds = fds
        let log = HostLog(
            path: FileManager.default.temporaryDirectory.appendingPathComponent("deferred-\(getpid()).log").path,
            level: .error)
        replies = ReplyChannel(writer: FrameWriter(fileDescriptor: fds[1]), log: log)
        reader = FrameReader(fileDescriptor: fds[0])
    }

    deinit { for fd in fds { close(fd) } }

    /// "status:touch"-style names of every frame sent so far, read up to a closing marker frame.
    func sent() throws -> [String] {
        replies.result("marker", "done", .null)
        var names: [String] = []
        while true {
            guard case .message(let bytes) = try reader.next() else { return names }
            let frame = try JSONValue.parse(bytes)
            if frame["id"]?.stringValue == "marker" { return names }
            let type = frame["type"]?.stringValue ?? "?"
            names.append(
                type == "status"
                    ? "\(frame["id"]?.stringValue ?? "?"):\(frame["status"]?.stringValue ?? "?")"
                    : "\(frame["id"]?.stringValue ?? "?"):\(type)")
        }
    }
}

struct DeferredStatusTests {
    static let statuses: [CeremonyStatus] = [.uv, .touch]

    @Test func aKeyThatAnswersWithinTheGraceCostsNoFrames() throws {
        let channel = try Channel()
        let notice = DeferredStatus(Self.statuses, for: "r-1", on: channel.replies, grace: .milliseconds(150))
        notice.withdraw()
        Thread.sleep(forTimeInterval: 0.3)
        channel.replies.updateNotice("r-1", .processing)
        #expect(try channel.sent() == [])
    }

    @Test func aKeyThatWaitsGetsTheStatusesInOrderAfterTheGrace() throws {
        let channel = try Channel()
        let notice = DeferredStatus(Self.statuses, for: "r-1", on: channel.replies, grace: .milliseconds(10))
        Thread.sleep(forTimeInterval: 0.3)
        notice.withdraw()
        #expect(channel.replies.hasNotice("r-1"))
        channel.replies.updateNotice("r-1", .processing)
        #expect(try channel.sent() == ["r-1:uv", "r-1:touch", "r-1:processing"])
    }

    @Test func withANoticeAlreadyUpTheStatusesGoAtOnce() throws {
        let channel = try Channel()
        channel.replies.status("r-1", .pin, detail: "Enter your PIN.")
        let notice = DeferredStatus(Self.statuses, for: "r-1", on: channel.replies, grace: .seconds(60))
        notice.withdraw()
        #expect(try channel.sent() == ["r-1:pin", "r-1:uv", "r-1:touch"])
    }

    @Test func theAnswerEndsTheNoticeSoNoUpdateFollowsIt() throws {
        let channel = try Channel()
        channel.replies.status("r-1", .selectKey)
        channel.replies.result("r-1", "credential", .null)
        channel.replies.updateNotice("r-1", .processing)
        channel.replies.status("r-2", .pin)
        channel.replies.error("r-2", WebAuthnError(name: .notAllowed, message: "no"))
        #expect(!channel.replies.hasNotice("r-1") && !channel.replies.hasNotice("r-2"))
        #expect(try channel.sent() == ["r-1:select-key", "r-1:result", "r-2:pin", "r-2:error"])
    }
}
