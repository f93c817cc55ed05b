import Testing
@testable import FIDO

struct UserVerificationPolicyTests {
    static func info(_ options: [String: Bool]) -> AuthenticatorInfo {
        var info = AuthenticatorInfo()
        info.versions = ["FIDO_2_0", "FIDO_2_1"]
        info.options = options
        return info
    }

    static let noPINSet = ["clientPin": false, "rk": true]
    static let pinSet = ["clientPin": true, "rk": true]
    static let pinSetNoUVNeeded = ["clientPin": true, "makeCredUvNotRqd": true]
    static let builtInUV = ["uv": true, "clientPin": true]
    static let alwaysUV = ["clientPin": true, "alwaysUv": true]
    static let noUVAtAll = ["rk": true]

    @Test(arguments: [
        (noPINSet, UserVerificationRequirement.discouraged, false, UserVerificationMethod.none),
        (noPINSet, .preferred, false, .none),
        (noPINSet, .preferred, true, .none),
        (pinSet, .discouraged, false, .none),
        (pinSet, .discouraged, true, .pin),          // CTAP 2.0 key with PIN needs it for makeCredential
        (pinSetNoUVNeeded, .discouraged, true, .none),
        (pinSet, .preferred, false, .pin),
        (pinSet, .required, false, .pin),
        (builtInUV, .preferred, false, .builtIn),
        (builtInUV, .required, true, .builtIn),
        (alwaysUV, .discouraged, false, .pin),
    ])
    func methodFollowsRequirementAndKeyOptions(options: [String: Bool], requirement: UserVerificationRequirement,
                                               makingCredential: Bool, expected: UserVerificationMethod) throws {
        let method = try UserVerificationPolicy.method(for: requirement, info: Self.info(options), makingCredential: makingCredential)
        #expect(method == expected)
    }

    @Test func requiredOnAKeyWithoutPINSetSaysAPINCouldBeSet() {
        #expect(throws: UserVerificationPolicyError.notConfigured(pinSupported: true)) {
            try UserVerificationPolicy.method(for: .required, info: Self.info(Self.noPINSet), makingCredential: true)
        }
    }

    @Test func requiredOnAKeyWithoutAnyUVIsRefused() {
        #expect(throws: UserVerificationPolicyError.notConfigured(pinSupported: false)) {
            try UserVerificationPolicy.method(for: .required, info: Self.info(Self.noUVAtAll), makingCredential: false)
        }
    }

    @Test func ctap20KeysWithoutAlgorithmListSupportES256() {
        #expect(AuthenticatorInfo().supportedAlgorithms == [-7])
    }
}
