import CFIDO2
import Foundation
import Testing
@testable import SoftToken

/// A fixed workload for counting instructions with callgrind (not a test: it asserts only that the ceremonies
/// succeed). Run it alone, e.g.
///
///     SOFTTOKEN_COST_GETS=50 valgrind --tool=callgrind .build/release/WebAuthnBridgePackageTests.xctest \
///         --testing-library swift-testing --filter ceremonyCostDriver
///
/// and subtract a run with 0 ceremonies to get the cost per ceremony on a token holding 1,000 credentials.
@Suite struct CeremonyCostDriver {
    static let getsVariable = "SOFTTOKEN_COST_GETS"
    static let createsVariable = "SOFTTOKEN_COST_CREATES"
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    @Test(.enabled(if: environment[getsVariable] != nil || environment[createsVariable] != nil))
    func ceremonyCostDriver() throws {
        let gets = Int(Self.environment[Self.getsVariable] ?? "0") ?? 0
        let creates = Int(Self.environment[Self.createsVariable] ?? "0") ?? 0
        let fixture = try TokenFixture()
        let credential = try fixture.open().makeCredential()
        // Records only (their IDs are never presented), so setting up 999 of them costs one save, not 999.
        try fixture.token.lockedThrowing { () throws(CTAPStatus) in
            try fixture.token.commit { state in
                for i in 1..<1000 {
                    state.creationCounter += 1
                    state.credentials.append(Self.filler(i, created: state.creationCounter))
                }
            }
        }
        try fixture.reload()
        let device = try fixture.open()
        for _ in 0..<gets { try device.getAssertion(allow: [credential.id]) }
        var request = CredentialRequest()
        for i in 0..<creates {
            request.userID = Array("cost-\(i)".utf8)
            try device.makeCredential(request)
        }
        #expect(fixture.token.summary().credentials.count == 1000 + creates)
    }

    static func filler(_ i: Int, created: Int) -> StoredCredential {
        StoredCredential(
            id: Data((0..<180).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }), rpID: "site-\(i % 50).example",
            rpName: "Site \(i % 50)", userID: Data("user-\(i)".utf8), userName: "user\(i)@example.com",
            userDisplayName: "User \(i)", algorithm: -7, signCount: UInt32(i), discoverable: i % 2 == 0,
            credProtect: 1, created: created)
    }
}
