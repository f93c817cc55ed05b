"""Real-world plugging with SoftTokens (a state file that exists is a key in the port): a key in the port that
cannot be opened is named as such, and the user touching the PIN-less one of two keys gets a PIN-less ceremony.
A key that appears only after the request started is in test_devices.py."""

import os
import time

from bridge import create_token
from rp import ORIGIN, creation_options, verify_registration


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


def test_a_key_unplugged_while_waiting_for_a_touch_ends_the_request_at_once(launch, tmp_path):
    token = create_token(tmp_path / "key.state", "--presence", "delay:20000")
    host = launch(token)
    options, _ = creation_options()
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    wait_for_status(host, "c-1", "touch")
    started = time.monotonic()
    os.remove(token)  # pulled out of the port
    reply, _ = host.final("c-1")
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply
    assert reply["detail"] == "The security key was removed.", reply
    assert time.monotonic() - started < 5, "the host noticed the key was gone, not the 20 s touch or the timeout"


def test_a_key_unplugged_while_the_pin_is_typed_ends_the_request(launch, tmp_path, pinentry):
    env, answers, _ = pinentry
    token = create_token(tmp_path / "key.state", "--pin", "123456")
    host = launch(token, env={**env, "FAKE_PINENTRY_HOLD": "1"})
    options, _ = creation_options(authenticatorSelection={"userVerification": "required"})
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    wait_for_status(host, "c-1", "pin")
    os.remove(token)
    answers("pin 123456")  # the user finishes typing after pulling the key out
    reply, _ = host.final("c-1")
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply
    assert reply["detail"] == "The security key was removed.", reply


def test_a_key_that_stays_unusable_until_the_timeout_is_named_in_the_error(launch, tmp_path):
    token = tmp_path / "key.state"
    token.write_text("not a token")
    host = launch(token)
    options, _ = creation_options(timeout=1000)  # clamped up to the 30 s minimum, as Chromium does
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options}, timeout=45)
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply
    assert [s["status"] for s in statuses] == ["key-unusable"]
    assert "plugged in but cannot be used" in reply["detail"] and "webauthn-bridge doctor" in reply["detail"], reply
