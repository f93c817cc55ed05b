"""The host's key-management frames (the extension's Security keys page, docs/protocol.md "Key management") on a
SoftToken, with python-fido2's CredentialManagement as the oracle: what the host lists is what python-fido2 made,
and a deletion or rename through the host is what python-fido2 reads back. A connection that did not open with
`manage` (the background's, which pages reach) is refused every one of them."""

import hashlib
import json
import os
import time

from fido2.ctap2 import ClientPin, CredentialManagement

from bridge import b64url, create_token, extension_data
# The same SoftToken with a PIN (`token`) and python-fido2 on it (`oracle`) as `key passkeys`' tests, and the
# same oracle helpers as `key pin|config|fingerprints|reset`'s.
from test_key_passkeys import PIN, USERS, credman, make_passkeys, oracle, oracle_listing, token  # noqa: F401
from test_key_settings import NEW_PIN, Oracle, bio_token, oracle_fingerprints, pin_token

KEY_FRAMES = [t for t in extension_data("protocol-constants.js")["keyRequestTypes"] if t != "manage"]


def manage(launch, token, pinentry):
    """A host as the Security keys page's connection: `manage` first; returns it and the key's path."""
    host = launch(token, env=pinentry[0])
    opened, statuses = host.request({"id": "k1", "type": "manage"})
    assert opened["type"] == "result" and opened["manage"]["protocol"] == 1 and not statuses, opened
    info, _ = host.request({"id": "k2", "type": "info"})
    [device] = info["info"]["devices"]
    return host, device["path"]


def test_key_info_tells_the_pin_state_and_versions_without_asking_for_the_pin(launch, token, oracle, pinentry):
    host, path = manage(launch, token, pinentry)
    answer, statuses = host.request({"id": "k3", "type": "key-info", "device": path})
    key = answer["key"]
    assert key["pin"] == "set" and key["pinRetries"] == 8, key
    assert key["versions"] == oracle.info.versions
    assert key["aaguid"].replace("-", "") == bytes(oracle.info.aaguid).hex()
    assert key["credentialManagement"] == "full" and key["kind"] == "software token"
    assert statuses == [] and pinentry[2]() == []


def test_passkeys_lists_what_python_fido2_made_with_the_pin_from_pinentry(launch, token, oracle, pinentry):
    ids = make_passkeys(oracle)
    pinentry[1](f"pin {PIN}")
    host, path = manage(launch, token, pinentry)
    answer, statuses = host.request({"id": "k3", "type": "passkeys", "device": path})
    listed = answer["passkeys"]
    assert [(p["rpId"], p["userName"], p["credentialId"], p["userId"]) for p in listed["passkeys"]] == [
        (rp, name, b64url(i), b64url(user)) for (rp, user, name), i in zip(USERS, ids)]
    metadata = credman(oracle).get_metadata()
    assert listed["slotsUsed"] == metadata[CredentialManagement.RESULT.EXISTING_CRED_COUNT] == 3
    assert listed["slotsLeft"] == metadata[CredentialManagement.RESULT.MAX_REMAINING_COUNT]
    assert [s["status"] for s in statuses] == ["pin"]
    assert PIN not in json.dumps(answer) + host.log()


def test_a_deletion_asks_the_pin_then_a_touch_and_python_fido2_no_longer_finds_it(launch, token, oracle, pinentry):
    ids = make_passkeys(oracle)
    pinentry[1](f"pin {PIN}")
    host, path = manage(launch, token, pinentry)
    answer, statuses = host.request({"id": "k3", "type": "passkey-delete", "device": path,
                                     "credentialId": b64url(ids[1])})
    assert answer == {"id": "k3", "type": "result", "deleted": b64url(ids[1])}, answer
    assert [s["status"] for s in statuses][:2] == ["pin", "touch"], statuses
    assert [name for _, name, _ in oracle_listing(oracle)] == ["alice", "carol"]


def test_a_rename_is_what_python_fido2_enumerates(launch, token, oracle, pinentry):
    ids = make_passkeys(oracle)
    pinentry[1](f"pin {PIN}")
    host, path = manage(launch, token, pinentry)
    answer, _ = host.request({"id": "k3", "type": "passkey-rename", "device": path, "credentialId": b64url(ids[2]),
                              "userId": b64url(b"carol-id"), "name": "carol@new", "displayName": "Carol C."})
    assert answer["type"] == "result", answer
    [carol] = credman(oracle).enumerate_creds(hashlib.sha256(b"other.example").digest())
    assert carol[CredentialManagement.RESULT.USER] == {"id": b"carol-id", "name": "carol@new", "displayName": "Carol C."}


def test_a_wrong_pin_is_asked_again_with_the_attempts_left(launch, token, oracle, pinentry):
    make_passkeys(oracle)
    pinentry[1]("pin 0000", f"pin {PIN}")
    host, path = manage(launch, token, pinentry)
    answer, statuses = host.request({"id": "k3", "type": "passkeys", "device": path})
    assert answer["type"] == "result" and len(answer["passkeys"]["passkeys"]) == 3, answer
    assert [(s["status"], s.get("attemptsLeft")) for s in statuses] == [("pin", None), ("pin", 7)]
    assert "0000" not in host.log()


def test_a_ceremony_connection_is_refused_every_key_frame_and_the_key_keeps_its_passkeys(
        launch, token, oracle, pinentry):
    """The background's connection opens with `info`; whatever reaches it later (a forged frame, a bug passing a
    page's fields through) cannot open key management or run a key frame."""
    ids = make_passkeys(oracle)
    pinentry[1](f"pin {PIN}")
    host = launch(token, env=pinentry[0])
    info, _ = host.request({"id": "bg-info-1", "type": "info"})
    path = info["info"]["devices"][0]["path"]
    late, _ = host.request({"id": "r1", "type": "manage"})
    assert late["type"] == "error" and late["error"]["name"] == "TypeError", late
    for n, kind in enumerate(KEY_FRAMES):
        refused, statuses = host.request({"id": f"r{n + 2}", "type": kind, "device": path,
                                          "credentialId": b64url(ids[0]), "userId": b64url(b"alice-id"), "name": "x"})
        assert refused["type"] == "error" and refused["error"]["name"] == "TypeError" and not statuses, refused
    assert pinentry[2]() == []   # no PIN dialog was opened
    assert len(oracle_listing(oracle)) == 3


def test_manage_after_a_first_frame_over_the_limit_is_refused(launch, token):
    """A first frame the host drops (over its inbound limit) still fixes the connection as a ceremony one."""
    host = launch(token, env={"WEBAUTHN_BRIDGE_MAX_FRAME_BYTES": "1024"})
    host.send_raw(b"{" + b" " * 4000 + b"}")
    assert host.recv()["error"]["name"] == "TypeError"
    late, _ = host.request({"id": "r1", "type": "manage"})
    assert late["type"] == "error" and late["error"]["name"] == "TypeError", late
    refused, _ = host.request({"id": "r2", "type": "key-info", "device": "x"})
    assert refused["type"] == "error" and refused["error"]["name"] == "TypeError", refused


def test_a_key_management_connection_serves_no_ceremony(launch, token, pinentry):
    host, _ = manage(launch, token, pinentry)
    refused, _ = host.request({"id": "r1", "type": "create", "origin": "https://example.com", "options": {}})
    assert refused["type"] == "error" and refused["error"]["name"] == "TypeError", refused
    again, _ = host.request({"id": "r2", "type": "manage"})
    assert again["type"] == "error", again


def test_a_deletion_of_an_unknown_passkey_says_so_and_deletes_nothing(launch, token, oracle, pinentry):
    make_passkeys(oracle)
    pinentry[1](f"pin {PIN}")
    host, path = manage(launch, token, pinentry)
    answer, _ = host.request({"id": "k3", "type": "passkey-delete", "device": path,
                              "credentialId": b64url(b"\x01" * 32)})
    assert answer["type"] == "error", answer
    assert len(oracle_listing(oracle)) == 3


# The owner's settings, through the page's frames; python-fido2 reads back what they did.


def test_pin_set_asks_the_new_pin_twice_in_pinentry_and_python_fido2_uses_it(launch, tmp_path, pinentry):
    bare = create_token(tmp_path / "bare.state")
    pinentry[1](f"pin {PIN}", f"pin {PIN}")
    host, path = manage(launch, bare, pinentry)
    answer, statuses = host.request({"id": "k3", "type": "pin-set", "device": path})
    assert answer["key"]["pin"] == "set" and answer["key"]["pinRetries"] == 8, answer
    assert [s["status"] for s in statuses] == ["set-pin"]
    with Oracle(bare) as ctap:
        pin_token(ctap, PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL)
    assert PIN not in host.log()


def test_pin_change_asks_the_current_then_the_new_one_and_the_old_one_is_wrong_for_python_fido2(
        launch, token, pinentry):
    pinentry[1](f"pin {PIN}", f"pin {NEW_PIN}", f"pin {NEW_PIN}")
    host, path = manage(launch, token, pinentry)
    answer, statuses = host.request({"id": "k3", "type": "pin-change", "device": path})
    assert answer["type"] == "result", answer
    assert [s["status"] for s in statuses] == ["pin", "set-pin"]
    with Oracle(token) as ctap:
        pin_token(ctap, NEW_PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL)


def test_a_wrong_current_pin_changes_nothing_and_says_the_attempts_left(launch, token, pinentry):
    pinentry[1]("pin 0000", f"pin {NEW_PIN}", f"pin {NEW_PIN}")
    host, path = manage(launch, token, pinentry)
    answer, _ = host.request({"id": "k3", "type": "pin-change", "device": path})
    assert answer["type"] == "error" and "7 attempts left" in answer["detail"], answer
    with Oracle(token) as ctap:
        pin_token(ctap, PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL)


def test_config_always_uv_and_min_pin_length_are_what_python_fido2_reads(launch, token, pinentry):
    pinentry[1](f"pin {PIN}", f"pin {PIN}")
    host, path = manage(launch, token, pinentry)
    on, statuses = host.request({"id": "k3", "type": "key-config", "device": path, "setting": "always-uv", "value": True})
    assert on["key"]["options"]["alwaysUv"] is True and [s["status"] for s in statuses] == ["pin"], on
    longer, _ = host.request({"id": "k4", "type": "key-config", "device": path, "setting": "min-pin-length", "value": 6})
    assert longer["key"]["minPinLength"] == 6 and longer["key"]["forcePinChange"] is True, longer
    with Oracle(token) as ctap:
        info = ctap.get_info()
        assert info.options["alwaysUv"] is True and info.min_pin_length == 6 and info.force_pin_change
    bad, _ = host.request({"id": "k5", "type": "key-config", "device": path, "setting": "min-pin-length", "value": "6"})
    assert bad["error"]["name"] == "TypeError", bad


def test_reset_waits_for_a_touch_and_python_fido2_finds_a_key_without_pin_or_passkeys(launch, token, oracle, pinentry):
    make_passkeys(oracle)
    host, path = manage(launch, token, pinentry)
    answer, statuses = host.request({"id": "k3", "type": "key-reset", "device": path})
    assert answer["key"]["pin"] == "not-set", answer
    assert [s["status"] for s in statuses][:1] == ["touch"] and pinentry[2]() == []
    with Oracle(token) as ctap:
        assert ctap.get_info().options["clientPin"] is False


def test_a_reset_the_key_refuses_as_plugged_in_too_long_deletes_nothing_and_says_to_replug(launch, token, oracle,
                                                                                          pinentry):
    make_passkeys(oracle)
    token.with_name(token.name + ".faults").write_text(json.dumps({"injectedErrors": {"7": 0x30}}))
    host, path = manage(launch, token, pinentry)
    answer, _ = host.request({"id": "k3", "type": "key-reset", "device": path})
    assert answer["type"] == "error" and "first 10 seconds" in answer["detail"], answer
    token.with_name(token.name + ".faults").unlink()
    assert len(oracle_listing(oracle)) == 3


def test_fingerprints_listed_renamed_and_deleted_through_the_page_frames_for_python_fido2(launch, tmp_path, pinentry):
    bio = bio_token(tmp_path)
    with Oracle(bio) as ctap:
        assert len(oracle_fingerprints(ctap)) == 1
    pinentry[1](*[f"pin {PIN}"] * 3)
    host, path = manage(launch, bio, pinentry)
    listed, _ = host.request({"id": "k3", "type": "fingerprints", "device": path})
    [finger] = listed["fingerprints"]
    assert finger["name"] == "Finger 1", listed
    renamed, _ = host.request({"id": "k4", "type": "fingerprint-rename", "device": path,
                               "templateId": finger["templateId"],
                               "name": "Right index"})
    assert renamed["type"] == "result", renamed
    with Oracle(bio) as ctap:
        assert list(oracle_fingerprints(ctap).values()) == ["Right index"]
    deleted, _ = host.request({"id": "k5", "type": "fingerprint-delete", "device": path,
                               "templateId": finger["templateId"]})
    assert deleted["type"] == "result", deleted
    with Oracle(bio) as ctap:
        assert oracle_fingerprints(ctap) == {}


def test_a_fingerprint_added_through_the_page_frames_reports_each_sample_and_python_fido2_sees_it(
        launch, tmp_path, pinentry):
    bio = bio_token(tmp_path, feedback=[0, 5, 0, 7])
    pinentry[1](f"pin {PIN}")
    host, path = manage(launch, bio, pinentry)
    added, statuses = host.request({"id": "k3", "type": "fingerprint-add", "device": path, "name": "Left thumb"})
    assert added["type"] == "result" and added["added"], added
    samples = [(s.get("sample"), s.get("samplesLeft")) for s in statuses if s["status"] == "enroll-fingerprint"]
    assert samples == [(None, None), ("FP_GOOD", 3), ("FP_TOO_FAST", 3), ("FP_GOOD", 2), ("FP_POOR_QUALITY", 2),
                       ("FP_GOOD", 1), ("FP_GOOD", 0)], statuses
    with Oracle(bio) as ctap:
        assert sorted(oracle_fingerprints(ctap).values()) == ["Finger 1", "Left thumb"]


def test_the_pages_cancel_closes_the_pin_dialog_and_deletes_nothing(launch, token, oracle, pinentry):
    ids = make_passkeys(oracle)
    os.remove(pinentry[0]["FAKE_PINENTRY_SCRIPT"])   # no answer at all (an empty line is one: a cancel)
    host = launch(token, env={**pinentry[0], "FAKE_PINENTRY_HOLD": "1"})   # the dialog stays until answered
    host.request({"id": "k1", "type": "manage"})
    path = host.request({"id": "k2", "type": "info"})[0]["info"]["devices"][0]["path"]
    host.send({"id": "k3", "type": "passkey-delete", "device": path, "credentialId": b64url(ids[0])})
    assert host.recv()["status"] == "pin"
    deadline = time.monotonic() + 15
    while "GETPIN" not in pinentry[2]():   # the dialog is up
        assert time.monotonic() < deadline, pinentry[2]()
        time.sleep(0.05)
    host.send({"id": "k3", "type": "cancel"})
    answer, _ = host.final("k3")
    assert answer["error"]["name"] == "AbortError", answer
    assert len(oracle_listing(oracle)) == 3
    assert host.request({"id": "k4", "type": "key-info", "device": path})[0]["type"] == "result"   # it serves on
