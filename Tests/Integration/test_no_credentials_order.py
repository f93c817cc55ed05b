"""A key holding none of what a sign-in asks for needs the touches a key holding one needs, whichever order it
answers in (docs/keys.md, "Several keys"): a CTAP 2.0 key says "no credentials" only once touched, a CTAP 2.1 key
says it at once (SoftToken's `--no-credentials after-touch|at-once`). Each key here is touched only on the test's
signal (`FILE.touch`), and a test gives exactly the touches it expects: a reply that came needed no more (the host
would wait for another until the test gives up), a touch file left in place was not needed."""

import os
from pathlib import Path

import pytest

from bridge import decode_binary
from faults import inject
from rp import ORIGIN, creation_options, request_options
from test_keys_plugging import keys, wait_for_log, wait_for_status
from test_keys_race import signalled, touch, touch_taken

ORDERS = ["after-touch", "at-once"]
NO_CREDENTIAL = "The security key has no credential for this site."


def refused(reply: dict) -> bool:
    return reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError" and reply["detail"] == NO_CREDENTIAL


def holder_with_credential(launch, tmp_path, discoverable: bool) -> tuple[Path, bytes]:
    """A key (touched on signal) holding one credential for the rp, discoverable or not; returns it and the id."""
    (holder,) = signalled(tmp_path, "holder")
    host = launch(holder)
    selection = {"residentKey": "required" if discoverable else "discouraged", "userVerification": "discouraged"}
    options, _ = creation_options(authenticatorSelection=selection)
    host.send({"id": "c-0", "type": "create", "origin": ORIGIN, "options": options})
    touch(holder)
    reply, _ = host.final("c-0")
    assert reply["type"] == "result", reply
    host.close()
    return holder, decode_binary(reply["credential"]["rawId"])


def sign_in(host, discoverable: bool, allow=None, **extra):
    options, _ = request_options(allow=None if discoverable else (allow or [os.urandom(64)]), **extra)
    host.send({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})


@pytest.mark.parametrize("discoverable", [False, True], ids=["allow-list", "discoverable"])
@pytest.mark.parametrize("order", ORDERS)
def test_a_lone_key_holding_none_is_refused_after_one_touch(launch, tmp_path, order, discoverable):
    (lone,) = signalled(tmp_path, "lone", options=("--no-credentials", order))
    host = launch(lone)
    sign_in(host, discoverable)
    wait_for_status(host, "g-1", "touch")
    wait_for_log(host, "holds no passkey" if discoverable else "holds none of the allowed credentials")
    touch(lone)
    reply, _ = host.final("g-1")
    assert refused(reply), reply
    assert touch_taken(lone)


@pytest.mark.parametrize("discoverable", [False, True], ids=["allow-list", "discoverable"])
@pytest.mark.parametrize("order", ORDERS)
def test_of_two_keys_the_one_touched_holding_none_ends_the_request_after_one_touch(launch, tmp_path, order,
                                                                                   discoverable):
    holder, credential_id = holder_with_credential(launch, tmp_path, discoverable)
    (other,) = signalled(tmp_path, "other", options=("--no-credentials", order))
    host = launch(None, env=keys(holder, other))
    sign_in(host, discoverable, allow=[credential_id])
    wait_for_status(host, "g-1", "select-key")
    # Not ended by the key that holds none, whichever order it answers in: it waits for its touch like the other.
    wait_for_log(host, "holds no passkey" if discoverable else "holds none of the allowed credentials")
    touch(other)
    reply, _ = host.final("g-1")
    assert refused(reply), reply
    assert touch_taken(other) and not Path(f"{holder}.touch").exists()


@pytest.mark.parametrize("discoverable", [False, True], ids=["allow-list", "discoverable"])
@pytest.mark.parametrize("order", ORDERS)
def test_a_key_with_a_pin_holding_none_takes_its_pin_then_one_touch(launch, tmp_path, pinentry, order, discoverable):
    env, answers, _ = pinentry
    answers("pin 123456")
    (lone,) = signalled(tmp_path, "pin", options=("--pin", "123456", "--no-credentials", order))
    host = launch(lone, env=env)
    sign_in(host, discoverable, userVerification="preferred")
    wait_for_status(host, "g-1", "pin")
    wait_for_status(host, "g-1", "touch")  # the silent look with the PIN found none: one touch, then the refusal
    touch(lone)
    reply, _ = host.final("g-1")
    assert refused(reply), reply
    assert touch_taken(lone)


@pytest.mark.parametrize("profile", ["ctap20", "yubikey5"])
def test_a_key_refusing_the_silent_look_is_refused_after_one_touch_in_its_versions_order(launch, tmp_path, profile):
    # The silent look fails (the first getAssertion answered CTAP2_ERR_UNSUPPORTED_OPTION), so the request itself
    # asks: a CTAP 2.0 key (ctap20) takes the touch before "no credentials", a CTAP 2.1 key (yubikey5) answers at
    # once and the host asks for the touch.
    (lone,) = signalled(tmp_path, "lone", options=("--profile", profile))
    inject(lone, injectedErrors={2: 0x2B}, times=1)
    host = launch(lone)
    sign_in(host, discoverable=False)
    wait_for_status(host, "g-1", "touch")
    touch(lone)
    reply, _ = host.final("g-1")
    assert refused(reply), reply
    assert touch_taken(lone)
