import CFIDO2
import FIDO
import Foundation
import Testing

@testable import SoftToken

/// kill -9 while the token is saving must leave the old or the new state file, never a broken one.
///
/// The test re-runs this test binary as a child that makes credentials in a loop (each one an atomic save)
/// and kills it with SIGKILL at varying moments.
@Suite struct CrashSafetyTests {
    static let writerVariable = "SOFTTOKEN_CRASH_WRITER_STATE"

    /// The child's side: only active in the child process, where the variable names the state file.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[writerVariable] != nil))
    func crashWriterLoop() throws {
        let path = try #require(ProcessInfo.processInfo.environment[Self.writerVariable])
        let token = try SoftToken(stateFile: path)
        let devicePath = SoftTokenDevice.attach(token)
        let device = try TokenFixture.open(path: devicePath)
        var request = CredentialRequest()
        request.residentKey = true
        for i in 0..<100_000 {
            request.userID = Array("user-\(i)".utf8)
            try device.makeCredential(request)
        }
    }

    @Test func killDashNineDuringSavesLeavesALoadableStateFile() throws {
        let fixture = try TokenFixture()
        let binary = CommandLine.arguments[0]
        var previous = 0
        for round in 0..<3 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: binary)
            child.arguments = ["--testing-library", "swift-testing", "--filter", "crashWriterLoop"]
            var environment = ProcessInfo.processInfo.environment
            environment[Self.writerVariable] = fixture.stateFile
            child.environment = environment
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            // Wait until the child has saved at least once more, then kill it mid-loop.
            let start = Date()
            while (try? SoftToken(stateFile: fixture.stateFile).summary().credentials.count) ?? 0 <= previous,
                Date().timeIntervalSince(start) < 20
            {
                Thread.sleep(forTimeInterval: 0.02)
            }
            Thread.sleep(forTimeInterval: 0.05 * Double(round + 1))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            let count = try SoftToken(stateFile: fixture.stateFile).summary().credentials.count
            #expect(count > previous, "the child saved credentials before it was killed")
            previous = count
        }
        try fixture.reload()
        let assertion = try fixture.open().getAssertion()
        #expect(assertion.count == previous)
    }
}
