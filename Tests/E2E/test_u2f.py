"""A U2F-only key (no CTAP2) in both browsers: registration with fido-u2f attestation and sign-in, verified by the
RP with py_webauthn; a passkey request refused as Chromium refuses it; and a site that moved from the U2F API
signing in with the credential the user registered under its AppID (the appid extension). docs/keys.md."""

import json
import subprocess

from webauthn.helpers import parse_authenticator_data

TOKEN_ARGS = ("--profile", "u2f-only")
# The AppID a U2F-era site registered under; the host accepts an https AppID whose host is the rp.id.
APPID = "https://localhost/u2f-appid.json"


def assert_verified(result: dict, what: str):
    assert result.get("ok"), f"{what} failed in the page: {result}"
    assert result["verdict"].get("verified") is True, f"the RP refused the {what}: {result['verdict']}"


def test_registers_with_fido_u2f_attestation_and_signs_in(browser):
    user = browser.new_user("ursula")
    registered = browser.rp("register", username=user, attestation="direct")
    assert_verified(registered, "registration")
    assert registered["verdict"]["fmt"] == "fido-u2f", registered["verdict"]
    assert registered["shape"]["publicKeyAlgorithm"] == -7
    for _ in range(2):
        signed_in = browser.rp("signIn", username=user)
        assert_verified(signed_in, "assertion")
        assert signed_in["verdict"]["credentialId"] == registered["verdict"]["credentialId"]
    assert signed_in["verdict"]["signCount"] == 2


def test_a_passkey_request_is_not_allowed(browser):
    result = browser.rp("register", username=browser.new_user("petra"), residentKey="required")
    assert result.get("ok") is False and result["name"] == "NotAllowedError", result


def test_signs_in_with_a_credential_registered_over_u2f_under_the_appid(browser, host, rp_server):
    user = browser.new_user("victor")
    made = json.loads(subprocess.run(
        [str(host), "token", "u2f-register", str(browser.token), "--appid", APPID],
        check=True, capture_output=True, text=True, timeout=30).stdout)
    assert made["format"] == "fido-u2f"
    credential_id = decode(made["credentialId"])
    public_key = parse_authenticator_data(decode(made["authenticatorData"])).attested_credential_data.credential_public_key
    rp_server.rp.import_u2f_credential(user, credential_id, public_key, APPID)

    signed_in = browser.rp("signIn", username=user, appid=APPID)
    assert_verified(signed_in, "AppID assertion")
    assert signed_in["shape"]["clientExtensionResults"] == {"appid": True}


def decode(text: str) -> bytes:
    import base64
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
