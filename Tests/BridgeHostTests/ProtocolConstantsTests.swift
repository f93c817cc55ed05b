import FIDO
import NativeMessaging
import Testing
import WebAuthn

@testable import BridgeHost

/// extension/common/protocol-constants.js is the one list of the names and numbers the extension and the host
/// share: the extension imports it, and the host's typed copies must say the same.
struct ProtocolConstantsTests {
    static let constants = ExtensionData.read("protocol-constants.js")

    static func names(_ key: String) -> [String] {
        (constants[key]?.arrayValue ?? []).compactMap(\.stringValue).sorted()
    }

    static func number(_ group: String, _ key: String) -> Int? {
        constants[group]?[key]?.intValue
    }

    @Test func versionIsTheSharedOne() {
        #expect(ProtocolVersion.current == Self.constants["protocolVersion"]?.intValue)
    }

    @Test func frameTypesAreTheSharedOnes() {
        #expect(RequestType.allCases.map(\.rawValue).sorted() == Self.names("requestTypes"))
        #expect(ReplyType.allCases.map(\.rawValue).sorted() == Self.names("replyTypes"))
        #expect(KeyRequestType.allCases.map(\.rawValue).sorted() == Self.names("keyRequestTypes"))
    }

    @Test func statusCodesAreTheSharedOnes() {
        #expect(CeremonyStatus.allCases.map(\.rawValue).sorted() == Self.names("statuses"))
    }

    @Test func statusFieldsAreTheSharedOnes() {
        #expect(StatusField.allCases.map(\.rawValue).sorted() == Self.names("statusFields"))
    }

    @Test func errorNamesAreTheSharedOnes() {
        #expect(DOMExceptionName.allCases.map(\.rawValue).sorted() == Self.names("errorNames"))
    }

    /// The extension offers its Security keys page when a registration fails with this reason.
    @Test func theFullKeyReasonIsTheSharedOne() {
        let full = ErrorMapping.webAuthnError(
            for: FIDOError(code: FIDOError.keyStoreFull, function: "fido_dev_make_cred"), cancelled: false,
            timedOut: false)
        #expect(full.message == Self.constants["errorDetails"]?["keyStoreFull"]?.stringValue)
    }

    @Test func binaryValuesUseTheSharedMarker() throws {
        let marker = try #require(Self.constants["binaryMarker"]?.stringValue)
        #expect(String(decoding: JSONValue.binary([1]).serialized(), as: UTF8.self) == "{\"\(marker)\":\"AQ\"}")
    }

    @Test func limitsAreTheSharedOnes() {
        #expect(FrameLimits.outbound == Self.number("limits", "outboundFrameBytes"))
        #expect(FrameLimits.defaultInbound == Self.number("limits", "defaultInboundFrameBytes"))
        #expect(ReplyChannel.replyAllowance == Self.number("limits", "replyAllowanceBytes"))
        #expect(RequestLoop.maximumIDBytes == Self.number("limits", "requestIdBytes"))
        #expect(CredentialDescriptorList.maximumEntries == Self.number("limits", "credentialListEntries"))
    }

    @Test func timeoutPolicyIsTheSharedOne() {
        #expect(Timeouts.defaultMilliseconds == Self.number("timeouts", "defaultMilliseconds"))
        #expect(Timeouts.minimumMilliseconds == Self.number("timeouts", "minimumMilliseconds"))
        #expect(Timeouts.maximumMilliseconds == Self.number("timeouts", "maximumMilliseconds"))
    }
}
