"""Several keys, one touch (docs/keys.md, "Several keys"): the request goes to every key at once and the key the
user touches answers, as Chromium dispatches it; the others are cancelled and left usable. A key that needs its
PIN is first chosen by a touch, then asked for its PIN. Keys plugged in during the request join it, keys pulled
out drop out of it. Each SoftToken here is touched only when the test says so (`--presence signal`: a file
FILE.touch is one touch), so every wait is on an event: a status frame, a log line, a touch taken."""

import os
import time
from pathlib import Path

import pytest

from bridge import binary, create_token, decode_binary
from rp import ORIGIN, creation_options, request_options, verify_authentication, verify_registration
from test_keys_plugging import credentials_on, keys, wait_for_log, wait_for_status


def signalled(tmp_path, *names, options=()) -> list[Path]:
    """Keys whose simulated user touches only on the test's signal."""
    return [create_token(tmp_path / f"{name}.state", "--presence", "signal", *options) for name in names]


def touch(token: Path):
    Path(f"{token}.touch").touch()


def touch_taken(token: Path) -> bool:
    return not Path(f"{token}.touch").exists()


def start_create(host, request_id="c-1", **selection):
    options, challenge = creation_options(**({"authenticatorSelection": selection} if selection else {}))
    host.send({"id": request_id, "type": "create", "origin": ORIGIN, "options": options})
    return challenge


def registered_on(token: Path, launch) -> tuple:
    """Registers a credential on `token` alone (touched on signal), then returns the credential."""
    host = launch(token)
    challenge = start_create(host, "c-0")
    touch(token)
    reply, _ = host.final("c-0")
    assert reply["type"] == "result", reply
    host.close()
    return verify_registration(reply["credential"], challenge)


def test_of_two_keys_the_one_touched_makes_the_credential_with_one_touch(launch, tmp_path):
    first, second = signalled(tmp_path, "first", "second")
    host = launch(None, env=keys(first, second))
    challenge = start_create(host)
    wait_for_status(host, "c-1", "select-key")
    touch(second)
    reply, statuses = host.final("c-1")
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)
    assert [s["status"] for s in statuses] in ([], ["processing"]), statuses
    assert touch_taken(second)
    assert len(credentials_on(second)) == 1 and credentials_on(first) == []
    assert "was chosen; the other keys are cancelled" in host.log()

    # The key that lost was cancelled and closed cleanly: the next request on it needs nothing but its touch.
    challenge = start_create(host, "c-2")
    wait_for_status(host, "c-2", "select-key")
    touch(first)
    reply, _ = host.final("c-2")
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)
    assert len(credentials_on(first)) == 1 and len(credentials_on(second)) == 1


def signing_in_with_two_keys(launch, tmp_path):
    """A sign-in sent to two keys, `holder` holding the allowed credential and `other` not, both waiting."""
    holder, other = signalled(tmp_path, "holder", "other")
    registered = registered_on(holder, launch)
    host = launch(None, env=keys(holder, other))
    options, challenge = request_options(allow=[registered.credential_id])
    host.send({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    wait_for_status(host, "g-1", "select-key")
    return host, holder, other, registered, challenge


def test_of_two_keys_the_one_holding_the_credential_signs_in_when_touched(launch, tmp_path):
    host, holder, other, registered, challenge = signing_in_with_two_keys(launch, tmp_path)
    touch(holder)
    reply, _ = host.final("g-1")
    assert reply["type"] == "result", reply
    verify_authentication(reply["credential"], challenge, registered.credential_public_key, registered.sign_count)
    assert not Path(f"{other}.touch").exists()


def test_of_three_keys_the_third_touched_answers(launch, tmp_path):
    tokens = signalled(tmp_path, "a", "b", "c")
    host = launch(None, env=keys(*tokens))
    challenge = start_create(host)
    wait_for_status(host, "c-1", "select-key")
    touch(tokens[2])
    reply, _ = host.final("c-1")
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)
    assert [len(credentials_on(t)) for t in tokens] == [0, 0, 1]


def test_a_key_plugged_in_while_two_race_joins_and_can_win(launch, tmp_path):
    first, second = signalled(tmp_path, "first", "second")
    plugged = tmp_path / "plugged.state"
    host = launch(None, env=keys(first, second, plugged))
    challenge = start_create(host)
    wait_for_status(host, "c-1", "select-key")
    signalled(tmp_path, "plugged")
    wait_for_log(host, "was plugged in; it joins the request")
    touch(plugged)
    reply, statuses = host.final("c-1")
    assert reply["type"] == "result", reply
    assert "select-key" not in [s["status"] for s in statuses]  # joined the request; nothing started over
    verify_registration(reply["credential"], challenge)
    assert [len(credentials_on(t)) for t in (first, second, plugged)] == [0, 0, 1]


def test_a_key_pulled_out_of_three_drops_out_and_another_wins(launch, tmp_path):
    tokens = signalled(tmp_path, "a", "b", "c")
    host = launch(None, env=keys(*tokens))
    challenge = start_create(host)
    wait_for_status(host, "c-1", "select-key")
    os.remove(tokens[0])
    wait_for_log(host, "was removed while it waited for its touch; it drops out")
    touch(tokens[1])
    reply, statuses = host.final("c-1")
    assert reply["type"] == "result", reply
    assert "insert-key" not in [s["status"] for s in statuses], statuses
    verify_registration(reply["credential"], challenge)
    assert [len(credentials_on(t)) for t in tokens[1:]] == [1, 0]


def test_every_key_pulled_out_asks_for_a_key_and_one_plugged_back_answers(launch, tmp_path):
    first, second = signalled(tmp_path, "first", "second")
    host = launch(None, env=keys(first, second))
    challenge = start_create(host)
    wait_for_status(host, "c-1", "select-key")
    saved = second.read_text()
    os.remove(first)
    os.remove(second)
    wait_for_status(host, "c-1", "insert-key")
    second.write_text(saved)
    touch(second)
    reply, _ = host.final("c-1")
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)


def test_a_key_with_a_pin_is_chosen_by_a_touch_then_asked_for_its_pin(launch, tmp_path, pinentry):
    env, answers, commands = pinentry
    answers("pin 123456")
    (with_pin,) = signalled(tmp_path, "pin", options=("--pin", "123456"))
    (without,) = signalled(tmp_path, "nopin")
    host = launch(None, env={**env, **keys(with_pin, without)})
    challenge = start_create(host, userVerification="preferred", residentKey="discouraged")
    wait_for_status(host, "c-1", "select-key")
    assert not [c for c in commands() if c.startswith("GETPIN")]  # no PIN dialog before the key is chosen
    touch(with_pin)
    wait_for_status(host, "c-1", "pin")
    wait_for_status(host, "c-1", "touch")  # the PIN's request itself, on the chosen key
    touch(with_pin)
    reply, _ = host.final("c-1")
    assert reply["type"] == "result", reply
    assert verify_registration(reply["credential"], challenge, require_uv=True).user_verified
    assert credentials_on(without) == []


def test_an_excluded_credential_on_the_key_touched_ends_the_request(launch, tmp_path):
    holder, other = signalled(tmp_path, "holder", "other")
    registered = registered_on(holder, launch)
    host = launch(None, env=keys(holder, other))
    options, _ = creation_options(excludeCredentials=[{"type": "public-key", "id": binary(registered.credential_id)}])
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    wait_for_status(host, "c-1", "select-key")
    touch(holder)
    reply, _ = host.final("c-1")
    assert reply["type"] == "error" and reply["error"]["name"] == "InvalidStateError", reply
    assert credentials_on(other) == []


def test_a_page_abort_cancels_every_key_and_leaves_them_usable(launch, tmp_path):
    tokens = signalled(tmp_path, "a", "b", "c")
    host = launch(None, env=keys(*tokens))
    start_create(host)
    wait_for_status(host, "c-1", "select-key")
    host.send({"id": "c-1", "type": "cancel"})
    reply, _ = host.final("c-1")
    assert reply["type"] == "error" and reply["error"]["name"] == "AbortError", reply
    # Every key let go of its request: the next one goes to all three again and the key touched answers.
    challenge = start_create(host, "c-2")
    wait_for_status(host, "c-2", "select-key")
    touch(tokens[0])
    reply, _ = host.final("c-2")
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)


@pytest.mark.parametrize("others", [1, 2])
def test_a_key_without_the_credential_is_refused_after_one_touch_and_the_right_key_then_serves(launch, tmp_path, others):
    holder, *wrong = signalled(tmp_path, "holder", *[f"other{i}" for i in range(others)])
    registered = registered_on(holder, launch)
    host = launch(None, env=keys(holder, *wrong))
    options, _ = request_options(allow=[registered.credential_id])
    host.send({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    wait_for_status(host, "g-1", "select-key")
    # Each key was asked silently which allowed credential it holds; a key holding none gets a touch request only.
    wait_for_log(host, "holds none of the allowed credentials")
    touch(wrong[-1])
    reply, _ = host.final("g-1")  # one touch: a second would be needed before the answer otherwise
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply
    assert reply["detail"] == "The security key has no credential for this site.", reply
    assert touch_taken(wrong[-1]) and not Path(f"{holder}.touch").exists()

    # The user tries again (Chromium's "Try again" starts the request over): the key holding it signs in.
    options, challenge = request_options(allow=[registered.credential_id])
    host.send({"id": "g-2", "type": "get", "origin": ORIGIN, "options": options})
    wait_for_status(host, "g-2", "select-key")
    touch(holder)
    reply, _ = host.final("g-2")
    assert reply["type"] == "result", reply
    verify_authentication(reply["credential"], challenge, registered.credential_public_key, registered.sign_count)


def test_a_lone_key_holding_none_is_refused_after_one_touch(launch, tmp_path):
    (lone,) = signalled(tmp_path, "lone")
    host = launch(lone)
    options, _ = request_options(allow=[os.urandom(64)])
    host.send({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    wait_for_status(host, "g-1", "touch")  # a race of one: asked for its touch, as a key holding one is
    touch(lone)
    reply, _ = host.final("g-1")
    assert reply["type"] == "error" and reply["detail"] == "The security key has no credential for this site.", reply
    assert touch_taken(lone)


def test_a_key_with_a_pin_holding_none_takes_its_choosing_touch_its_pin_and_one_touch(launch, tmp_path, pinentry):
    env, answers, _ = pinentry
    answers("pin 123456")
    (holder,) = signalled(tmp_path, "holder")
    (with_pin,) = signalled(tmp_path, "pin", options=("--pin", "123456"))
    registered = registered_on(holder, launch)
    host = launch(None, env={**env, **keys(holder, with_pin)})
    options, _ = request_options(allow=[registered.credential_id], userVerification="preferred")
    host.send({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    wait_for_status(host, "g-1", "select-key")
    touch(with_pin)  # chosen for its PIN
    wait_for_status(host, "g-1", "pin")
    wait_for_status(host, "g-1", "touch")  # after the PIN, the silent look with it found none: one touch
    touch(with_pin)
    reply, _ = host.final("g-1")
    assert reply["type"] == "error" and reply["detail"] == "The security key has no credential for this site.", reply
    assert touch_taken(with_pin) and not Path(f"{holder}.touch").exists()


@pytest.mark.parametrize("u2f_holds", [False, True])
def test_a_u2f_key_is_asked_check_only_and_answers_with_one_touch(launch, tmp_path, u2f_holds):
    # libfido2 asks a U2F key silently with U2F_AUTHENTICATE "check-only" (0x07), as Chromium's U2F sign does.
    (u2f,) = signalled(tmp_path, "u2f", options=("--profile", "u2f-only"))
    (ctap2,) = signalled(tmp_path, "ctap2")
    holder, other = (u2f, ctap2) if u2f_holds else (ctap2, u2f)
    registered = registered_on(holder, launch)
    host = launch(None, env=keys(u2f, ctap2))
    options, challenge = request_options(allow=[registered.credential_id])
    host.send({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    wait_for_status(host, "g-1", "select-key")
    wait_for_log(host, "holds none of the allowed credentials")
    touch(u2f)
    reply, _ = host.final("g-1")
    if u2f_holds:
        assert reply["type"] == "result", reply
        verify_authentication(reply["credential"], challenge, registered.credential_public_key, registered.sign_count)
    else:
        assert reply["type"] == "error" and reply["detail"] == "The security key has no credential for this site.", reply
    assert touch_taken(u2f) and not Path(f"{ctap2}.touch").exists()


def test_with_appid_a_key_holding_none_under_either_id_takes_one_touch(launch, tmp_path):
    from test_u2f import APPID, u2f_register
    (holder,) = signalled(tmp_path, "holder", options=("--profile", "u2f-only"))
    (other,) = signalled(tmp_path, "other")
    touch(holder)  # the registration's own touch
    registered = u2f_register(holder)
    assert touch_taken(holder)
    host = launch(None, env=keys(holder, other))
    options, _ = request_options(allow=[registered["id"]], extensions={"appid": APPID})
    host.send({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    wait_for_status(host, "g-1", "select-key")
    wait_for_log(host, "holds none of the allowed credentials")
    touch(other)
    reply, _ = host.final("g-1")
    assert reply["type"] == "error" and reply["detail"] == "The security key has no credential for this site.", reply
    assert touch_taken(other) and not Path(f"{holder}.touch").exists()


def test_a_fingerprint_key_among_two_is_chosen_by_its_fingerprint_alone(launch, tmp_path):
    # As Chromium (AuthTokenRequester: built-in UV first, no touch to select): the finger on the sensor chooses
    # the key, verifies the user and shows them present, so one touch of it makes the credential.
    (bio,) = signalled(tmp_path, "bio", options=("--profile", "bio"))
    (plain,) = signalled(tmp_path, "plain")
    host = launch(None, env=keys(bio, plain))
    challenge = start_create(host, userVerification="required", residentKey="discouraged")
    wait_for_status(host, "c-1", "select-key")
    touch(bio)
    reply, _ = host.final("c-1")
    assert reply["type"] == "result", reply
    assert verify_registration(reply["credential"], challenge, require_uv=True).user_verified
    assert touch_taken(bio) and credentials_on(plain) == []


def test_a_fingerprint_key_holding_none_is_refused_after_the_finger_alone(launch, tmp_path):
    (holder,) = signalled(tmp_path, "holder")
    (bio,) = signalled(tmp_path, "bio", options=("--profile", "bio"))
    registered = registered_on(holder, launch)
    host = launch(None, env=keys(holder, bio))
    options, _ = request_options(allow=[registered.credential_id], userVerification="preferred")
    host.send({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    wait_for_status(host, "g-1", "select-key")
    touch(bio)  # the finger: it verifies, and the key then says it holds none
    reply, _ = host.final("g-1")
    assert reply["type"] == "error" and reply["detail"] == "The security key has no credential for this site.", reply
    assert touch_taken(bio) and not Path(f"{holder}.touch").exists()


def test_a_fingerprint_not_recognised_chooses_its_key_and_asks_again(launch, tmp_path):
    # Chromium selects the authenticator on a failed fingerprint too, then asks for another: the other keys are
    # cancelled and the retry speaks (`uv`) for the key chosen.
    (bio,) = signalled(tmp_path, "bio", options=("--profile", "bio", "--uv-fails"))
    (plain,) = signalled(tmp_path, "plain")
    host = launch(None, env=keys(bio, plain))
    start_create(host, userVerification="required", residentKey="discouraged")
    wait_for_status(host, "c-1", "select-key")
    touch(bio)
    wait_for_status(host, "c-1", "uv")
    log = host.log()
    assert "was chosen; the other keys are cancelled" in log and "built-in user verification failed; asking again" in log
    host.send({"id": "c-1", "type": "cancel"})
    reply, _ = host.final("c-1")
    assert reply["type"] == "error" and reply["error"]["name"] == "AbortError", reply
    assert credentials_on(bio) == [] and credentials_on(plain) == []


def test_a_page_abort_while_the_chosen_keys_pin_is_typed_closes_the_dialog(launch, tmp_path, pinentry):
    env, _, commands = pinentry
    os.remove(env["FAKE_PINENTRY_SCRIPT"])  # no answer: the dialog stays open until the host closes it
    (with_pin,) = signalled(tmp_path, "pin", options=("--pin", "123456"))
    (without,) = signalled(tmp_path, "nopin")
    host = launch(None, env={**env, "FAKE_PINENTRY_HOLD": "1", **keys(with_pin, without)})
    start_create(host, userVerification="required")
    wait_for_status(host, "c-1", "select-key")
    touch(with_pin)  # chosen for its PIN: the other key is cancelled, the dialog opens
    wait_for_status(host, "c-1", "pin")
    deadline = time.monotonic() + 20
    while not [c for c in commands() if c.startswith("GETPIN")]:  # the dialog is up (logged before it waits)
        assert time.monotonic() < deadline, "the PIN dialog never asked"
        time.sleep(0.02)
    host.send({"id": "c-1", "type": "cancel"})
    reply, _ = host.final("c-1")
    assert reply["type"] == "error" and reply["error"]["name"] == "AbortError", reply
    assert credentials_on(with_pin) == [] and credentials_on(without) == []


def test_a_key_plugged_in_next_to_a_lone_waiting_key_joins_its_request(launch, tmp_path):
    (first,) = signalled(tmp_path, "first")
    second = tmp_path / "second.state"
    host = launch(None, env=keys(first, second))
    challenge = start_create(host)
    wait_for_status(host, "c-1", "touch")  # the only key: asked for its touch, not to be chosen
    signalled(tmp_path, "second")
    wait_for_log(host, "was plugged in; it joins the request")
    wait_for_status(host, "c-1", "select-key")
    touch(first)  # the first key's request was never cancelled: its one touch answers it
    reply, _ = host.final("c-1")
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)
    assert len(credentials_on(first)) == 1 and credentials_on(second) == []
    assert "finding a key again" not in host.log()


def two_accounts_on(token: Path, launch) -> dict:
    """Registers discoverable credentials for alice and bob on `token` alone (touched on signal); returns them by
    user handle."""
    host = launch(token)
    registered = {}
    for name in ("alice", "bob"):
        options, challenge = creation_options(user_id=name.encode(), name=name,
                                              authenticatorSelection={"residentKey": "required"})
        host.send({"id": f"c-{name}", "type": "create", "origin": ORIGIN, "options": options})
        touch(token)
        reply, _ = host.final(f"c-{name}")
        assert reply["type"] == "result", reply
        registered[name.encode()] = verify_registration(reply["credential"], challenge)
    host.close()
    return registered


def choosing_an_account_when_a_key_is_plugged_in(launch, tmp_path):
    """A sign-in whose key answered with two accounts; while the user chooses, a second key is plugged in."""
    (holder,) = signalled(tmp_path, "holder")
    registered = two_accounts_on(holder, launch)
    plugged = tmp_path / "plugged.state"
    host = launch(None, env=keys(holder, plugged))
    options, challenge = request_options()
    host.send({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    wait_for_status(host, "g-1", "touch")
    touch(holder)
    accounts = [decode_binary(a["id"]) for a in wait_for_status(host, "g-1", "select-account")["accounts"]]
    signalled(tmp_path, "plugged")
    wait_for_log(host, "answered; it is not asked")
    return host, accounts, registered, challenge


def test_a_key_plugged_in_while_the_account_is_chosen_leaves_the_choice_to_the_user(launch, tmp_path):
    # As Chromium, which dispatches the request to no key once one answered (its account chooser comes after).
    host, accounts, registered, challenge = choosing_an_account_when_a_key_is_plugged_in(launch, tmp_path)
    host.send({"id": "g-1", "type": "select", "index": accounts.index(b"bob")})
    reply, statuses = host.final("g-1")
    assert reply["type"] == "result", reply
    assert "select-key" not in [s["status"] for s in statuses], statuses
    assert decode_binary(reply["credential"]["response"]["userHandle"]) == b"bob"
    bob = registered[b"bob"]
    verify_authentication(reply["credential"], challenge, bob.credential_public_key, bob.sign_count)
    log = host.log()
    assert log.count("phase key-ready") == 1, log  # one ceremony: nothing started over
    assert "every key will be asked" not in log and "finding a key again" not in log, log


def test_declining_the_account_choice_after_a_key_was_plugged_in_ends_the_request(launch, tmp_path):
    host, _, _, _ = choosing_an_account_when_a_key_is_plugged_in(launch, tmp_path)
    host.send({"id": "g-1", "type": "select", "index": None})
    reply, statuses = host.final("g-1")  # at once: a ceremony started over would wait for a touch until the timeout
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply
    assert "select-key" not in [s["status"] for s in statuses], statuses
    assert host.log().count("phase key-ready") == 1, host.log()


def test_the_key_pulled_out_while_the_account_is_chosen_leaves_the_choice_to_the_user(launch, tmp_path):
    # Its accounts' assertions are already signed: as in Chromium, whose account chooser opens once the key answered.
    (holder,) = signalled(tmp_path, "holder")
    registered = two_accounts_on(holder, launch)
    host = launch(holder)
    options, challenge = request_options()
    host.send({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    touch(holder)
    accounts = [decode_binary(a["id"]) for a in wait_for_status(host, "g-1", "select-account")["accounts"]]
    os.remove(holder)
    wait_for_log(host, "was removed after it answered; its answer stands")
    host.send({"id": "g-1", "type": "select", "index": accounts.index(b"alice")})
    reply, statuses = host.final("g-1")
    assert reply["type"] == "result", reply
    assert "insert-key" not in [s["status"] for s in statuses], statuses
    alice = registered[b"alice"]
    verify_authentication(reply["credential"], challenge, alice.credential_public_key, alice.sign_count)
