"""`webauthn-bridge key passkeys` against python-fido2's CredentialManagement on the same SoftToken: passkeys made
by python-fido2 are listed by the bridge, a deletion or rename by one side is what the other reads back."""

import hashlib
import json
import os
import pty
import subprocess

import pytest
from fido2.ctap2 import ClientPin, CredentialManagement
from fido2.webauthn import PublicKeyCredentialDescriptor

from bridge import b64url, create_token, host_binary
from softtoken_hid import open_ctap2

PIN = "4321"
USERS = [("example.com", b"alice-id", "alice"), ("example.com", b"bob-id", "bob"), ("other.example", b"carol-id", "carol")]


@pytest.fixture
def token(tmp_path):
    return create_token(tmp_path / "key.state", "--pin", PIN)


@pytest.fixture
def oracle(token):
    ctap, connection = open_ctap2(token)
    yield ctap
    connection.close()


def credman(ctap) -> CredentialManagement:
    client_pin = ClientPin(ctap)
    pin_token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.CREDENTIAL_MGMT)
    return CredentialManagement(ctap, client_pin.protocol, pin_token)


def make_passkeys(ctap) -> list[bytes]:
    """Three passkeys made by python-fido2 itself (no bridge code involved); returns their credential IDs."""
    ids = []
    for rp_id, user_id, name in USERS:
        client_pin = ClientPin(ctap)
        pin_token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL, rp_id)
        client_data_hash = hashlib.sha256(name.encode()).digest()
        made = ctap.make_credential(
            client_data_hash, {"id": rp_id, "name": rp_id}, {"id": user_id, "name": name},
            [{"type": "public-key", "alg": -7}], options={"rk": True},
            pin_uv_param=client_pin.protocol.authenticate(pin_token, client_data_hash),
            pin_uv_protocol=client_pin.protocol.VERSION)
        ids.append(made.auth_data.credential_data.credential_id)
    return ids


def run_key(token, pinentry, *args, check=True):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")}
    environment.update(pinentry[0])
    environment.update({"WEBAUTHN_BRIDGE_SOFT_TOKEN": str(token),
                        "WEBAUTHN_BRIDGE_LOG_FILE": str(token.with_suffix(".log"))})
    result = subprocess.run([host_binary(), "key", *args], env=environment, capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def oracle_listing(ctap) -> list[tuple[str, str, bytes]]:
    manager = credman(ctap)
    listed = []
    for rp in manager.enumerate_rps():
        rp_id = rp[CredentialManagement.RESULT.RP]["id"]
        for cred in manager.enumerate_creds(hashlib.sha256(rp_id.encode()).digest()):
            listed.append((rp_id, cred[CredentialManagement.RESULT.USER]["name"],
                           cred[CredentialManagement.RESULT.CREDENTIAL_ID]["id"]))
    return listed


def test_key_passkeys_lists_what_python_fido2_made_and_enumerates(token, oracle, pinentry):
    ids = make_passkeys(oracle)
    pinentry[1](f"pin {PIN}")
    listed = json.loads(run_key(token, pinentry, "passkeys", "--json").stdout)
    assert [(p["rpId"], p["userName"], p["credentialId"]) for p in listed["passkeys"]] == [
        (rp, name, b64url(i)) for (rp, _, name), i in zip(USERS, ids)]
    assert [p["userId"] for p in listed["passkeys"]] == [b64url(u) for _, u, _ in USERS]
    assert [p["credProtect"] for p in listed["passkeys"]] == [1, 1, 1]
    metadata = credman(oracle).get_metadata()
    assert listed["slotsUsed"] == metadata[CredentialManagement.RESULT.EXISTING_CRED_COUNT] == 3
    assert listed["slotsLeft"] == metadata[CredentialManagement.RESULT.MAX_REMAINING_COUNT]
    assert [(rp, name, i) for rp, name, i in oracle_listing(oracle)] == [
        (rp, name, i) for (rp, _, name), i in zip(USERS, ids)]
    assert PIN not in json.dumps(listed)


def test_key_passkeys_delete_is_gone_for_python_fido2(token, oracle, pinentry):
    ids = make_passkeys(oracle)
    pinentry[1](f"pin {PIN}")
    deleted = run_key(token, pinentry, "passkeys", "delete", b64url(ids[1]), "--yes")
    assert "bob" in deleted.stdout and "example.com" in deleted.stdout
    assert [name for _, name, _ in oracle_listing(oracle)] == ["alice", "carol"]


@pytest.mark.parametrize("answer, deleted", [("y", True), ("n", False), ("", False)])
def test_key_passkeys_delete_asks_on_the_terminal(token, oracle, pinentry, answer, deleted):
    ids = make_passkeys(oracle)
    pinentry[1](f"pin {PIN}")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")}
    environment.update(pinentry[0])
    environment.update({"WEBAUTHN_BRIDGE_SOFT_TOKEN": str(token),
                        "WEBAUTHN_BRIDGE_LOG_FILE": str(token.with_suffix(".log"))})
    leader, follower = pty.openpty()
    process = subprocess.Popen([host_binary(), "key", "passkeys", "delete", b64url(ids[1])], env=environment,
                               stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    seen = b""
    while b"[y/N]" not in seen:  # the question names the passkey before anything is deleted
        chunk = os.read(leader, 1024)
        assert chunk, seen
        seen += chunk
    assert b"bob" in seen and b"example.com" in seen
    assert len(oracle_listing(oracle)) == 3
    os.write(leader, answer.encode() + b"\n")
    assert process.wait(timeout=60) == (0 if deleted else 1)
    os.close(leader)
    assert [name for _, name, _ in oracle_listing(oracle)] == (["alice", "carol"] if deleted else ["alice", "bob", "carol"])
    assert PIN not in token.with_suffix(".log").read_text()


def test_key_passkeys_delete_without_yes_and_no_terminal_deletes_nothing(token, oracle, pinentry):
    ids = make_passkeys(oracle)
    pinentry[1](f"pin {PIN}")
    refused = run_key(token, pinentry, "passkeys", "delete", b64url(ids[0]), check=False)
    assert refused.returncode != 0
    assert "--yes" in refused.stderr
    assert len(oracle_listing(oracle)) == 3


def test_python_fido2_rename_and_delete_show_in_key_passkeys(token, oracle, pinentry):
    ids = make_passkeys(oracle)
    manager = credman(oracle)
    manager.update_user_info(PublicKeyCredentialDescriptor(type="public-key", id=ids[0]),
                             {"id": b"alice-id", "name": "alice@new", "displayName": "Alice New"})
    manager.delete_cred(PublicKeyCredentialDescriptor(type="public-key", id=ids[2]))
    pinentry[1](f"pin {PIN}")
    text = run_key(token, pinentry, "passkeys").stdout
    assert "alice@new — Alice New" in text
    assert "carol" not in text and "other.example" not in text
    assert "Slots: 2 used" in text


def test_key_passkeys_rename_is_what_python_fido2_enumerates(token, oracle, pinentry):
    ids = make_passkeys(oracle)
    pinentry[1](f"pin {PIN}")
    run_key(token, pinentry, "passkeys", "rename", b64url(ids[2]), "--display-name", "Carol C.")
    hashed = hashlib.sha256(b"other.example").digest()
    [carol] = credman(oracle).enumerate_creds(hashed)
    assert carol[CredentialManagement.RESULT.USER] == {"id": b"carol-id", "name": "carol", "displayName": "Carol C."}


def test_wrong_pin_says_how_many_attempts_are_left_and_what_to_do(token, oracle, pinentry):
    make_passkeys(oracle)
    pinentry[1]("pin 0000")
    failed = run_key(token, pinentry, "passkeys", check=False)
    assert failed.returncode != 0
    assert "Wrong PIN. 7 attempts left" in failed.stderr and "Run the command again" in failed.stderr
    assert "0000" not in failed.stderr + failed.stdout


def test_a_preview_key_lists_for_both_sides_and_refuses_rename(tmp_path, pinentry):
    token = create_token(tmp_path / "pre.state", "--profile", "yubikey5-pre", "--pin", PIN)
    ctap, connection = open_ctap2(token)
    try:
        assert "FIDO_2_1_PRE" in ctap.info.versions and ctap.info.options.get("credentialMgmtPreview")
        ids = make_passkeys(ctap)
        pinentry[1](f"pin {PIN}", f"pin {PIN}")
        listed = json.loads(run_key(token, pinentry, "passkeys", "--json").stdout)
        assert [p["credentialId"] for p in listed["passkeys"]] == [b64url(i) for i in ids]
        assert listed["slotsLeft"] == 22
        refused = run_key(token, pinentry, "passkeys", "rename", b64url(ids[0]), "--name", "x", check=False)
        assert refused.returncode != 0 and "preview" in refused.stderr
        assert [name for _, name, _ in oracle_listing(ctap)] == ["alice", "bob", "carol"]
    finally:
        connection.close()


def test_a_ctap20_key_says_it_cannot_list_passkeys(tmp_path, pinentry):
    token = create_token(tmp_path / "old.state", "--profile", "ctap20", "--pin", PIN)
    failed = run_key(token, pinentry, "passkeys", check=False)
    assert failed.returncode != 0
    assert "no credential management" in failed.stderr
    assert pinentry[2]() == []  # refused before asking for the PIN


def test_key_list_and_info_show_the_soft_token(token, pinentry):
    listed = json.loads(run_key(token, pinentry, "list", "--json").stdout)
    assert len(listed) == 1 and listed[0]["software"] is True
    info = run_key(token, pinentry, "info", "--device", listed[0]["device"]).stdout
    assert "credMgmt" in info
