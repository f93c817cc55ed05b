import CFIDO2
import FIDO
import Foundation
import Testing

@testable import SoftToken

/// Two processes holding one token file (two browsers, each with a host): neither saves over what the other
/// saved. Two `SoftToken` objects loaded from one file stand in for the two processes.
@Suite struct SharedStateFileTests {
    @Test func credentialsMadeInTurnByTwoHoldersOfOneFileAreAllKept() throws {
        let fixture = try TokenFixture()
        let other = try SoftToken(stateFile: fixture.stateFile)
        let otherPath = SoftTokenDevice.attach(other)
        defer { SoftTokenDevice.detach(path: otherPath) }
        for round in 0..<3 {
            try fixture.open().makeCredential(CredentialRequest(userID: Array("a\(round)".utf8), residentKey: true))
            try TokenFixture.open(path: otherPath).makeCredential(
                CredentialRequest(userID: Array("b\(round)".utf8), residentKey: true))
        }
        #expect(try SoftToken(stateFile: fixture.stateFile).summary().credentials.count == 6)
        #expect(other.summary().credentials.count == 6, "each holder sees the other's credentials too")
    }

    @Test func aWrongPINSeenByOneHolderCountsForTheOther() throws {
        let fixture = try TokenFixture(pin: "123456")
        let other = try SoftToken(stateFile: fixture.stateFile)
        let otherPath = SoftTokenDevice.attach(other)
        defer { SoftTokenDevice.detach(path: otherPath) }
        expectFido(FIDO_ERR_PIN_INVALID) { try fixture.open().makeCredential(pin: "000000") }
        #expect((try TokenFixture.open(path: otherPath).pinRetries()) == 7)
    }
}
