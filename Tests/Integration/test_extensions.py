"""WebAuthn extensions through the real host and SoftToken (issue 6); every ceremony verified by py_webauthn,
authenticator data decoded by python-fido2."""

import hashlib
import os

import pytest
from fido2.webauthn import AttestationObject, AuthenticatorData

from bridge import b64url, binary, create_token, decode_binary
from rp import ORIGIN, creation_options, request_options, verify_authentication, verify_registration

RK = {"authenticatorSelection": {"residentKey": "required"}}


def register(host, request_id="c-1", **overrides):
    options, challenge = creation_options(**overrides)
    reply, _ = host.request({"id": request_id, "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    verified = verify_registration(reply["credential"], challenge)
    return reply["credential"], verified


def sign_in(host, verified, request_id="g-1", allow=None, **overrides):
    allow = [verified.credential_id] if allow is None else allow
    options, challenge = request_options(allow=allow, **overrides)
    reply, _ = host.request({"id": request_id, "type": "get", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    verify_authentication(reply["credential"], challenge, verified.credential_public_key, 0,
                          require_uv=overrides.get("userVerification") == "required")
    return reply["credential"]


def authenticator_extensions(credential) -> dict:
    attestation = AttestationObject(decode_binary(credential["response"]["attestationObject"]))
    return attestation.auth_data.extensions or {}


def prf_first(credential) -> bytes:
    return decode_binary(credential["clientExtensionResults"]["prf"]["results"]["first"])


def test_prf_is_enabled_at_create_and_deterministic_per_input(launch, token):
    host = launch(token)
    credential, verified = register(host, extensions={"prf": {}})
    assert credential["clientExtensionResults"]["prf"] == {"enabled": True}
    a1 = prf_first(sign_in(host, verified, "g-1", extensions={"prf": {"eval": {"first": binary(b"input A")}}}))
    a2 = prf_first(sign_in(host, verified, "g-2", extensions={"prf": {"eval": {"first": binary(b"input A")}}}))
    b = prf_first(sign_in(host, verified, "g-3", extensions={"prf": {"eval": {"first": binary(b"input B")}}}))
    assert len(a1) == 32 and a1 == a2 and a1 != b


def test_prf_second_output_and_equality_with_raw_hmac_secret(launch, token):
    host = launch(token)
    _, verified = register(host, extensions={"prf": {}})
    both = sign_in(host, verified, "g-1", extensions={"prf": {"eval": {"first": binary(b"x"), "second": binary(b"y")}}})
    results = both["clientExtensionResults"]["prf"]["results"]
    salt = lambda data: hashlib.sha256(b"WebAuthn PRF\x00" + data).digest()  # noqa: E731
    raw = sign_in(host, verified, "g-2", extensions={"hmacGetSecret": {"salt1": binary(salt(b"x")), "salt2": binary(salt(b"y"))}})
    outputs = raw["clientExtensionResults"]["hmacGetSecret"]
    assert results["first"] == outputs["output1"]
    assert results["second"] == outputs["output2"]
    assert results["first"] != results["second"]


def test_prf_eval_by_credential_uses_the_credential_the_key_holds(launch, token):
    host = launch(token)
    _, verified = register(host, extensions={"prf": {}})
    foreign = os.urandom(48)
    by_credential = {b64url(foreign): {"first": binary(b"wrong")}, b64url(verified.credential_id): {"first": binary(b"right")}}
    chosen = sign_in(host, verified, "g-1", allow=[foreign, verified.credential_id],
                     extensions={"prf": {"evalByCredential": by_credential}})
    expected = sign_in(host, verified, "g-2", extensions={"prf": {"eval": {"first": binary(b"right")}}})
    assert prf_first(chosen) == prf_first(expected)


@pytest.mark.parametrize("allow_foreign,name", [(True, "SyntaxError"), (None, "NotSupportedError")])
def test_prf_eval_by_credential_errors(launch, token, allow_foreign, name):
    host = launch(token)
    options, _ = request_options(allow=[os.urandom(16)] if allow_foreign else [],
                                 extensions={"prf": {"evalByCredential": {b64url(b"not-allowed"): {"first": binary(b"x")}}}})
    reply, statuses = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == name, reply
    assert statuses == []


def test_hmac_create_secret_reports_what_the_key_did(launch, token):
    host = launch(token)
    credential, _ = register(host, extensions={"hmacCreateSecret": True})
    assert credential["clientExtensionResults"] == {"hmacCreateSecret": True}
    assert authenticator_extensions(credential)["hmac-secret"] is True


def test_cred_blob_round_trips(launch, token):
    host = launch(token)
    credential, verified = register(host, extensions={"credBlob": binary(b"blob-123")}, **RK)
    assert credential["clientExtensionResults"] == {"credBlob": True}
    got = sign_in(host, verified, extensions={"getCredBlob": True})
    assert decode_binary(got["clientExtensionResults"]["getCredBlob"]) == b"blob-123"


@pytest.mark.parametrize("policy,level", [("userVerificationOptional", 1),
                                          ("userVerificationOptionalWithCredentialIDList", 2),
                                          ("userVerificationRequired", 3)])
def test_cred_protect_level_is_in_authenticator_data(launch, token, policy, level):
    host = launch(token)
    credential, _ = register(host, extensions={"credentialProtectionPolicy": policy, "enforceCredentialProtectionPolicy": True}, **RK)
    assert authenticator_extensions(credential)["credProtect"] == level


def test_uv_required_credential_is_not_found_without_uv(launch, token):
    host = launch(token)
    register(host, extensions={"credentialProtectionPolicy": "userVerificationRequired"}, **RK)
    options, _ = request_options()
    reply, _ = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == "NotAllowedError"


def test_large_blob_write_then_read(launch, tmp_path, pinentry):
    # Writing needs a PIN/UV token with the largeBlobWrite permission (libfido2 1.12 asks for one always).
    env, answers, _ = pinentry
    answers("pin 123456", "pin 123456", "pin 123456")  # create, write, read: uv "preferred" uses the PIN each time
    host = launch(create_token(tmp_path / "pin.state", "--pin", "123456"), env=env)
    credential, verified = register(host, extensions={"largeBlob": {"support": "required"}}, **RK)
    assert credential["clientExtensionResults"] == {"largeBlob": {"supported": True}}
    payload = os.urandom(300)
    wrote = sign_in(host, verified, "g-1", extensions={"largeBlob": {"write": binary(payload)}})
    assert wrote["clientExtensionResults"] == {"largeBlob": {"written": True}}
    read = sign_in(host, verified, "g-2", extensions={"largeBlob": {"read": True}})
    assert decode_binary(read["clientExtensionResults"]["largeBlob"]["blob"]) == payload


def test_large_blob_read_and_write_together_is_not_supported(launch, token):
    host = launch(token)
    options, _ = request_options(allow=[os.urandom(16)], extensions={"largeBlob": {"read": True, "write": binary(b"x")}})
    reply, _ = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == "NotSupportedError"


def test_unknown_extensions_are_ignored(launch, token):
    host = launch(token)
    credential, _ = register(host, extensions={"totallyUnknown": {"x": 1}, "credProps": True})
    assert credential["clientExtensionResults"] == {"credProps": {"rk": False}}


def test_no_prf_output_or_blob_reaches_the_log_at_trace_level(launch, tmp_path, pinentry):
    env, answers, _ = pinentry
    answers("pin 123456", "pin 123456", "pin 123456")
    host = launch(create_token(tmp_path / "pin.state", "--pin", "123456"), env=env, log_level="trace")
    _, verified = register(host, extensions={"prf": {}, "largeBlob": {"support": "required"}}, **RK)
    first = prf_first(sign_in(host, verified, "g-1", extensions={"prf": {"eval": {"first": binary(b"secret input")}}}))
    payload = os.urandom(64)
    sign_in(host, verified, "g-2", extensions={"largeBlob": {"write": binary(payload)}})
    host.close()
    log = host.log()
    assert "libfido2:" in log
    for secret in (first, payload):
        for form in (secret.hex(), b64url(secret), secret.hex(" ")):
            assert form not in log
