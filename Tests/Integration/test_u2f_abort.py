"""A page's abort while a U2F-only key waits for its touch (issue 18). libfido2 1.12 cannot cancel a U2F request
(fido_dev_cancel refuses U2F keys, and its loop repeats the APDU after every 0x6985), so the host interrupts the
thread blocked in it with a signal (Sources/FIDO/U2FInterruption.swift), as Chromium simply stops sending the APDU
(device/fido/u2f_register_operation.cc). The abort must end the request before the user touches, and what the
key did must not count: the aborted sign-in leaves the signature counter as it was."""

import json

import pytest

from bridge import create_token
from rp import ORIGIN, creation_options, request_options, verify_authentication, verify_registration

# The simulated user touches a minute after being asked: far beyond any answer the tests wait for, so an
# AbortError that arrives at all arrived before the touch.
NEVER_TOUCHED_IN_TIME = {"delay": {"milliseconds": 60000}}
ANSWER_WAIT = 15


def set_presence(token, presence):
    """The token file holds the simulated user's behaviour; a host started afterwards loads it."""
    state = json.loads(token.read_text())
    state["configuration"]["presence"] = presence
    token.write_text(json.dumps(state))


def register(launch, token):
    host = launch(token)
    options, challenge = creation_options()
    reply, _ = host.request({"id": "c-0", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    host.close()
    return verify_registration(reply["credential"], challenge)


def abort_while_waiting_for_the_touch(host, kind, options):
    host.send({"id": "x-1", "type": kind, "origin": ORIGIN, "options": options})
    frame = host.recv()
    assert frame["type"] == "status" and frame["status"] == "touch", frame
    host.send({"id": "x-1", "type": "cancel"})
    reply, _ = host.final("x-1", timeout=ANSWER_WAIT)
    assert reply["type"] == "error" and reply["error"]["name"] == "AbortError", reply
    return reply


@pytest.mark.parametrize("kind", ["create", "get"])
def test_an_abort_ends_a_u2f_request_before_the_touch(launch, tmp_path, kind):
    token = create_token(tmp_path / "u2f.state", "--profile", "u2f-only")
    registered = register(launch, token)
    set_presence(token, NEVER_TOUCHED_IN_TIME)
    host = launch(token)
    options = creation_options()[0] if kind == "create" else request_options(allow=[registered.credential_id])[0]
    abort_while_waiting_for_the_touch(host, kind, options)
    # The host is free for the next request at once (its libfido2 thread is not stuck in the U2F loop).
    reply, _ = host.request({"id": "i-1", "type": "info"}, timeout=ANSWER_WAIT)
    assert reply["type"] == "result", reply


def test_an_aborted_u2f_sign_in_signed_nothing(launch, tmp_path):
    token = create_token(tmp_path / "u2f.state", "--profile", "u2f-only")
    registered = register(launch, token)
    set_presence(token, NEVER_TOUCHED_IN_TIME)
    host = launch(token)
    abort_while_waiting_for_the_touch(host, "get", request_options(allow=[registered.credential_id])[0])
    host.close()

    set_presence(token, {"automatic": {}})
    host = launch(token)
    options, challenge = request_options(allow=[registered.credential_id])
    reply, _ = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    verified = verify_authentication(reply["credential"], challenge, registered.credential_public_key, 0)
    assert verified.new_sign_count == 1, "the aborted sign-in must not have used the key's counter"
