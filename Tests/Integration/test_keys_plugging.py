"""Real-world plugging with SoftTokens (a state file that exists is a key in the port), as Chromium handles USB keys
(docs/keys.md, "Plugging and unplugging"): a key pulled out while it waits for its touch is waited for again until
the timeout, one pulled out once its PIN was asked for ends the request at once; a key plugged in while another
waits for its touch joins, and the one touched first wins; of two keys the one touched is used with or without a PIN
as its own state requires; a key in the port that cannot be opened is named as such. Every wait is on a status frame,
never on a duration. A key that appears only after the request started is in test_devices.py."""

import json
import os
import subprocess
import time

from bridge import create_token, host_binary
from rp import ORIGIN, creation_options, request_options, verify_authentication, verify_registration

# A simulated user who touches only after a minute: far beyond any answer a test waits for.
UNTOUCHED = ("--presence", "delay:60000")


def credentials_on(token) -> list:
    shown = subprocess.run([host_binary(), "token", "show", str(token), "--json"], check=True, capture_output=True, timeout=30)
    return json.loads(shown.stdout)["credentials"]


def keys(*tokens) -> dict:
    """The environment that names several keys' state files (some perhaps not plugged in yet)."""
    return {"WEBAUTHN_BRIDGE_SOFT_TOKEN": ":".join(str(t) for t in tokens)}


def wait_for_log(host, text, seconds=20):
    """Waits for the host to log `text` (an event, polled in the log file)."""
    deadline = time.monotonic() + seconds
    while text not in host.log():
        assert time.monotonic() < deadline, f"the host never logged {text!r}; log:\n{host.log()}"
        time.sleep(0.02)


def wait_for_status(host, request_id, status):
    while True:
        frame = host.recv()
        assert frame["type"] == "status" and frame["id"] == request_id, frame
        if frame["status"] == status:
            return frame


def test_a_key_that_cannot_be_opened_is_named_and_the_ceremony_goes_on_once_it_can(launch, tmp_path):
    token = tmp_path / "key.state"
    token.write_text("not a token")  # in the port, but nothing can talk to it (as a hidraw node without access)
    host = launch(token)
    options, challenge = creation_options()
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    frame = wait_for_status(host, "c-1", "key-unusable")
    assert "plugged in but cannot be used" in frame["detail"] and "webauthn-bridge doctor" in frame["detail"], frame
    assert "SoftToken key.state" in frame["detail"], frame

    # The user fixes it (here: the key's file becomes loadable): the same request goes on with it.
    fixed = create_token(tmp_path / "fixed.state")
    os.replace(fixed, token)
    reply, statuses = host.final("c-1")
    assert reply["type"] == "result", reply
    assert "insert-key" not in [s["status"] for s in statuses]
    verify_registration(reply["credential"], challenge)
    assert "no usable security key" in host.log()


def test_touching_the_key_without_a_pin_of_two_makes_a_credential_without_one(launch, tmp_path, pinentry):
    env, _, commands = pinentry
    with_pin = create_token(tmp_path / "a.state", "--pin", "123456", "--presence", "delay:20000")
    without = create_token(tmp_path / "b.state", "--presence", "delay:300")
    host = launch(None, env={**env, "WEBAUTHN_BRIDGE_SOFT_TOKEN": f"{with_pin}:{without}"})
    options, challenge = creation_options(authenticatorSelection={"userVerification": "preferred", "residentKey": "discouraged"})
    started = time.monotonic()
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    assert statuses[0]["status"] == "select-key", statuses
    verified = verify_registration(reply["credential"], challenge)
    # The touched key has no PIN: no PIN dialog, no UV; the other key's PIN was never asked for.
    assert not verified.user_verified
    assert not [c for c in commands() if c.startswith("GETPIN")]
    assert time.monotonic() - started < 15


def test_a_key_that_stays_unusable_until_the_timeout_is_named_in_the_error(launch, tmp_path):
    token = tmp_path / "key.state"
    token.write_text("not a token")
    host = launch(token)
    options, _ = creation_options(timeout=1000)  # clamped up to the 30 s minimum, as Chromium does
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options}, timeout=45)
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply
    assert [s["status"] for s in statuses] == ["key-unusable"]
    assert "plugged in but cannot be used" in reply["detail"] and "webauthn-bridge doctor" in reply["detail"], reply


def start_create(host, **selection):
    options, challenge = creation_options(**({"authenticatorSelection": selection} if selection else {}))
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    return challenge


def waiting_for_the_touch(launch, first, *later, presence=UNTOUCHED):
    """A host whose request waits for the touch of `first`, the one key plugged in; `later` may be plugged in."""
    create_token(first, *presence)
    host = launch(None, env=keys(first, *later))
    challenge = start_create(host)
    wait_for_status(host, "c-1", "touch")
    return host, challenge


def expect_credential_made_on(token, host, challenge):
    reply, _ = host.final("c-1")
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)
    assert len(credentials_on(token)) == 1


def test_a_key_unplugged_while_waiting_for_its_touch_is_waited_for_again(launch, tmp_path):
    token = tmp_path / "key.state"
    host, challenge = waiting_for_the_touch(launch, token)
    os.remove(token)  # pulled out of the port: the user is asked to insert a key again
    wait_for_status(host, "c-1", "insert-key")
    create_token(token)  # plugged back in (this time the user touches at once)
    expect_credential_made_on(token, host, challenge)


def test_a_key_unplugged_while_a_sign_in_waits_for_its_touch_signs_in_once_plugged_back(launch, tmp_path):
    token = create_token(tmp_path / "key.state")
    host = launch(token)
    options, challenge = creation_options()
    reply, _ = host.request({"id": "c-0", "type": "create", "origin": ORIGIN, "options": options})
    registered = verify_registration(reply["credential"], challenge)
    host.close()
    saved = token.read_text()  # the key as it is, to plug back in with the user touching at once
    state = json.loads(saved)
    state["configuration"]["presence"] = {"delay": {"milliseconds": 60000}}
    token.write_text(json.dumps(state))

    host = launch(token)
    options, challenge = request_options(allow=[registered.credential_id])
    host.send({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    wait_for_status(host, "g-1", "touch")
    os.remove(token)
    wait_for_status(host, "g-1", "insert-key")
    token.write_text(saved)
    reply, _ = host.final("g-1")
    assert reply["type"] == "result", reply
    verify_authentication(reply["credential"], challenge, registered.credential_public_key, 0)


def test_another_key_can_be_used_after_the_first_was_unplugged(launch, tmp_path):
    first, second = tmp_path / "first.state", tmp_path / "second.state"
    host, challenge = waiting_for_the_touch(launch, first, second)
    os.remove(first)
    wait_for_status(host, "c-1", "insert-key")
    create_token(second)
    expect_credential_made_on(second, host, challenge)


def test_a_key_unplugged_while_waiting_for_its_touch_times_out_when_none_comes_back(launch, tmp_path):
    token = create_token(tmp_path / "key.state", *UNTOUCHED)
    host = launch(token)
    options, _ = creation_options(timeout=1000)  # clamped up to the 30 s minimum, as Chromium does
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    wait_for_status(host, "c-1", "touch")
    os.remove(token)
    wait_for_status(host, "c-1", "insert-key")
    reply, statuses = host.final("c-1", timeout=45)
    assert statuses == [], statuses
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply
    assert reply["detail"] == "The operation timed out.", reply
    assert "retry" not in reply, "Chromium's timeout sheet has only Close"


def test_a_key_unplugged_while_the_pin_is_typed_closes_the_prompt_and_ends_the_request(launch, tmp_path, pinentry):
    env, _, _ = pinentry
    os.remove(env["FAKE_PINENTRY_SCRIPT"])  # no answer at all: the dialog stays open until the host closes it
    token = create_token(tmp_path / "key.state", "--pin", "123456")
    host = launch(token, env={**env, "FAKE_PINENTRY_HOLD": "1"})
    start_create(host, userVerification="required")
    wait_for_status(host, "c-1", "pin")
    os.remove(token)
    # Never answered: the host closes the dialog itself, as Chromium ends the request
    # (kAuthenticatorRemovedDuringPINEntry); no PIN was typed, none is kept.
    reply, statuses = host.final("c-1")
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply
    assert reply["detail"] == "The security key was removed.", reply
    assert reply.get("retry") is True, "Chromium's sheet for a key removed during the PIN offers Try again"
    assert statuses == [], statuses
    assert "removed during PIN entry; the PIN prompt is closed" in host.log()


def test_a_key_unplugged_after_its_pin_while_waiting_for_its_touch_ends_the_request(launch, tmp_path, pinentry):
    env, answers, _ = pinentry
    answers("pin 123456")
    token = create_token(tmp_path / "key.state", "--pin", "123456", *UNTOUCHED)
    host = launch(token, env=env)
    start_create(host, userVerification="required")
    wait_for_status(host, "c-1", "pin")
    wait_for_status(host, "c-1", "touch")
    os.remove(token)
    reply, statuses = host.final("c-1")
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply
    assert reply["detail"] == "The security key was removed.", reply
    assert "insert-key" not in [s["status"] for s in statuses]


def test_a_key_plugged_in_while_another_waits_for_its_touch_can_be_touched_and_wins(launch, tmp_path):
    waiting, plugged = tmp_path / "waiting.state", tmp_path / "plugged.state"
    host, challenge = waiting_for_the_touch(launch, waiting, plugged)
    create_token(plugged, "--presence", "delay:300")
    wait_for_status(host, "c-1", "select-key")  # both keys blink now
    expect_credential_made_on(plugged, host, challenge)
    assert credentials_on(waiting) == []


def test_a_key_plugged_in_while_a_u2f_key_waits_for_its_touch_joins(launch, tmp_path):
    # libfido2 cannot cancel the U2F key's request: the host interrupts it (U2FInterruption) to ask every key.
    waiting, plugged = tmp_path / "u2f.state", tmp_path / "plugged.state"
    host, challenge = waiting_for_the_touch(launch, waiting, plugged, presence=("--profile", "u2f-only", *UNTOUCHED))
    create_token(plugged, "--presence", "delay:300")
    wait_for_status(host, "c-1", "select-key")
    expect_credential_made_on(plugged, host, challenge)


def test_the_key_that_waited_first_can_still_be_touched_and_wins(launch, tmp_path):
    # The first key's user touches 5 s after each request; the key plugged in meanwhile is never touched.
    waiting, plugged = tmp_path / "waiting.state", tmp_path / "plugged.state"
    host, challenge = waiting_for_the_touch(launch, waiting, plugged, presence=("--presence", "delay:5000"))
    create_token(plugged, *UNTOUCHED)
    wait_for_status(host, "c-1", "select-key")
    expect_credential_made_on(waiting, host, challenge)
    assert credentials_on(plugged) == []


def test_a_key_plugged_in_while_the_pin_is_typed_does_not_join(launch, tmp_path, pinentry):
    env, answers, _ = pinentry
    os.remove(env["FAKE_PINENTRY_SCRIPT"])  # the dialog stays open until the test answers
    with_pin, plugged = tmp_path / "pin.state", tmp_path / "plugged.state"
    create_token(with_pin, "--pin", "123456")
    host = launch(None, env={**env, "FAKE_PINENTRY_HOLD": "1", **keys(with_pin, plugged)})
    challenge = start_create(host, userVerification="required")
    wait_for_status(host, "c-1", "pin")
    create_token(plugged, "--presence", "delay:300")
    wait_for_log(host, "plugged.state attached as")  # the host has seen the new key
    answers("pin 123456")
    reply, statuses = host.final("c-1")
    assert reply["type"] == "result", reply
    assert "select-key" not in [s["status"] for s in statuses], statuses
    assert verify_registration(reply["credential"], challenge, require_uv=True).user_verified
    assert credentials_on(plugged) == []


def test_a_key_plugged_in_while_several_blink_to_be_chosen_joins_them(launch, tmp_path):
    first, second, plugged = tmp_path / "first.state", tmp_path / "second.state", tmp_path / "plugged.state"
    create_token(first, *UNTOUCHED)
    create_token(second, *UNTOUCHED)
    host = launch(None, env=keys(first, second, plugged))
    challenge = start_create(host)
    wait_for_status(host, "c-1", "select-key")
    create_token(plugged, "--presence", "delay:300")
    wait_for_log(host, "was plugged in; it joins the request")  # the request goes to it too; nothing starts over
    expect_credential_made_on(plugged, host, challenge)


def test_touching_the_key_with_a_pin_of_two_asks_for_its_pin(launch, tmp_path, pinentry):
    env, answers, commands = pinentry
    answers("pin 123456")
    with_pin = create_token(tmp_path / "a.state", "--pin", "123456", "--presence", "delay:300")
    without = create_token(tmp_path / "b.state", *UNTOUCHED)
    host = launch(None, env={**env, **keys(with_pin, without)})
    options, challenge = creation_options(authenticatorSelection={"userVerification": "preferred", "residentKey": "discouraged"})
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    kinds = [s["status"] for s in statuses]
    assert kinds[0] == "select-key" and "pin" in kinds, kinds
    verified = verify_registration(reply["credential"], challenge, require_uv=True)
    assert verified.user_verified
    assert [c for c in commands() if c.startswith("GETPIN")]
    assert credentials_on(without) == []
