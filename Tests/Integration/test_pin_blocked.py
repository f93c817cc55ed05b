"""A key whose PIN is locked is not asked for it: no PIN dialog, the page's NotAllowedError, the reason for the user.

Chromium (device/fido/auth_token_requester.cc, AuthTokenRequester::OnGetPINRetries) reads getPINRetries before it
shows its PIN dialog and, at 0, ends the request as a hard PIN block (kHardPINBlock in
make_credential_request_handler.cc and get_assertion_request_handler.cc): NotAllowedError for the page, "the key
must be reset" for the user. A key that answered CTAP2_ERR_PIN_AUTH_BLOCKED (a soft block: 3 wrong PINs in a row)
refuses every PIN until it is reinserted; the host remembers that answer and does not ask again either. Through
the real host, libfido2, a SoftToken and the scripted pinentry, whose log shows whether it was started at all."""

import re

import pytest

from bridge import create_token
from faults import PLAIN, assert_logged, assert_page_error, assert_survived, create, get, registered, snapshot
from rp import verify_registration

UV_REQUIRED = {"authenticatorSelection": {"userVerification": "required", "residentKey": "discouraged"}}
PIN = "123456"
WRONG = "pin 000000"
HARD_BLOCK = r"^The security key.s PIN is blocked after too many wrong attempts; the key must be reset\.$"
SOFT_BLOCK = r"^Too many wrong PINs in a row: remove and reinsert the security key, then try again\.$"


def dialogs(commands) -> int:
    """How many PIN dialogs the pinentry showed (each asks with one GETPIN)."""
    return sum(1 for c in commands() if c.startswith("GETPIN"))


def assert_not_asked(reply, statuses, detail: str):
    assert_page_error(reply, "NotAllowedError")
    assert re.search(detail, reply.get("detail", "")), reply
    assert "pin" not in [s["status"] for s in statuses], statuses
    # Chromium's soft- and hard-block sheets offer Try again (another key, or this one reinserted).
    assert reply.get("retry") is True, reply


def block_pin(launch, token, env, answers, commands):
    """Spends the PIN's 8 attempts on wrong PINs, as a user would: 3 a power cycle (the key refuses more until it
    is reinserted; each host loads the token anew, which is its reinsertion), the 8th blocks it for good."""
    for spell, wrong in enumerate((3, 3, 2)):
        host = launch(token, env=env)
        answers(*[WRONG] * wrong)
        shown = dialogs(commands)
        reply, _, _ = create(host, f"wrong-{spell}", **UV_REQUIRED)
        assert_not_asked(reply, [], SOFT_BLOCK if wrong == 3 else HARD_BLOCK)
        assert dialogs(commands) == shown + wrong
        host.close()
    assert snapshot(token)["pinRetries"] == 0


@pytest.mark.parametrize("kind", [["--pin", PIN], ["--uv", "--uv-fails", "--pin", PIN]],
                         ids=["pin", "uv-blocked-then-pin"])
def test_a_blocked_pin_is_not_asked_for(launch, tmp_path, pinentry, kind):
    env, answers, commands = pinentry
    token = create_token(tmp_path / "t.state", *kind)
    host = launch(token, env=env)
    held = registered(host)  # needs no UV (makeCredUvNotRqd): a credential to sign in with once the PIN is blocked
    host.close()
    block_pin(launch, token, env, answers, commands)

    host = launch(token, env=env)
    answers(f"pin {PIN}")  # the right PIN, were the dialog shown
    shown = dialogs(commands)
    reply, statuses, _ = create(host, "c-1", **UV_REQUIRED)
    assert_not_asked(reply, statuses, HARD_BLOCK)
    reply, statuses = get(host, "g-1", allow=[held], userVerification="required")
    assert_not_asked(reply, statuses, HARD_BLOCK)
    assert dialogs(commands) == shown, "a pinentry was started for a blocked PIN"
    logged = [r"the key's PIN is blocked \(0 attempts left\): not asking for it; the key must be reset$",
              r"get failed .* NotAllowedError: The security key's PIN is blocked"]
    if "--uv" in kind:
        logged.insert(0, r"built-in user verification blocked; falling back to the PIN$")
    assert_logged(host, "c-1", logged[:-1])
    assert_survived(host, reply, name="NotAllowedError", token=token, before=snapshot(token), log=logged)


def test_a_key_waiting_for_its_reinsertion_is_not_asked_again_until_then(launch, tmp_path, pinentry):
    env, answers, commands = pinentry
    token = create_token(tmp_path / "t.state", "--pin", PIN)
    host = launch(token, env=env)
    answers(WRONG, WRONG, WRONG)
    reply, statuses, _ = create(host, "c-1", **UV_REQUIRED)
    assert_not_asked(reply, [], SOFT_BLOCK)
    assert dialogs(commands) == 3
    # The key now refuses any PIN until it is reinserted: the host does not ask for one it would refuse.
    answers(f"pin {PIN}")
    before = snapshot(token)
    reply, statuses, _ = create(host, "c-2", **UV_REQUIRED)
    assert_not_asked(reply, statuses, SOFT_BLOCK)
    assert dialogs(commands) == 3, "a pinentry was started for a key that refuses every PIN until reinserted"
    assert_survived(host, reply, name="NotAllowedError", token=token, before=before,
                    log=[r"refused its PIN after too many wrong attempts in a row and was not reinserted since: "
                         r"not asking for it$",
                         r"create failed .* NotAllowedError: Too many wrong PINs in a row"])
    host.close()

    # Reinserted (a new host loads the token anew), with attempts left: the PIN is asked for, and the right one works.
    host = launch(token, env=env)
    answers(f"pin {PIN}")
    reply, statuses, challenge = create(host, "c-3", **UV_REQUIRED)
    assert reply["type"] == "result", (reply, host.log())
    assert verify_registration(reply["credential"], challenge, require_uv=True).user_verified
    assert [s["status"] for s in statuses][:1] == ["pin"] and dialogs(commands) == 4
    assert snapshot(token)["pinRetries"] == 8


def test_a_wrong_pin_with_attempts_left_is_still_asked_again(launch, tmp_path, pinentry):
    env, answers, commands = pinentry
    token = create_token(tmp_path / "t.state", "--pin", PIN)
    host = launch(token, env=env)
    answers(WRONG, f"pin {PIN}")
    reply, statuses, _ = create(host, "c-1", **UV_REQUIRED)
    assert reply["type"] == "result", reply
    assert dialogs(commands) == 2
    pins = [s for s in statuses if s["status"] == "pin"]
    assert [(s.get("attemptsLeft"), s.get("detail")) for s in pins] == [(None, None), (7, None)]
    reply, _, _ = create(host, "c-2", **PLAIN)
    assert reply["type"] == "result", reply


def test_built_in_uv_with_no_attempts_left_and_no_pin_fails_once_the_key_is_touched(launch, tmp_path):
    # Chromium (AuthTokenRequester::OnGetUVRetries) reads getUVRetries first and, at 0 on a key without a PIN,
    # fails only after a touch; the touch is delayed so that the host's wait for it shows as a status.
    token = create_token(tmp_path / "t.state", "--uv", "--uv-fails", "--presence", "delay:300")
    host = launch(token)
    reply, _, _ = create(host, "c-1", **UV_REQUIRED)  # 8 failed fingerprints: built-in UV is blocked
    assert_page_error(reply, "NotAllowedError")
    assert snapshot(token)["uvRetries"] == 0
    before = snapshot(token)
    reply, statuses, _ = create(host, "c-2", **UV_REQUIRED)
    assert re.search(r"^The security key's built-in user verification is blocked\.$", reply.get("detail", "")), reply
    assert [s["status"] for s in statuses] == ["touch"], statuses
    assert_survived(host, reply, name="NotAllowedError", token=token, before=before,
                    log=[r"built-in user verification blocked \(0 attempts left\) and the key has no PIN: "
                         r"refusing once it is touched$"])
