"""`webauthn-bridge key pin|config|fingerprints|reset` against python-fido2 on the same SoftToken: python-fido2's
ClientPin, Config, FPBioEnrollment and get_info read back what the bridge's commands did, and the bridge's commands
read back what python-fido2 did. The PIN comes only through the scripted pinentry, never an argument."""

import hashlib
import json
import os
import pty
import subprocess

import pytest
from fido2.ctap import CtapError
from fido2.ctap2 import ClientPin, Config
from fido2.ctap2.bio import FPBioEnrollment

from bridge import create_token, host_binary
from softtoken_hid import open_ctap2

PIN, NEW_PIN = "4321", "87654321"


def environment(token, pinentry):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")}
    env.update(pinentry[0])
    env.update({"WEBAUTHN_BRIDGE_SOFT_TOKEN": str(token), "WEBAUTHN_BRIDGE_LOG_FILE": str(token.with_suffix(".log"))})
    return env


def run_key(token, pinentry, *args, check=True):
    result = subprocess.run([host_binary(), "key", *args], env=environment(token, pinentry), capture_output=True,
                            text=True, timeout=60, stdin=subprocess.DEVNULL)
    if check:
        assert result.returncode == 0, result.stderr
    for secret in (PIN, NEW_PIN):
        assert secret not in result.stdout + result.stderr
        assert secret not in token.with_suffix(".log").read_text() if token.with_suffix(".log").exists() else True
    return result


class Oracle:
    """python-fido2's Ctap2 on the token, opened for each look so it reads the file as the bridge left it."""

    def __init__(self, token):
        self.token = token

    def __enter__(self):
        self.ctap, self.connection = open_ctap2(self.token)
        return self.ctap

    def __exit__(self, *exc):
        self.connection.close()


def pin_token(ctap, pin, permission):
    client_pin = ClientPin(ctap)
    return client_pin, client_pin.get_pin_token(pin, permission)


# PIN

def test_pin_set_is_the_pin_python_fido2_then_uses(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state")
    pinentry[1](f"pin {PIN}", f"pin {PIN}")  # new PIN, asked twice
    out = run_key(token, pinentry, "pin", "set").stdout
    assert "PIN is set" in out
    assert sum(1 for c in pinentry[2]() if c.startswith("GETPIN")) == 2
    assert any(c.startswith("SETDESC") and "first PIN of your security key" in c for c in pinentry[2]())
    with Oracle(token) as ctap:
        assert ctap.get_info().options["clientPin"] is True
        pin_token(ctap, PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL)


def test_pin_set_asks_again_when_the_two_entries_differ(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state")
    pinentry[1](f"pin {PIN}", "pin 9999", f"pin {PIN}", f"pin {PIN}")
    run_key(token, pinentry, "pin", "set")
    with Oracle(token) as ctap:
        pin_token(ctap, PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL)


def test_pin_set_on_a_key_with_a_pin_says_to_change_it(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    failed = run_key(token, pinentry, "pin", "set", check=False)
    assert failed.returncode != 0 and "key pin change" in failed.stderr
    assert pinentry[2]() == []


def test_pin_change_makes_the_old_pin_wrong_for_python_fido2(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    pinentry[1](f"pin {PIN}", f"pin {NEW_PIN}", f"pin {NEW_PIN}")
    assert "PIN is changed" in run_key(token, pinentry, "pin", "change").stdout
    with Oracle(token) as ctap:
        pin_token(ctap, NEW_PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL)
        with pytest.raises(CtapError) as wrong:
            pin_token(ctap, PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL)
        assert wrong.value.code == CtapError.ERR.PIN_INVALID


def test_pin_change_with_a_wrong_current_pin_counts_the_attempts(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    pinentry[1]("pin 0000", f"pin {NEW_PIN}", f"pin {NEW_PIN}")
    failed = run_key(token, pinentry, "pin", "change", check=False)
    assert failed.returncode != 0 and "Wrong PIN. 7 attempts left" in failed.stderr
    with Oracle(token) as ctap:
        pin_token(ctap, PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL)


def test_python_fido2s_pin_change_is_the_pin_the_bridge_asks_for(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    with Oracle(token) as ctap:
        ClientPin(ctap).change_pin(PIN, NEW_PIN)
    pinentry[1](f"pin {NEW_PIN}")
    run_key(token, pinentry, "passkeys")


# authenticatorConfig

def test_always_uv_on_and_off_is_what_python_fido2_reads(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    pinentry[1](f"pin {PIN}")
    assert "now on" in run_key(token, pinentry, "config", "always-uv", "on").stdout
    with Oracle(token) as ctap:
        assert ctap.get_info().options["alwaysUv"] is True
        client_pin, cfg_token = pin_token(ctap, PIN, ClientPin.PERMISSION.AUTHENTICATOR_CFG)
        Config(ctap, client_pin.protocol, cfg_token).toggle_always_uv()
    pinentry[1](f"pin {PIN}")
    assert "already off" in run_key(token, pinentry, "config", "always-uv", "off").stdout


def test_min_pin_length_with_a_site_shows_in_python_fido2s_registration(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", "123456")
    pinentry[1]("pin 123456")
    out = run_key(token, pinentry, "config", "min-pin-length", "6", "--rp", "example.com").stdout
    assert "minimum PIN length is 6" in out and "new PIN" not in out
    with Oracle(token) as ctap:
        info = ctap.get_info()
        assert info.min_pin_length == 6 and info.force_pin_change is False
        client_pin, mc_token = pin_token(ctap, "123456", ClientPin.PERMISSION.MAKE_CREDENTIAL)
        client_data_hash = hashlib.sha256(b"min-pin-length").digest()
        made = ctap.make_credential(
            client_data_hash, {"id": "example.com", "name": "Example"}, {"id": b"u", "name": "u"},
            [{"type": "public-key", "alg": -7}], extensions={"minPinLength": True},
            pin_uv_param=client_pin.protocol.authenticate(mc_token, client_data_hash),
            pin_uv_protocol=client_pin.protocol.VERSION)
        assert made.auth_data.extensions == {"minPinLength": 6}


def test_a_minimum_above_the_pin_asks_for_a_new_pin_and_pin_change_clears_it(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    pinentry[1](f"pin {PIN}")
    out = run_key(token, pinentry, "config", "min-pin-length", "8").stdout
    assert "key pin change" in out
    pinentry[1](f"pin {PIN}")
    refused = run_key(token, pinentry, "passkeys", check=False)
    assert refused.returncode != 0 and "key pin change" in refused.stderr
    pinentry[1](f"pin {PIN}", "pin 1234567", f"pin {NEW_PIN}", f"pin {NEW_PIN}")  # 7 is too short: asked again
    run_key(token, pinentry, "pin", "change")
    with Oracle(token) as ctap:
        assert ctap.get_info().force_pin_change is False
        pin_token(ctap, NEW_PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL)


def test_the_minimum_is_never_lowered(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", "123456")
    with Oracle(token) as ctap:
        client_pin, cfg_token = pin_token(ctap, "123456", ClientPin.PERMISSION.AUTHENTICATOR_CFG)
        Config(ctap, client_pin.protocol, cfg_token).set_min_pin_length(6)
    pinentry[1]("pin 123456")
    refused = run_key(token, pinentry, "config", "min-pin-length", "5", check=False)
    assert refused.returncode != 0 and "already 6" in refused.stderr


def test_force_pin_change_is_what_python_fido2_reads(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    pinentry[1](f"pin {PIN}")
    run_key(token, pinentry, "config", "force-pin-change")
    assert "must be changed first" in run_key(token, pinentry, "info").stdout
    assert json.loads(run_key(token, pinentry, "info", "--json").stdout)["forcePINChange"] is True
    with Oracle(token) as ctap:
        assert ctap.get_info().force_pin_change is True
        with pytest.raises(CtapError) as refused:
            pin_token(ctap, PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL)
        assert refused.value.code == CtapError.ERR.PIN_POLICY_VIOLATION


@pytest.mark.parametrize("profile", ["ctap20", "yubikey5-pre"])
def test_a_key_without_authenticator_config_says_so_before_asking(tmp_path, pinentry, profile):
    token = create_token(tmp_path / "old.state", "--profile", profile, "--pin", PIN)
    for args in (["always-uv", "on"], ["min-pin-length", "6"], ["force-pin-change"]):
        failed = run_key(token, pinentry, "config", *args, check=False)
        assert failed.returncode != 0 and "has no authenticatorConfig" in failed.stderr, failed.stderr
    assert pinentry[2]() == []


# Fingerprints

def bio_token(tmp_path, profile="bio", feedback=()):
    """A fingerprint key whose simulated finger gives `feedback` (CTAP lastEnrollSampleStatus bytes) for an
    enrollment's first touches, set in the state file's configuration as people edit it by hand."""
    token = create_token(tmp_path / f"{profile}.state", "--profile", profile, "--pin", PIN)
    state = json.loads(token.read_text())
    state["configuration"]["enrollmentFeedback"] = list(feedback)
    token.write_text(json.dumps(state, indent=2))
    return token


def oracle_fingerprints(ctap) -> dict[bytes, str]:
    client_pin, be_token = pin_token(ctap, PIN, ClientPin.PERMISSION.BIO_ENROLL)
    return dict(FPBioEnrollment(ctap, client_pin.protocol, be_token).enumerate_enrollments())


@pytest.mark.parametrize("profile", ["bio", "bio-pre"])
def test_fingerprints_add_reports_each_sample_and_python_fido2_sees_the_finger(tmp_path, pinentry, profile):
    token = bio_token(tmp_path, profile, feedback=[0, 5, 0, 7])
    pinentry[1](f"pin {PIN}")
    out = run_key(token, pinentry, "fingerprints", "add", "Left thumb").stdout
    samples = [line for line in out.splitlines() if line.startswith("Sample:")]
    assert samples == [
        "Sample: good sample; 3 more to go, touch again.",
        "Sample: finger moved too fast: hold it still; 3 more to go, touch again.",
        "Sample: good sample; 2 more to go, touch again.",
        "Sample: poor sample: clean and dry the finger and the sensor; 2 more to go, touch again.",
        "Sample: good sample; 1 more to go, touch again.",
        "Sample: good sample; done.",
    ]
    with Oracle(token) as ctap:
        assert sorted(oracle_fingerprints(ctap).values()) == ["Finger 1", "Left thumb"]


def test_a_finger_python_fido2_enrolled_is_listed_renamed_and_deleted_by_the_bridge(tmp_path, pinentry):
    token = bio_token(tmp_path)
    with Oracle(token) as ctap:
        client_pin, be_token = pin_token(ctap, PIN, ClientPin.PERMISSION.BIO_ENROLL)
        context = FPBioEnrollment(ctap, client_pin.protocol, be_token).enroll()
        while (template_id := context.capture()) is None:
            pass
    pinentry[1](f"pin {PIN}")
    listed = json.loads(run_key(token, pinentry, "fingerprints", "--json").stdout)
    assert {"id": template_id.hex()} in listed and {"id": listed[0]["id"], "name": "Finger 1"} == listed[0]
    pinentry[1](f"pin {PIN}")
    run_key(token, pinentry, "fingerprints", "rename", template_id.hex(), "Right index")
    pinentry[1](f"pin {PIN}")
    run_key(token, pinentry, "fingerprints", "delete", listed[0]["id"], "--yes")
    with Oracle(token) as ctap:
        assert oracle_fingerprints(ctap) == {template_id: "Right index"}
    shown = json.loads(subprocess.run([host_binary(), "token", "show", str(token), "--json"], check=True,
                                      capture_output=True, text=True, timeout=30).stdout)
    assert shown["fingerprints"] == ["Right index"]


def test_a_name_too_long_for_the_key_says_so(tmp_path, pinentry):
    token = bio_token(tmp_path)
    pinentry[1](f"pin {PIN}")
    [finger] = json.loads(run_key(token, pinentry, "fingerprints", "--json").stdout)
    pinentry[1](f"pin {PIN}")
    refused = run_key(token, pinentry, "fingerprints", "rename", finger["id"], "x" * 65, check=False)
    assert refused.returncode != 0 and "too long" in refused.stderr and "shorter" in refused.stderr


def test_fingerprints_delete_without_yes_and_no_terminal_deletes_nothing(tmp_path, pinentry):
    token = bio_token(tmp_path)
    pinentry[1](f"pin {PIN}")
    [finger] = json.loads(run_key(token, pinentry, "fingerprints", "--json").stdout)
    pinentry[1](f"pin {PIN}")
    refused = run_key(token, pinentry, "fingerprints", "delete", finger["id"], check=False)
    assert refused.returncode != 0 and "--yes" in refused.stderr
    with Oracle(token) as ctap:
        assert list(oracle_fingerprints(ctap).values()) == ["Finger 1"]


def test_a_key_without_a_reader_says_it_cannot_enroll_before_asking(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    failed = run_key(token, pinentry, "fingerprints", "add", check=False)
    assert failed.returncode != 0 and "no fingerprint reader" in failed.stderr
    assert pinentry[2]() == []


# Reset

def test_reset_with_yes_leaves_python_fido2_a_key_without_pin_or_passkeys(tmp_path, pinentry):
    token = bio_token(tmp_path)
    out = run_key(token, pinentry, "reset", "--yes").stdout
    assert "Touch your security key" in out and "is reset" in out
    with Oracle(token) as ctap:
        info = ctap.get_info()
        assert info.options["clientPin"] is False and info.options["uv"] is False
        assert info.options["bioEnroll"] is False
    assert pinentry[2]() == []  # a reset needs no PIN


def test_reset_without_yes_and_no_terminal_says_what_is_lost_and_resets_nothing(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    refused = run_key(token, pinentry, "reset", check=False)
    assert refused.returncode != 0
    assert "Every passkey on it is lost" in refused.stderr and "--yes" in refused.stderr
    with Oracle(token) as ctap:
        assert ctap.get_info().options["clientPin"] is True


@pytest.mark.parametrize("answer, reset", [("y", True), ("n", False)])
def test_reset_asks_on_the_terminal_naming_what_is_lost(tmp_path, pinentry, answer, reset):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    leader, follower = pty.openpty()
    process = subprocess.Popen([host_binary(), "key", "reset"], env=environment(token, pinentry), stdin=follower,
                               stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    seen = b""
    while b"[y/N]" not in seen:  # asked before anything is sent to the key
        chunk = os.read(leader, 1024)
        assert chunk, seen
        seen += chunk
    assert b"Every passkey on it is lost" in seen
    os.write(leader, answer.encode() + b"\n")
    assert process.wait(timeout=60) == (0 if reset else 1)
    os.close(leader)
    with Oracle(token) as ctap:
        assert ctap.get_info().options["clientPin"] is not reset


def test_a_key_plugged_in_too_long_is_reset_after_a_replug(tmp_path, pinentry):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    faults = token.with_name(token.name + ".faults")
    faults.write_text(json.dumps({"injectedErrors": {"7": 0x30}}))  # reset: NOT_ALLOWED, as after 10 s
    away = token.with_name(token.name + ".unplugged")
    process = subprocess.Popen([host_binary(), "key", "reset", "--yes"], env=environment(token, pinentry),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    for wanted, act in (("Unplug it", lambda: (token.rename(away), faults.unlink())),
                        ("plug it in again", lambda: away.rename(token))):
        while wanted not in (line := process.stdout.readline()):
            assert line, (lines, process.stderr.read())
            lines.append(line)
        act()
    assert process.wait(timeout=60) == 0, process.stderr.read()
    with Oracle(token) as ctap:
        assert ctap.get_info().options["clientPin"] is False


def test_python_fido2s_selection_and_reset_work_on_the_token(tmp_path):
    token = create_token(tmp_path / "key.state", "--pin", PIN)
    with Oracle(token) as ctap:
        ctap.selection()
        ctap.reset()
        assert ctap.get_info().options["clientPin"] is False
