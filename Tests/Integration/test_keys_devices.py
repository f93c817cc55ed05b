"""`webauthn-bridge devices` says, for each kind of key, what it can do and what the bridge will do with it."""

import json
import os
import subprocess

import pytest

from bridge import create_token, host_binary


def devices(token, tmp_path, *args):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")}
    environment.update({"WEBAUTHN_BRIDGE_SOFT_TOKEN": str(token), "HOME": str(tmp_path)})
    done = subprocess.run([host_binary(), "devices", *args], capture_output=True, text=True, env=environment, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("profile,pin,summary,behaviour", [
    ("u2f-only", False, "U2F only: no passkeys, no PIN, no user verification; ES256",
     "refuses, after a touch, requests that need a passkey or user verification"),
    ("ctap20", True, "CTAP 2.0 and U2F, passkeys, PIN set, PRF, no largeBlob, ES256",
     "asks for the PIN for every registration"),
    ("no-rk", False, "CTAP 2.0 and U2F, no passkeys, PIN not set",
     "residentKey \"required\" is refused after a touch"),
    ("bio", True, "built-in UV (fingerprint)", "and with the PIN once the fingerprint is blocked"),
    ("always-uv", True, "alwaysUv", "for every registration and sign-in"),
    ("small-limits", False, "CTAP 2.1, passkeys, PIN not set", "longer than 2 in silent batches"),
])
def test_devices_says_what_the_key_can_do_and_what_the_bridge_does(tmp_path, profile, pin, summary, behaviour):
    token = create_token(tmp_path / "t.state", "--profile", profile, *(["--pin", "1234"] if pin else []))
    text = devices(token, tmp_path)
    assert summary in text, text
    assert behaviour in text and "    the bridge " in text, text
    assert ("PIN: not supported by this key" in text) == (profile == "u2f-only"), text
    [report] = json.loads(devices(token, tmp_path, "--json"))
    assert summary in report["capabilities"]
    assert any(behaviour in line for line in report["bridgeBehaviour"]), report
