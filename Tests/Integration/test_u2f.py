"""A U2F-only key (CTAP1: no CBOR capability), reached through libfido2's real U2F code path: registration with
fido-u2f attestation, sign-in, what such a key cannot do refused as Chromium refuses it (after a touch), and the
appid / appidExclude extensions with a credential registered over U2F under the AppID, as sites that moved from
the U2F API to WebAuthn have them. py_webauthn and python-fido2's server verify every credential."""

import hashlib
import json
import subprocess
import time

import pytest
from fido2.server import Fido2Server
from fido2.webauthn import AttestationObject, AuthenticatorData, PublicKeyCredentialRpEntity, RegistrationResponse

from bridge import NOT_ALLOWED_TEXT, binary, create_token, decode_binary, host_binary, unb64url
from rp import ORIGIN, RP_ID, creation_options, request_options, verify_authentication, verify_registration

APPID = "https://example.com/u2f-appid.json"


@pytest.fixture
def u2f_token(tmp_path):
    return create_token(tmp_path / "u2f.state", "--profile", "u2f-only")


def u2f_register(token, appid=APPID) -> dict:
    """A credential registered over U2F_REGISTER under the AppID (`token u2f-register`, through libfido2)."""
    done = subprocess.run([host_binary(), "token", "u2f-register", str(token), "--appid", appid],
                          check=True, capture_output=True, timeout=30, text=True)
    made = json.loads(done.stdout)
    assert made["format"] == "fido-u2f"
    auth_data = AuthenticatorData(unb64url(made["authenticatorData"]))
    assert auth_data.rp_id_hash == hashlib.sha256(appid.encode()).digest()
    made["id"] = unb64url(made["credentialId"])
    made["public_key"] = auth_data.credential_data.public_key
    return made


def create(host, request_id, **options):
    options, challenge = creation_options(**options)
    reply, statuses = host.request({"id": request_id, "type": "create", "origin": ORIGIN, "options": options})
    return reply, challenge, statuses


def get(host, request_id, **options):
    options, challenge = request_options(**options)
    reply, statuses = host.request({"id": request_id, "type": "get", "origin": ORIGIN, "options": options})
    return reply, challenge, statuses


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_registers_with_fido_u2f_attestation_and_signs_in(launch, u2f_token, browser):
    host = launch(u2f_token, browser=browser)
    reply, challenge, _ = create(host, "c-1", attestation="direct", extensions={"credProps": True})
    assert reply["type"] == "result", reply
    credential = reply["credential"]
    verified = verify_registration(credential, challenge)
    assert getattr(verified.fmt, "value", verified.fmt) == "fido-u2f"
    assert verified.aaguid == "00000000-0000-0000-0000-000000000000"
    assert credential["response"]["publicKeyAlgorithm"] == -7
    assert credential["clientExtensionResults"] == {"credProps": {"rk": False}}

    # python-fido2's server verifies the same fido-u2f statement independently.
    server = Fido2Server(PublicKeyCredentialRpEntity(id=RP_ID, name="Example"), attestation="direct")
    state = {"challenge": binary(challenge)["__binary__"], "user_verification": "discouraged"}
    from bridge import to_l3_json
    auth_data = server.register_complete(state, RegistrationResponse.from_dict(to_l3_json(credential)))
    assert auth_data.credential_data.credential_id == verified.credential_id
    statement = AttestationObject(decode_binary(credential["response"]["attestationObject"])).att_stmt
    assert set(statement) >= {"sig", "x5c"}

    for index in range(2):
        reply, challenge, _ = get(host, f"g-{index}", allow=[verified.credential_id])
        assert reply["type"] == "result", reply
        auth = verify_authentication(reply["credential"], challenge, verified.credential_public_key, index)
        assert auth.new_sign_count == index + 1
        assert reply["credential"]["response"].get("userHandle") is None


def expect_not_allowed_after_touch(reply, statuses, started, reason):
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply
    assert reply["error"]["message"] == NOT_ALLOWED_TEXT
    assert reason in reply["detail"], reply["detail"]
    # As Chromium: the key blinks and the user touches it before the page learns it cannot be used.
    assert [s["status"] for s in statuses] == ["touch"], statuses
    assert time.monotonic() - started >= 0.4


@pytest.mark.parametrize("options,reason", [
    ({"authenticatorSelection": {"residentKey": "required"}}, "cannot store passkeys"),
    ({"authenticatorSelection": {"userVerification": "required"}}, "user verification"),
])
def test_create_refuses_what_a_u2f_key_cannot_do_after_a_touch(launch, tmp_path, options, reason):
    host = launch(create_token(tmp_path / "slow.state", "--profile", "u2f-only", "--presence", "delay:400"))
    started = time.monotonic()
    reply, _, statuses = create(host, "c-1", **options)
    expect_not_allowed_after_touch(reply, statuses, started, reason)


@pytest.mark.parametrize("options,reason", [
    ({}, "cannot store passkeys"),
    ({"allow": [b"\x01" * 64], "userVerification": "required"}, "user verification"),
])
def test_get_refuses_what_a_u2f_key_cannot_do_after_a_touch(launch, tmp_path, options, reason):
    host = launch(create_token(tmp_path / "slow.state", "--profile", "u2f-only", "--presence", "delay:400"))
    started = time.monotonic()
    reply, _, statuses = get(host, "g-1", **options)
    expect_not_allowed_after_touch(reply, statuses, started, reason)


def test_exclude_list_hit_is_invalid_state(launch, u2f_token):
    host = launch(u2f_token)
    reply, challenge, _ = create(host, "c-1")
    verified = verify_registration(reply["credential"], challenge)
    exclude = [{"type": "public-key", "id": binary(verified.credential_id)}]
    reply, _, _ = create(host, "c-2", excludeCredentials=exclude)
    assert reply["type"] == "error" and reply["error"]["name"] == "InvalidStateError", reply


def test_prf_and_large_blob_are_reported_unsupported(launch, u2f_token):
    host = launch(u2f_token)
    reply, challenge, _ = create(host, "c-1", extensions={"prf": {}, "largeBlob": {"support": "preferred"}})
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)
    assert reply["credential"]["clientExtensionResults"] == {"prf": {"enabled": False}, "largeBlob": {"supported": False}}


def test_appid_signs_in_with_a_credential_registered_over_u2f(launch, u2f_token):
    registered = u2f_register(u2f_token)
    host = launch(u2f_token)
    reply, challenge, _ = get(host, "g-1", allow=[registered["id"]], extensions={"appid": APPID})
    assert reply["type"] == "result", reply
    assert reply["credential"]["clientExtensionResults"] == {"appid": True}
    auth_data = AuthenticatorData(decode_binary(reply["credential"]["response"]["authenticatorData"]))
    assert auth_data.rp_id_hash == hashlib.sha256(APPID.encode()).digest()
    # The RP checks the assertion against its AppID, as a site that moved from U2F does.
    from fido2 import cbor
    verify_authentication(reply["credential"], challenge, cbor.encode(registered["public_key"]), 0, rp_id=APPID)

    # Without the extension the credential is not the site's under example.com.
    reply, _, _ = get(host, "g-2", allow=[registered["id"]])
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply


def test_appid_is_false_for_a_credential_of_the_rp_id(launch, u2f_token):
    host = launch(u2f_token)
    reply, challenge, _ = create(host, "c-1")
    verified = verify_registration(reply["credential"], challenge)
    reply, challenge, _ = get(host, "g-1", allow=[verified.credential_id], extensions={"appid": APPID})
    assert reply["type"] == "result", reply
    assert reply["credential"]["clientExtensionResults"] == {"appid": False}
    verify_authentication(reply["credential"], challenge, verified.credential_public_key, 0)


def test_appid_exclude_refuses_a_key_holding_the_u2f_credential(launch, u2f_token):
    registered = u2f_register(u2f_token)
    host = launch(u2f_token)
    exclude = [{"type": "public-key", "id": binary(registered["id"])}]
    reply, _, _ = create(host, "c-1", excludeCredentials=exclude, extensions={"appidExclude": APPID})
    assert reply["type"] == "error" and reply["error"]["name"] == "InvalidStateError", reply
    # Without appidExclude the U2F credential is not example.com's, and registration goes ahead.
    reply, challenge, _ = create(host, "c-2", excludeCredentials=exclude)
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)


def test_a_yubikey5_like_key_signs_in_over_ctap2_with_its_u2f_era_credential(launch, tmp_path):
    # A key with both interfaces: the credential made under the AppID is found by CTAP2 getAssertion too.
    token = create_token(tmp_path / "yk.state", "--profile", "yubikey5")
    registered = u2f_register(token)
    host = launch(token)
    reply, challenge, _ = get(host, "g-1", allow=[registered["id"]], extensions={"appid": APPID})
    assert reply["type"] == "result", reply
    assert reply["credential"]["clientExtensionResults"] == {"appid": True}
    from fido2 import cbor
    verify_authentication(reply["credential"], challenge, cbor.encode(registered["public_key"]), 0, rp_id=APPID)


@pytest.mark.parametrize("kind", ["create", "get"])
def test_abort_while_a_u2f_key_waits_for_its_touch_is_an_abort_not_a_credential(launch, tmp_path, kind):
    # libfido2 1.12 cannot cancel a U2F request (fido_dev_cancel refuses U2F keys): the host interrupts its loop
    # (docs/keys.md); an answer the key gives in the same instant is dropped. test_u2f_abort.py: before the touch.
    token = create_token(tmp_path / "u2f.state", "--profile", "u2f-only")
    host = launch(token)
    reply, challenge, _ = create(host, "c-0")
    verified = verify_registration(reply["credential"], challenge)
    host.close()
    # The user is slow from now on (the token file holds the simulated user's behaviour).
    state = json.loads(token.read_text())
    state["configuration"]["presence"] = {"delay": {"milliseconds": 1200}}
    token.write_text(json.dumps(state))
    host = launch(token)
    options = creation_options()[0] if kind == "create" else request_options(allow=[verified.credential_id])[0]
    host.send({"id": "x-1", "type": kind, "origin": ORIGIN, "options": options})
    assert host.recv()["status"] == "touch"
    host.send({"id": "x-1", "type": "cancel"})
    reply, _ = host.final("x-1")
    assert reply["type"] == "error" and reply["error"]["name"] == "AbortError", reply
