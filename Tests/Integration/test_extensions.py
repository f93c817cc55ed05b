"""WebAuthn extensions through the real host and SoftToken: prf, hmacCreateSecret/hmacGetSecret, credBlob,
credProtect, minPinLength, largeBlob. Every ceremony is verified by py_webauthn; authenticator-data extension
outputs are read with python-fido2's parser, independently of the host."""

import hashlib

import pytest
from fido2.webauthn import AttestationObject, AuthenticatorData

from bridge import NOT_ALLOWED_TEXT, b64url, binary, create_token, decode_binary
from rp import ORIGIN, creation_options, request_options, verify_authentication, verify_registration


def create(host, request_id="c-1", **overrides):
    options, challenge = creation_options(**overrides)
    reply, _ = host.request({"id": request_id, "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    verified = verify_registration(reply["credential"], challenge)
    return reply["credential"], verified


def get(host, verified_list, request_id="g-1", allow=None, **overrides):
    """Signs in and verifies with py_webauthn against whichever registered credential answered."""
    options, challenge = request_options(allow=allow, **overrides)
    reply, _ = host.request({"id": request_id, "type": "get", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    credential = reply["credential"]
    raw_id = decode_binary(credential["rawId"])
    verified = next(v for v in verified_list if v.credential_id == raw_id)
    verify_authentication(credential, challenge, verified.credential_public_key, verified.sign_count)
    return credential


def registration_extensions(credential) -> dict:
    attestation = AttestationObject(decode_binary(credential["response"]["attestationObject"]))
    return attestation.auth_data.extensions or {}


def prf_results(credential) -> dict:
    results = credential["clientExtensionResults"]["prf"]["results"]
    return {k: decode_binary(v) for k, v in results.items()}


def prf_get(host, verified, request_id, first: bytes, second: bytes | None = None):
    values = {"first": binary(first)}
    if second is not None:
        values["second"] = binary(second)
    return get(host, [verified], request_id, allow=[verified.credential_id], extensions={"prf": {"eval": values}})


def test_prf_create_reports_enabled_and_hmac_secret_is_in_authenticator_data(launch, token):
    host = launch(token)
    credential, _ = create(host, extensions={"prf": {"eval": {"first": binary(b"ignored at create")}}})
    assert credential["clientExtensionResults"] == {"prf": {"enabled": True}}
    assert registration_extensions(credential) == {"hmac-secret": True}


def test_prf_is_deterministic_and_input_dependent(launch, token):
    host = launch(token)
    _, verified = create(host, extensions={"prf": {}})
    a1 = prf_results(prf_get(host, verified, "g-1", b"input a", b"input b"))
    a2 = prf_results(prf_get(host, verified, "g-2", b"input a", b"input b"))
    b = prf_results(prf_get(host, verified, "g-3", b"input b"))
    assert a1 == a2
    assert len(a1["first"]) == 32 and len(a1["second"]) == 32
    assert a1["first"] != a1["second"]
    assert b["first"] == a1["second"]
    assert set(b) == {"first"}


def test_prf_equals_raw_hmac_get_secret_of_the_prf_salt(launch, token):
    host = launch(token)
    credential, verified = create(host, extensions={"hmacCreateSecret": True})
    assert credential["clientExtensionResults"] == {"hmacCreateSecret": True}
    prf = prf_results(prf_get(host, verified, "g-1", b"x", b"y"))
    salt = lambda data: hashlib.sha256(b"WebAuthn PRF\x00" + data).digest()  # noqa: E731
    raw = get(host, [verified], "g-2", allow=[verified.credential_id],
              extensions={"hmacGetSecret": {"salt1": binary(salt(b"x")), "salt2": binary(salt(b"y"))}})
    outputs = raw["clientExtensionResults"]["hmacGetSecret"]
    assert decode_binary(outputs["output1"]) == prf["first"]
    assert decode_binary(outputs["output2"]) == prf["second"]


def test_prf_eval_by_credential_picks_the_credential_the_key_answers_with(launch, token, tmp_path):
    other_token = create_token(tmp_path / "other.state")
    other_host = launch(other_token)
    _, foreign = create(other_host, "c-0", extensions={"prf": {}})  # on another key: this key cannot answer with it
    host = launch(token)
    _, first = create(host, "c-1", user_id=b"u1", extensions={"prf": {}})
    _, second = create(host, "c-2", user_id=b"u2", extensions={"prf": {}})
    values = {first.credential_id: b"for the first", second.credential_id: b"for the second",
              foreign.credential_id: b"for the foreign"}
    for index, mine in enumerate([first, second]):
        expected = prf_results(prf_get(host, mine, f"e-{index}", values[mine.credential_id]))
        allow = [foreign.credential_id, mine.credential_id]
        by_credential = {b64url(c): {"first": binary(values[c])} for c in allow}
        # Of the two allowed credentials the key holds only `mine`: the host must find it first and send
        # that credential's own PRF input.
        credential = get(host, [first, second], f"g-{index}", allow=allow,
                         extensions={"prf": {"evalByCredential": by_credential}})
        assert decode_binary(credential["rawId"]) == mine.credential_id
        assert prf_results(credential) == expected


# Each refusal of an input the request cannot use, with Chromium 156's name and words: Blink's
# authentication_credentials_container.cc (create(), ForwardRequestToAuthenticator, validateGetPublicKeyCredential-
# PRFExtension) and, for largeBlob's read with write and a write without one allowed credential,
# authenticator_common_impl.cc (AuthenticatorStatusToDOMException gives the text).
INPUT_REFUSALS = [
    ("create", "allowed", {"appid": ""}, "NotSupportedError", "The 'appid' extension is only valid when requesting an "
     "assertion for a pre-existing credential that was registered using the legacy FIDO U2F API."),
    ("create", "allowed", {"prf": {"evalByCredential": {b64url(b"id"): {"first": binary(b"x")}}}},
     "NotSupportedError", "The 'evalByCredential' field cannot be set when creating a credential."),
    ("create", "allowed", {"largeBlob": {"read": True}},
     "NotSupportedError", "The 'largeBlob' extension's 'read' parameter is only valid when requesting an assertion"),
    ("create", "allowed", {"largeBlob": {"write": binary(b"x")}},
     "NotSupportedError", "The 'largeBlob' extension's 'write' parameter is only valid when requesting an assertion"),
    ("get", "none", {"prf": {"evalByCredential": {b64url(b"id"): {"first": binary(b"x")}}}},
     "NotSupportedError", "'prf' extension has 'evalByCredential' with an empty allow list"),
    ("get", "allowed", {"prf": {"evalByCredential": {b64url(b"not-in-allow-list"): {"first": binary(b"x")}}}},
     "SyntaxError", "'prf' extension contains 'evalByCredential' key that doesn't match any in allowedCredentials"),
    ("get", "allowed", {"prf": {"evalByCredential": {"": {"first": binary(b"x")}}}},
     "SyntaxError", "'prf' extension contains an empty credential ID in 'evalByCredential'"),
    ("get", "allowed", {"prf": {"evalByCredential": {"a": {"first": binary(b"x")}}}},
     "SyntaxError", "'prf' extension contains invalid base64url data in 'evalByCredential'"),
    ("get", "allowed", {"largeBlob": {"support": "required"}},
     "NotSupportedError", "The 'largeBlob' extension's 'support' parameter is only valid when creating a credential"),
    ("get", "allowed", {"largeBlob": {"read": True, "write": binary(b"x")}},
     "NotSupportedError", "Only one of the 'largeBlob' extension's 'read' and 'write' parameters is allowed at a time"),
    ("get", "none", {"largeBlob": {"write": binary(b"x")}}, "NotSupportedError",
     "The 'largeBlob' extension's 'write' parameter can only be used with a single credential present on 'allowCredentials'"),
]


@pytest.mark.parametrize("kind,allow,extensions,name,message", INPUT_REFUSALS,
                         ids=[f"{c[0]}-{next(iter(c[2]))}-{i}" for i, c in enumerate(INPUT_REFUSALS)])
def test_an_input_the_request_cannot_use_is_refused_in_chromiums_words(launch, token, kind, allow, extensions,
                                                                         name, message):
    host = launch(token)
    if kind == "create":
        options, _ = creation_options(extensions=extensions)
    else:
        options, _ = request_options(allow=[b"\x01" * 16] if allow == "allowed" else [], extensions=extensions)
    reply, statuses = host.request({"id": "r-1", "type": kind, "origin": ORIGIN, "options": options})
    assert reply["error"] == {"name": name, "message": message} and "detail" not in reply, reply
    assert statuses == [], "refused before any key is asked"


def test_hmac_get_secret_salts_must_be_32_bytes(launch, token):
    host = launch(token)
    _, verified = create(host, extensions={"hmacCreateSecret": True})
    options, _ = request_options(allow=[verified.credential_id], extensions={"hmacGetSecret": {"salt1": binary(b"short")}})
    reply, _ = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == "TypeError", reply


def test_cred_blob_round_trips(launch, token):
    host = launch(token)
    credential, verified = create(host, extensions={"credBlob": binary(b"small blob")},
                                  authenticatorSelection={"residentKey": "required"})
    assert credential["clientExtensionResults"] == {"credBlob": True}
    assert registration_extensions(credential) == {"credBlob": True}
    got = get(host, [verified], allow=[verified.credential_id], extensions={"getCredBlob": True})
    assert decode_binary(got["clientExtensionResults"]["getCredBlob"]) == b"small blob"


def test_cred_blob_longer_than_the_key_allows_is_not_stored(launch, token):
    host = launch(token)
    credential, _ = create(host, extensions={"credBlob": binary(b"x" * 33)},
                           authenticatorSelection={"residentKey": "required"})
    assert credential["clientExtensionResults"] == {"credBlob": False}


@pytest.mark.parametrize("policy,level", [("userVerificationOptional", 1),
                                          ("userVerificationOptionalWithCredentialIDList", 2),
                                          ("userVerificationRequired", 3)])
def test_cred_protect_level_is_in_authenticator_data(launch, tmp_path, policy, level):
    token = create_token(tmp_path / "uv.state", "--uv")
    host = launch(token)
    credential, verified = create(host, extensions={"credentialProtectionPolicy": policy,
                                                    "enforceCredentialProtectionPolicy": True},
                                  authenticatorSelection={"residentKey": "required", "userVerification": "required"})
    assert registration_extensions(credential) == {"credProtect": level}
    get(host, [verified], allow=[verified.credential_id], userVerification="required")


def test_min_pin_length_request_is_accepted_and_verifies(launch, token):
    host = launch(token)
    credential, _ = create(host, extensions={"minPinLength": True, "credProps": True},
                           authenticatorSelection={"residentKey": "required"})
    # The SoftToken's minPinLengthRPIDs list is empty, so the key returns no value for this RP.
    assert credential["clientExtensionResults"] == {"credProps": {"rk": True}}


def test_min_pin_length_is_reported_to_an_rp_the_key_trusts(launch, token):
    import json

    state = json.loads(token.read_text())
    state["configuration"]["minPINLengthRPIDs"] = ["example.com"]
    token.write_text(json.dumps(state))
    host = launch(token)
    credential, _ = create(host, extensions={"minPinLength": True})
    assert registration_extensions(credential) == {"minPinLength": 4}
    assert credential["clientExtensionResults"] == {"minPinLength": 4}


def test_unknown_extensions_are_ignored(launch, token):
    host = launch(token)
    credential, verified = create(host, extensions={"somethingNew": {"a": 1}, "credProps": True})
    assert credential["clientExtensionResults"] == {"credProps": {"rk": False}}
    got = get(host, [verified], allow=[verified.credential_id], extensions={"somethingNew": True})
    assert got["clientExtensionResults"] == {}


def test_large_blob_write_then_read_returns_the_bytes(launch, tmp_path):
    token = create_token(tmp_path / "uv.state", "--uv")
    host = launch(token)
    credential, verified = create(host, extensions={"largeBlob": {"support": "required"}},
                                  authenticatorSelection={"residentKey": "required"})
    assert credential["clientExtensionResults"] == {"largeBlob": {"supported": True}}
    blob = b"certificate bytes \x00\x01\x02" * 8
    written = get(host, [verified], "g-1", allow=[verified.credential_id], extensions={"largeBlob": {"write": binary(blob)}})
    assert written["clientExtensionResults"] == {"largeBlob": {"written": True}}
    read = get(host, [verified], "g-2", extensions={"largeBlob": {"read": True}})
    assert decode_binary(read["clientExtensionResults"]["largeBlob"]["blob"]) == blob


PIN_BLOB = b"written with a PIN-derived largeBlobWrite token"


def test_large_blob_write_with_a_pin_gets_a_large_blob_write_token(launch, tmp_path, pinentry):
    token = create_token(tmp_path / "pin.state", "--pin", "1234")
    env, answers, _ = pinentry
    answers(*["pin 1234"] * 4)
    host = launch(token, env=env)
    credential, verified = create(host, extensions={"largeBlob": {"support": "preferred"}},
                                  authenticatorSelection={"residentKey": "required"})
    assert credential["clientExtensionResults"] == {"largeBlob": {"supported": True}}
    # userVerification "discouraged" would send no PIN; the write still needs a token, so the host verifies.
    written = get(host, [verified], "g-1", allow=[verified.credential_id], userVerification="discouraged",
                  extensions={"largeBlob": {"write": binary(PIN_BLOB)}})
    assert written["clientExtensionResults"] == {"largeBlob": {"written": True}}
    read = get(host, [verified], "g-2", allow=[verified.credential_id], userVerification="discouraged",
               extensions={"largeBlob": {"read": True}})
    assert decode_binary(read["clientExtensionResults"]["largeBlob"]["blob"]) == PIN_BLOB


@pytest.mark.parametrize("blob", [b"", b"tiny", b"A" * 600], ids=["empty", "tiny", "repetitive"])
def test_large_blob_that_deflates_below_16_bytes_is_still_written(launch, tmp_path, blob):
    """libfido2 1.12's fido_dev_largeblob_set deflates the blob and then refuses to AES-GCM-seal fewer than 16
    bytes ("aes256_gcm: invalid input len 5"); the host then seals the entry itself and writes the array."""
    token = create_token(tmp_path / "uv.state", "--uv")
    host = launch(token)
    _, verified = create(host, extensions={"largeBlob": {"support": "required"}},
                         authenticatorSelection={"residentKey": "required"})
    for index, value in enumerate([b"a first, longer value that libfido2 seals itself", blob]):
        written = get(host, [verified], f"w-{index}", allow=[verified.credential_id],
                      extensions={"largeBlob": {"write": binary(value)}})
        assert written["clientExtensionResults"] == {"largeBlob": {"written": True}}
        read = get(host, [verified], f"r-{index}", allow=[verified.credential_id], extensions={"largeBlob": {"read": True}})
        assert decode_binary(read["clientExtensionResults"]["largeBlob"]["blob"]) == value


@pytest.mark.parametrize("flags,extensions", [
    (["--no-rk"], {"largeBlob": {"support": "required"}}),
    (["--profile", "es256-only"], {"largeBlob": {"support": "required"}}),
    (["--profile", "ctap20"], {"credentialProtectionPolicy": "userVerificationOptionalWithCredentialIDList",
                                 "enforceCredentialProtectionPolicy": True}),
], ids=["large-blob-without-discoverable", "large-blob-without-large-blobs", "enforced-cred-protect"])
def test_what_the_key_cannot_do_is_chromiums_not_allowed_after_a_touch(launch, tmp_path, flags, extensions):
    # Chromium's IsCandidateAuthenticatorPostTouch: kAuthenticatorMissingLargeBlob, or kAuthenticatorMissingResidentKeys
    # for an enforced credProtect, once the key is touched; both NOT_ALLOWED_ERROR with Blink's fixed text.
    host = launch(create_token(tmp_path / "limited.state", *flags, "--presence", "delay:300"))
    options, _ = creation_options(extensions=extensions, authenticatorSelection={"residentKey": "preferred"})
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["error"] == {"name": "NotAllowedError", "message": NOT_ALLOWED_TEXT}, reply
    assert "security key" in reply["detail"] and "touch" in [s["status"] for s in statuses], (reply, statuses)


def test_secrets_never_reach_the_trace_log(launch, tmp_path):
    token = create_token(tmp_path / "uv.state", "--uv")
    host = launch(token, log_level="trace")
    _, verified = create(host, extensions={"prf": {}, "largeBlob": {"support": "required"}},
                         authenticatorSelection={"residentKey": "required"})
    prf = prf_results(prf_get(host, verified, "g-1", b"secret input", b"second input"))
    blob = b"top secret blob contents 0123456789"
    get(host, [verified], "g-2", allow=[verified.credential_id], extensions={"largeBlob": {"write": binary(blob)}})
    read = get(host, [verified], "g-3", allow=[verified.credential_id], extensions={"largeBlob": {"read": True}})
    assert decode_binary(read["clientExtensionResults"]["largeBlob"]["blob"]) == blob
    host.close()
    log = host.log()
    # The trace is there, decoded, with the secret-bearing members redacted.
    assert "libfido2: CTAP → authenticatorGetAssertion {" in log
    assert "libfido2: CTAP → authenticatorLargeBlobs {" in log
    assert '"hmac-secret": <redacted>' in log and ": <redacted>" in log
    salts = [hashlib.sha256(b"WebAuthn PRF\x00" + value).digest() for value in (b"secret input", b"second input")]
    for secret in (prf["first"], prf["second"], blob, *salts, b"secret input", b"second input"):
        for form in (secret.hex(), secret.hex().upper(), b64url(secret), secret[:16].hex()):
            assert form not in log, f"secret leaked to the log as {form}"
    assert "top secret blob" not in log


APPID = "https://example.com/u2f-appid.json"


def mint_u2f_style_credential(token_path, rp_id: str):
    """A non-discoverable credential bound to SHA-256(rp_id), as a U2F registration under the AppID `rp_id`
    leaves on a key. The SoftToken has no CTAP1/U2F interface and the host (rightly) refuses an AppID URL as
    rp.id, so the test seals the credential ID itself with the token's wrapping key, in the SoftToken's
    documented format (Sources/SoftToken/CredentialID.swift): 0x01 ‖ nonce ‖ AES-256-GCM(CBOR secrets, aad=rpIdHash).
    Returns (credential_id, COSE public key bytes)."""
    import base64
    import json
    import os

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from fido2 import cbor
    from fido2.cose import ES256

    state = json.loads(token_path.read_text())
    wrapping_key = base64.b64decode(state["wrappingKey"])
    private = ec.generate_private_key(ec.SECP256R1())
    pkcs8 = private.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    secrets = cbor.encode({1: -7, 2: pkcs8, 3: 1, 4: os.urandom(32), 5: os.urandom(32), 8: False})
    nonce = os.urandom(12)
    sealed = AESGCM(wrapping_key).encrypt(nonce, secrets, hashlib.sha256(rp_id.encode()).digest())
    public = cbor.encode(ES256.from_cryptography_key(private.public_key()))
    return b"\x01" + nonce + sealed, public


def test_appid_signs_in_with_a_u2f_style_credential(launch, token):
    from rp import verify_authentication as verify

    credential_id, public_key = mint_u2f_style_credential(token, APPID)
    host = launch(token)
    options, challenge = request_options(allow=[credential_id], extensions={"appid": APPID})
    reply, _ = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    assert reply["credential"]["clientExtensionResults"] == {"appid": True}
    auth_data = AuthenticatorData(decode_binary(reply["credential"]["response"]["authenticatorData"]))
    assert auth_data.rp_id_hash == hashlib.sha256(APPID.encode()).digest()
    # The RP verifies against its AppID, as a U2F-era RP does.
    verify(reply["credential"], challenge, public_key, 0, rp_id=APPID)

    # Without the extension the credential is not found under example.com.
    options, _ = request_options(allow=[credential_id])
    reply, _ = host.request({"id": "g-2", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == "NotAllowedError", reply


def test_appid_is_false_when_the_credential_belongs_to_the_rp_id(launch, token):
    host = launch(token)
    _, verified = create(host)
    got = get(host, [verified], allow=[verified.credential_id], extensions={"appid": APPID})
    assert got["clientExtensionResults"] == {"appid": False}


def test_appid_of_another_site_is_a_security_error(launch, token):
    host = launch(token)
    for index, appid in enumerate(["https://evil.example.org/appid.json", "http://example.com/appid.json", "not a url"]):
        options, _ = request_options(allow=[b"x" * 32], extensions={"appid": appid})
        reply, _ = host.request({"id": f"g-{index}", "type": "get", "origin": ORIGIN, "options": options})
        assert reply["error"]["name"] == "SecurityError", (appid, reply)


def test_appid_exclude_refuses_a_key_with_the_u2f_credential(launch, token):
    credential_id, _ = mint_u2f_style_credential(token, APPID)
    host = launch(token)
    exclude = [{"type": "public-key", "id": binary(credential_id)}]
    options, _ = creation_options(excludeCredentials=exclude, extensions={"appidExclude": APPID})
    reply, _ = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "error" and reply["error"]["name"] == "InvalidStateError", reply
    # Without appidExclude the U2F credential does not match example.com and registration goes ahead.
    credential, _ = create(host, "c-2", excludeCredentials=exclude)
    credential, _ = create(host, "c-3", extensions={"appidExclude": APPID})
    assert credential["clientExtensionResults"] == {"appidExclude": True}
