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

    static let builtInUVNoUVNeeded = ["uv": true, "makeCredUvNotRqd": true]

    static let get = UserVerificationPolicy.Ceremony.getAssertion(discoverable: false)
    static let make = UserVerificationPolicy.Ceremony.makeCredential(discoverable: false)
    static let makeDiscoverable = UserVerificationPolicy.Ceremony.makeCredential(discoverable: true)

    @Test(arguments: [
        (noPINSet, UserVerificationRequirement.discouraged, get, UserVerificationMethod.none),
        (noPINSet, .preferred, get, .none),
        (noPINSet, .preferred, make, .none),
        (noPINSet, .discouraged, makeDiscoverable, .none),
        (pinSet, .discouraged, get, .none),
        (pinSet, .discouraged, make, .pin),  // CTAP 2.0 key with PIN needs it for makeCredential
        (pinSetNoUVNeeded, .discouraged, make, .none),
        // makeCredUvNotRqd covers non-discoverable credentials only.
        (pinSetNoUVNeeded, .discouraged, makeDiscoverable, .pin),
        (builtInUVNoUVNeeded, .discouraged, makeDiscoverable, .builtIn),
        (builtInUVNoUVNeeded, .discouraged, make, .none),
        (pinSet, .preferred, get, .pin),
        (pinSet, .required, get, .pin),
        (builtInUV, .preferred, get, .builtIn),
        (builtInUV, .required, make, .builtIn),
        (alwaysUV, .discouraged, get, .pin),
    ])
    func methodFollowsRequirementAndKeyOptions(
        options: [String: Bool], requirement: UserVerificationRequirement,
        ceremony: UserVerificationPolicy.Ceremony, expected: UserVerificationMethod
    ) throws {
        let method = try UserVerificationPolicy.method(for: requirement, info: Self.info(options), ceremony: ceremony)
        #expect(method == expected)
    }

    @Test func requiredOnAKeyWithoutPINSetSaysAPINCouldBeSet() {
        #expect(throws: UserVerificationPolicyError.notConfigured(pinSupported: true)) {
            try UserVerificationPolicy.method(for: .required, info: Self.info(Self.noPINSet), ceremony: Self.make)
        }
    }

    @Test func requiredOnAKeyWithoutAnyUVIsRefused() {
        #expect(throws: UserVerificationPolicyError.notConfigured(pinSupported: false)) {
            try UserVerificationPolicy.method(for: .required, info: Self.info(Self.noUVAtAll), ceremony: Self.get)
        }
    }

    @Test func ctap20KeysWithoutAlgorithmListSupportES256() {
        #expect(AuthenticatorInfo().supportedAlgorithms == [-7])
    }
}
