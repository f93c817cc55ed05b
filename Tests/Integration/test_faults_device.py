"""Fault matrix, the key's side (issue 14, docs/robustness.md): HID reports and CBOR the key gets wrong, a key
pulled out mid-message, keys that never answer in time, and each CTAP error a real key sends during a ceremony.
The faults are injected into the SoftToken the real host drives through libfido2 (faults.py); every test ends in
`assert_survived`: the page's DOMException, the log line, a next request that succeeds, nothing lost."""

import os

import pytest

from bridge import Host, create_token
from rp import ORIGIN, creation_options, verify_registration
from faults import (GET_ASSERTION, GET_PIN_UV_AUTH_TOKEN_USING_PIN, GET_PIN_UV_AUTH_TOKEN_USING_UV,
                    MAKE_CREDENTIAL, STATUS, assert_survived, clear, create, get, inject, registered,
                    snapshot)

UNREADABLE = r"create failed .* NotAllowedError: The security key's answer could not be read \(FIDO_ERR_RX\)\.$"


@pytest.mark.parametrize("fault,log", [
    ("garbage", [r"fido_dev_make_cred: FIDO_ERR_RX$", UNREADABLE]),
    ("shortReport", [r"fido_dev_make_cred: FIDO_ERR_RX$", UNREADABLE]),
    ("badSequence", [r"fido_dev_make_cred: FIDO_ERR_RX$", UNREADABLE]),
    ("oversizedCBOR", [r"fido_dev_make_cred: FIDO_ERR_RX$", UNREADABLE]),
    ("truncatedCBOR", [r"fido_dev_make_cred: FIDO_ERR_RX_NOT_CBOR$",
                       r"NotAllowedError: The security key reported an error \(FIDO_ERR_RX_NOT_CBOR\)\.$"]),
])
def test_an_unreadable_answer_is_not_allowed_and_the_key_serves_again(launch, token, fault, log):
    host = launch(token)
    registered(host)
    before = snapshot(token)
    inject(token, command=MAKE_CREDENTIAL, response=fault)
    reply, _, _ = create(host, "c-1")
    assert_survived(host, reply, name="NotAllowedError", log=log, token=token, before=before)


def test_a_stray_answer_on_another_channel_is_ignored(launch, token):
    host = launch(token)
    before = snapshot(token)
    inject(token, command=MAKE_CREDENTIAL, response="strayReport")
    reply, _, _ = create(host, "c-1")
    assert_survived(host, reply, name=None, log=[r"created credential"], token=token, before=before)


def test_a_key_unplugged_mid_message_is_waited_for_and_serves_once_plugged_in_again(launch, token):
    """As Chromium with a USB key: a key pulled out before its PIN was asked for is waited for again (the
    request says `insert-key`), and plugged in again it serves the same request, its state whole."""
    host = launch(token)
    registered(host)
    before = snapshot(token)
    # Two reports of the makeCredential request reach the key, then it is gone from the port.
    inject(token, command=MAKE_CREDENTIAL, unplugAfterReports=2)
    built, challenge = creation_options()
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": built})
    while (frame := host.recv())["type"] == "status" and frame["status"] != "insert-key":
        pass
    assert frame["type"] == "status", frame
    assert not token.exists()
    clear(token)
    os.replace(f"{token}.unplugged", token)  # plugged in again
    reply, _ = host.final("c-1")
    assert_survived(host, reply, name=None, token=token, before=before,
                    log=[r"fido_dev_make_cred: key removed$", r"was removed .*; finding a key again$", r"create ok "])
    verify_registration(reply["credential"], challenge)


def test_a_connection_broken_mid_message_is_not_allowed(launch, token):
    host = launch(token)
    before = snapshot(token)
    inject(token, command=MAKE_CREDENTIAL, dropConnectionAfterReports=2)
    reply, _, _ = create(host, "c-1")
    assert_survived(host, reply, name="NotAllowedError", token=token, before=before,
                    log=[r"fido_dev_make_cred: FIDO_ERR_TX$", r"NotAllowedError: The security key reported an error \(FIDO_ERR_TX\)\.$"])


NEVER_IN_TIME = ("untouched", "stall", "keepAliveForever", "wrongChannel")


def test_keys_that_never_answer_in_time_end_at_the_request_timeout(tmp_path):
    """Keys slower than the request's timeout: one waiting for a touch that comes only once the fault is lifted,
    one silent, a keepalive storm, an answer on the wrong CTAPHID channel. Each request ends at its timeout (1 s
    asked, clamped to Chromium's 30 s minimum). They run at once, each on a host and key of its own, so the test
    waits those 30 s only once; nothing here measures time."""
    hosts = {}
    try:
        for fault in NEVER_IN_TIME:
            token = create_token(tmp_path / f"{fault}.state")
            (tmp_path / fault).mkdir()
            host = Host(tmp_path / fault, token)
            registered(host)
            hosts[fault] = (host, token, snapshot(token))
            inject(token, command=MAKE_CREDENTIAL, response=fault)
            options, _ = creation_options(timeout=1000)
            host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
        for fault, (host, token, before) in hosts.items():
            reply, _ = host.final("c-1", timeout=120)
            assert_survived(host, reply, name="NotAllowedError", token=token, before=before,
                            log=[r"fido_dev_make_cred: FIDO_ERR_RX$", r"create failed .* NotAllowedError: The operation timed out\.$"])
            assert len(snapshot(token)["credentials"]) == 2 + (fault != "untouched"), \
                "the silent keys ran the command and lost only the answer; the untouched one never ran it"
    finally:
        for host, _, _ in hosts.values():
            host.close()


# Each CTAP error a real key sends during a ceremony, injected where the key sends it: the status, the command,
# the ceremony, the page's DOMException, and what the outcome line says. Every one but NO_CREDENTIALS (which the
# host answers only after collecting a touch, as Chromium) also logs libfido2's code on a line of its own.
STATUS_CASES = [
    ("KEY_STORE_FULL", MAKE_CREDENTIAL, "create", "NotAllowedError", r"no room for another passkey"),
    ("OPERATION_DENIED", GET_ASSERTION, "get", "NotAllowedError", r"The operation was refused on the security key\.$"),
    ("USER_ACTION_TIMEOUT", MAKE_CREDENTIAL, "create", "NotAllowedError", r"The operation timed out\.$"),
    ("CREDENTIAL_EXCLUDED", MAKE_CREDENTIAL, "create", "InvalidStateError", r"already holds a credential registered with this site"),
    ("NO_CREDENTIALS", GET_ASSERTION, "get", "NotAllowedError", r"The security key has no credential for this site\.$"),
    ("INVALID_CBOR", MAKE_CREDENTIAL, "create", "NotAllowedError", r"reported an error \(FIDO_ERR_INVALID_CBOR\)\.$"),
    ("UNSUPPORTED_ALGORITHM", MAKE_CREDENTIAL, "create", "NotAllowedError", r"none of the requested algorithms"),
]


@pytest.mark.parametrize("status,command,ceremony,name,reason", STATUS_CASES, ids=[c[0] for c in STATUS_CASES])
def test_a_ctap_error_from_the_key_reaches_the_page_as_chromium_names_it(launch, token, status, command, ceremony, name, reason):
    host = launch(token)
    held = registered(host)
    before = snapshot(token)
    inject(token, injectedErrors={command: STATUS[status]})
    if ceremony == "create":
        reply, _, _ = create(host, "c-1", authenticatorSelection={"residentKey": "required"})
    else:
        reply, _ = get(host, "c-1", allow=[held])
    log = [rf"{ceremony} failed .* {name}: .*{reason}"]
    if status != "NO_CREDENTIALS":
        log.append(rf"fido_dev_(make_cred|get_assert): FIDO_ERR_{status}$")
    assert_survived(host, reply, name=name, token=token, before=before, log=log)


UV_REQUIRED = {"authenticatorSelection": {"userVerification": "required", "residentKey": "discouraged"}}


@pytest.mark.parametrize("status,reason", [
    ("PIN_BLOCKED", r"The security key.s PIN is blocked after too many wrong attempts; the key must be reset"),
    ("PIN_AUTH_BLOCKED", r"Too many wrong PINs in a row: remove and reinsert the security key"),
])
def test_a_pin_lockout_from_the_key_is_not_allowed(launch, tmp_path, pinentry, status, reason):
    env, answers, _ = pinentry
    answers("pin 123456")
    token = create_token(tmp_path / "t.state", "--pin", "123456")
    host = launch(token, env=env)
    before = snapshot(token)
    # The key refuses the PIN token (getPinUvAuthTokenUsingPinWithPermissions) as a locked key does.
    inject(token, clientPINErrors={GET_PIN_UV_AUTH_TOKEN_USING_PIN: STATUS[status]})
    reply, _, _ = create(host, "c-1", **UV_REQUIRED)
    assert_survived(host, reply, name="NotAllowedError", token=token, before=before,
                    log=[rf"fido_dev_make_cred: FIDO_ERR_{status}$", rf"create failed .* NotAllowedError: {reason}"])


def test_a_blocked_built_in_uv_without_a_pin_is_not_allowed(launch, tmp_path):
    token = create_token(tmp_path / "t.state", "--uv")
    host = launch(token)
    before = snapshot(token)
    inject(token, clientPINErrors={GET_PIN_UV_AUTH_TOKEN_USING_UV: STATUS["UV_BLOCKED"]})
    reply, _, _ = create(host, "c-1", **UV_REQUIRED)
    assert_survived(host, reply, name="NotAllowedError", token=token, before=before,
                    log=[r"fido_dev_make_cred: FIDO_ERR_UV_BLOCKED$",
                         r"create failed .* NotAllowedError: The security key's built-in user verification is blocked\.$"])


def test_a_wrong_pin_with_attempts_left_asks_again_and_a_cancel_is_not_allowed(launch, tmp_path, pinentry):
    env, answers, commands = pinentry
    answers("pin 000000", "cancel")  # the key really answers PIN_INVALID; the user then gives up
    token = create_token(tmp_path / "t.state", "--pin", "123456")
    host = launch(token, env=env)
    before = snapshot(token)
    reply, statuses, _ = create(host, "c-1", **UV_REQUIRED)
    # After the wrong PIN: the attempts left as data, no sentence (the extension words it).
    pins = [s for s in statuses if s["status"] == "pin"]
    assert [(s.get("attemptsLeft"), s.get("detail")) for s in pins] == [(None, None), (7, None)]
    assert_survived(host, reply, name="NotAllowedError", token=token, before=before, retries=(7, 8),
                    log=[r"wrong PIN entered; 7 attempts left$", r"create failed .* NotAllowedError: PIN entry was cancelled\.$"])
    assert any(c.startswith("SETERROR") for c in commands()), "the dialog said the PIN was wrong"
