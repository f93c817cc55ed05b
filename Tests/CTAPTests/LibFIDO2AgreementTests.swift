import CFIDO2
import Testing

@testable import CTAP

/// The CTAP bytes are written twice on this machine: once in the CTAP module, once in libfido2's headers
/// (fido/err.h, fido/param.h), which the host links against. A byte that differs fails here.
struct LibFIDO2AgreementTests {
    /// Every status libfido2 names, with the case that must carry the same byte.
    static let statuses: [(CTAPStatus, Int32)] = [
        (.ok, FIDO_ERR_SUCCESS), (.invalidCommand, FIDO_ERR_INVALID_COMMAND),
        (.invalidParameter, FIDO_ERR_INVALID_PARAMETER), (.invalidLength, FIDO_ERR_INVALID_LENGTH),
        (.invalidSequence, FIDO_ERR_INVALID_SEQ), (.timeout, FIDO_ERR_TIMEOUT), (.channelBusy, FIDO_ERR_CHANNEL_BUSY),
        (.lockRequired, FIDO_ERR_LOCK_REQUIRED), (.invalidChannel, FIDO_ERR_INVALID_CHANNEL),
        (.cborUnexpectedType, FIDO_ERR_CBOR_UNEXPECTED_TYPE), (.invalidCBOR, FIDO_ERR_INVALID_CBOR),
        (.missingParameter, FIDO_ERR_MISSING_PARAMETER), (.limitExceeded, FIDO_ERR_LIMIT_EXCEEDED),
        (.fingerprintDatabaseFull, FIDO_ERR_FP_DATABASE_FULL),
        (.largeBlobStorageFull, FIDO_ERR_LARGEBLOB_STORAGE_FULL),
        (.credentialExcluded, FIDO_ERR_CREDENTIAL_EXCLUDED), (.processing, FIDO_ERR_PROCESSING),
        (.invalidCredential, FIDO_ERR_INVALID_CREDENTIAL), (.userActionPending, FIDO_ERR_USER_ACTION_PENDING),
        (.operationPending, FIDO_ERR_OPERATION_PENDING), (.noOperations, FIDO_ERR_NO_OPERATIONS),
        (.unsupportedAlgorithm, FIDO_ERR_UNSUPPORTED_ALGORITHM), (.operationDenied, FIDO_ERR_OPERATION_DENIED),
        (.keyStoreFull, FIDO_ERR_KEY_STORE_FULL), (.noOperationPending, FIDO_ERR_NO_OPERATION_PENDING),
        (.unsupportedOption, FIDO_ERR_UNSUPPORTED_OPTION), (.invalidOption, FIDO_ERR_INVALID_OPTION),
        (.keepaliveCancel, FIDO_ERR_KEEPALIVE_CANCEL), (.noCredentials, FIDO_ERR_NO_CREDENTIALS),
        (.userActionTimeout, FIDO_ERR_USER_ACTION_TIMEOUT), (.notAllowed, FIDO_ERR_NOT_ALLOWED),
        (.pinInvalid, FIDO_ERR_PIN_INVALID), (.pinBlocked, FIDO_ERR_PIN_BLOCKED),
        (.pinAuthInvalid, FIDO_ERR_PIN_AUTH_INVALID), (.pinAuthBlocked, FIDO_ERR_PIN_AUTH_BLOCKED),
        (.pinNotSet, FIDO_ERR_PIN_NOT_SET), (.puatRequired, FIDO_ERR_PIN_REQUIRED),
        (.pinPolicyViolation, FIDO_ERR_PIN_POLICY_VIOLATION), (.requestTooLarge, FIDO_ERR_REQUEST_TOO_LARGE),
        (.actionTimeout, FIDO_ERR_ACTION_TIMEOUT), (.upRequired, FIDO_ERR_UP_REQUIRED),
        (.uvBlocked, FIDO_ERR_UV_BLOCKED), (.uvInvalid, FIDO_ERR_UV_INVALID),
        (.unauthorizedPermission, FIDO_ERR_UNAUTHORIZED_PERM), (.other, FIDO_ERR_ERR_OTHER),
    ]

    @Test func statusBytesAreLibfido2s() {
        for (status, libfido2) in Self.statuses {
            #expect(Int32(status.rawValue) == libfido2, "\(status)")
        }
    }

    /// The statuses CTAP 2.1 added after libfido2's list: none may take a byte libfido2 gives another status.
    @Test func statusesLibfido2DoesNotNameUseBytesItLeavesFree() {
        let named = Set(Self.statuses.map(\.0))
        let taken = Set(Self.statuses.map(\.1))
        for status in CTAPStatus.allCases where !named.contains(status) {
            #expect(!taken.contains(Int32(status.rawValue)), "\(status)")
        }
    }

    @Test func commandBytesAreLibfido2s() {
        let pairs: [(CTAPCommand, Int32)] = [
            (.makeCredential, CTAP_CBOR_MAKECRED), (.getAssertion, CTAP_CBOR_ASSERT), (.getInfo, CTAP_CBOR_GETINFO),
            (.clientPIN, CTAP_CBOR_CLIENT_PIN), (.reset, CTAP_CBOR_RESET), (.getNextAssertion, CTAP_CBOR_NEXT_ASSERT),
            (.largeBlobs, CTAP_CBOR_LARGEBLOB), (.config, CTAP_CBOR_CONFIG),
            (.bioEnrollmentPreview, CTAP_CBOR_BIO_ENROLL_PRE), (.credentialManagementPreview, CTAP_CBOR_CRED_MGMT_PRE),
        ]
        for (command, libfido2) in pairs {
            #expect(Int32(command.rawValue) == libfido2, "\(command)")
        }
    }

    @Test func ctaphidCommandBytesAreLibfido2s() {
        let pairs: [(CTAPHIDCommand, Int32)] = [
            (.ping, CTAP_CMD_PING), (.msg, CTAP_CMD_MSG), (.lock, CTAP_CMD_LOCK), (.initialize, CTAP_CMD_INIT),
            (.wink, CTAP_CMD_WINK), (.cbor, CTAP_CMD_CBOR), (.cancel, CTAP_CMD_CANCEL),
        ]
        for (command, libfido2) in pairs {
            #expect(Int32(command.rawValue) == libfido2, "\(command)")
        }
    }

    @Test func enrollSampleStatusesAreLibfido2s() {
        let pairs: [(EnrollSampleStatus, Int32)] = [
            (.good, FIDO_BIO_ENROLL_FP_GOOD), (.tooHigh, FIDO_BIO_ENROLL_FP_TOO_HIGH),
            (.tooLow, FIDO_BIO_ENROLL_FP_TOO_LOW), (.tooLeft, FIDO_BIO_ENROLL_FP_TOO_LEFT),
            (.tooRight, FIDO_BIO_ENROLL_FP_TOO_RIGHT), (.tooFast, FIDO_BIO_ENROLL_FP_TOO_FAST),
            (.tooSlow, FIDO_BIO_ENROLL_FP_TOO_SLOW), (.poorQuality, FIDO_BIO_ENROLL_FP_POOR_QUALITY),
            (.tooSkewed, FIDO_BIO_ENROLL_FP_TOO_SKEWED), (.tooShort, FIDO_BIO_ENROLL_FP_TOO_SHORT),
            (.mergeFailure, FIDO_BIO_ENROLL_FP_MERGE_FAILURE), (.exists, FIDO_BIO_ENROLL_FP_EXISTS),
            (.databaseFull, FIDO_BIO_ENROLL_FP_DATABASE_FULL), (.noUserActivity, FIDO_BIO_ENROLL_NO_USER_ACTIVITY),
            (.noUserPresenceTransition, FIDO_BIO_ENROLL_NO_USER_PRESENCE_TRANSITION),
        ]
        #expect(pairs.count == EnrollSampleStatus.allCases.count)
        for (status, libfido2) in pairs {
            #expect(Int32(status.rawValue) == libfido2, "\(status)")
        }
    }

    /// The trace prints these names: each is the spec's, and no two cases share one.
    @Test func namesAreDistinct() {
        #expect(Set(CTAPStatus.allCases.map(\.specName)).count == CTAPStatus.allCases.count)
        #expect(Set(CTAPCommand.allCases.map(\.specName)).count == CTAPCommand.allCases.count)
    }
}
