import Glibc
import Processes
import Testing

@testable import Demo

/// The demo's temporary directories: which ones a later demo removes (an owner that no longer runs) and which it
/// keeps (a running owner, no owner file, another name, a link, another user's).
@Suite struct DemoDirectoryTests {
    let base: String

    init() throws {
        var template = Array("/tmp/demo-directory-test-XXXXXX".utf8CString)
        base = String(cString: try #require(mkdtemp(&template)))
    }

    /// A PID that no longer runs: a child that has exited and been reaped.
    static func deadPID() throws -> pid_t {
        let child = try Spawn.start(
            ["/bin/true"], environment: [], stdin: .file("/dev/null", flags: O_RDONLY),
            stdout: .file("/dev/null", flags: O_WRONLY), stderr: .descriptor(1))
        #expect(ProcessHandle(pid: child).waitForExit(seconds: 10) != nil)
        return child
    }

    /// A directory named like the demo's, with `owner` recorded in it.
    func demoDirectory(_ suffix: String, owner: ProcessIdentity?) throws -> String {
        let path = "\(base)/\(DemoDirectory.prefix)\(suffix)"
        #expect(mkdir(path, 0o700) == 0)
        if let owner { try writeFile("\(path)/\(DemoDirectory.ownerFile)", owner.recorded) }
        return path
    }

    @Test func aDirectoryWhoseOwnerRunsIsKeptAndOneWhoseOwnerEndedIsRemoved() throws {
        defer { _ = system("rm -rf '\(base)'") }
        let me = try #require(ProcessIdentity.current())
        let mine = try DemoDirectory.create(in: base)
        #expect(ProcessIdentity(recorded: readFile("\(mine)/owner") ?? "") == me)

        let dead = ProcessIdentity(pid: try Self.deadPID(), startTime: me.startTime, bootID: me.bootID)
        let reused = ProcessIdentity(pid: me.pid, startTime: me.startTime + 1, bootID: me.bootID)
        let earlierBoot = ProcessIdentity(pid: me.pid, startTime: me.startTime, bootID: "another-boot")
        let left = try ["dead00", "reused", "booted"].enumerated().map { index, suffix in
            try demoDirectory(suffix, owner: [dead, reused, earlierBoot][index])
        }
        // What a stale directory holds is removed with it, but a link in it is not followed.
        let outside = "\(base)/outside"
        try writeFile(outside, "not the demo's")
        #expect(symlink(outside, "\(left[0])/SingletonLock") == 0)
        try writeFile("\(left[0])/softtoken.state", "x")

        #expect(DemoDirectory.stale(in: base).map(\.path) == left.sorted())
        var said: [String] = []
        #expect(DemoDirectory.removeStale(in: base, say: { said.append($0) }) == left.sorted())
        #expect(left.allSatisfy { access($0, F_OK) != 0 })
        #expect(access(mine, F_OK) == 0 && readFile(outside) == "not the demo's")
        #expect(said.count == 3 && said.allSatisfy { $0.hasPrefix("Removed \(base)/webauthn-bridge-demo-") })
    }

    @Test func keepsWhatIsNotADemosLeftDirectory() throws {
        defer { _ = system("rm -rf '\(base)'") }
        let dead = ProcessIdentity(pid: try Self.deadPID(), startTime: 1, bootID: ProcessIdentity.currentBootID())
        _ = try demoDirectory("noOwnr", owner: nil)  // a demo that has not written its owner yet
        let wrongName = "\(base)/\(DemoDirectory.prefix)toolong1"
        #expect(mkdir(wrongName, 0o700) == 0)
        try writeFile("\(wrongName)/owner", dead.recorded)
        let target = try demoDirectory("target", owner: ProcessIdentity.current())
        #expect(symlink(target, "\(base)/\(DemoDirectory.prefix)link00") == 0)
        try writeFile("\(base)/\(DemoDirectory.prefix)file00", dead.recorded)
        let unreadable = try demoDirectory("badown", owner: nil)
        try writeFile("\(unreadable)/owner", "pid x\n")
        if geteuid() == 0 {  // another user's directory, whose owner ended: not this user's to remove
            let theirs = try demoDirectory("theirs", owner: dead)
            #expect(chown(theirs, 65534, 65534) == 0)
        }

        #expect(DemoDirectory.stale(in: base).isEmpty)
        #expect(DemoDirectory.removeStale(in: base, say: { _ in }).isEmpty)
    }

    @Test func readsOnlyWhatItRecords() {
        defer { _ = system("rm -rf '\(base)'") }
        let identity = ProcessIdentity(pid: 42, startTime: 7, bootID: "b")
        #expect(ProcessIdentity(recorded: identity.recorded) == identity)
        #expect(ProcessIdentity(recorded: "pid 42\nstart 7\n") == nil)
        #expect(ProcessIdentity(recorded: "pid -1\nstart 7\nboot b\n") == nil)
        #expect(ProcessIdentity(recorded: "") == nil)
    }
}
