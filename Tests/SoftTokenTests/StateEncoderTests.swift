import Foundation
import Testing

@testable import SoftToken

/// The hand-written state-file JSON must say exactly what the synthesized `Codable` conformance says.
@Suite struct StateEncoderTests {
    static func sampleState() -> TokenState {
        var configuration = SoftTokenConfiguration(presence: .delay(milliseconds: 250), attestation: .selfAttestation)
        configuration.minPINLengthRPIDs = ["example.com"]
        var state = TokenState.fresh(configuration: configuration)
        state.pinHash = Data(repeating: 7, count: 16)
        state.pinRetries = 5
        state.attestationKey = Data([1, 2, 3])
        state.attestationCertificate = Data([4, 5, 6, 0xFF])
        state.counterGeneration = CounterFile.newGeneration()
        state.credentials = [
            StoredCredential(
                id: Data([0x01, 0xFE, 0x00, 0x7F]), rpID: "example.com", rpName: "Quote \" back\\slash\nnew line\u{01}",
                userID: Data("user-1".utf8), userName: "ålice 😀 /path", userDisplayName: "Alice\ttab", algorithm: -7,
                signCount: UInt32.max, discoverable: true, credProtect: 2, created: 1),
            StoredCredential(
                id: Data([0x02]), rpID: "other.example", rpName: nil, userID: Data(), userName: nil,
                userDisplayName: nil, algorithm: -8, signCount: 0, discoverable: false, credProtect: 1, created: 2),
        ]
        state.creationCounter = 2
        return state
    }

    static func decode(_ bytes: [UInt8]) throws -> TokenState {
        try JSONDecoder().decode(TokenState.self, from: Data(bytes))
    }

    @Test func encodedStateDecodesToTheSameState() throws {
        let state = Self.sampleState()
        #expect(try Self.decode(try StateEncoder.encode(state)) == state)
    }

    @Test func encodedStateIsTheJSONThatJSONEncoderWrites() throws {
        // Compared as parsed JSON, so a field added to TokenState but not to StateEncoder fails here.
        let state = Self.sampleState()
        let ours = try JSONSerialization.jsonObject(with: Data(try StateEncoder.encode(state))) as? NSDictionary
        let reference = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(state)) as? NSDictionary
        #expect(ours != nil)
        #expect(ours == reference)
    }

    @Test func credentialsAreOneALineAndTheConfigurationOneFieldALine() throws {
        let text = String(decoding: try StateEncoder.encode(Self.sampleState()), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("    {\"algorithm\":") }.count == 2)
        #expect(lines.contains("    \"pinUvAuthTokenPermissions\" : true,"))
    }
}
