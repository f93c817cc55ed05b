"""PIN and user verification through the real host, SoftToken and a scripted pinentry (issue 5)."""

import json
import re

import pytest

from bridge import NOT_ALLOWED_TEXT, create_token, decode_binary
from rp import ORIGIN, RP_ID, creation_options, request_options, verify_authentication, verify_registration

UV_REQUIRED = {"authenticatorSelection": {"userVerification": "required", "residentKey": "discouraged"}}


def create(host, request_id="c-1", **overrides):
    options, challenge = creation_options(**(UV_REQUIRED | overrides))
    reply, statuses = host.request({"id": request_id, "type": "create", "origin": ORIGIN, "options": options}, timeout=30)
    return reply, challenge, statuses


def test_right_pin_gives_a_credential_with_user_verification(launch, tmp_path, pinentry):
    env, answers, commands = pinentry
    answers("pin 123456")
    host = launch(create_token(tmp_path / "t.state", "--pin", "123456"), env=env)
    reply, challenge, statuses = create(host)
    assert reply["type"] == "result", reply
    verified = verify_registration(reply["credential"], challenge, require_uv=True)
    assert verified.user_verified
    assert [s["status"] for s in statuses][:2] == ["pin", "touch"]
    # Each phase of the ceremony is a log line with its duration.
    phases = [re.search(r"\[c-1\] phase ([a-z-]+): .*?(\d+) ms", l) for l in host.log().splitlines()]
    assert [m.group(1) for m in phases if m] == ["key-ready", "pin-entry", "key-answer"]
    description = next(c for c in commands() if c.startswith("SETDESC"))
    assert RP_ID in description and ORIGIN in description.replace("%3A", ":")

    options, challenge = request_options(allow=[verified.credential_id], userVerification="required")
    answers("pin 123456")
    reply, _ = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options}, timeout=30)
    verify_authentication(reply["credential"], challenge, verified.credential_public_key, verified.sign_count, require_uv=True)


def test_wrong_then_right_pin_shows_the_attempts_left(launch, tmp_path, pinentry):
    env, answers, commands = pinentry
    answers("pin 000000", "pin 123456")
    host = launch(create_token(tmp_path / "t.state", "--pin", "123456"), env=env)
    reply, challenge, _ = create(host)
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge, require_uv=True)
    errors = [c for c in commands() if c.startswith("SETERROR")]
    assert len(errors) == 1 and "Wrong PIN. 7 attempts left." in errors[0].replace("%2E", ".")


def test_cancelled_pin_entry_is_not_allowed(launch, tmp_path, pinentry):
    env, answers, _ = pinentry
    answers("cancel")
    host = launch(create_token(tmp_path / "t.state", "--pin", "123456"), env=env)
    reply, _, statuses = create(host)
    assert reply["error"] == {"name": "NotAllowedError", "message": NOT_ALLOWED_TEXT}
    assert reply["detail"] == "PIN entry was cancelled."
    assert "touch" not in [s["status"] for s in statuses]


def test_three_wrong_pins_in_a_row_say_remove_and_reinsert(launch, tmp_path, pinentry):
    env, answers, _ = pinentry
    answers("pin 000000", "pin 111111", "pin 222222", "pin 123456")
    host = launch(create_token(tmp_path / "t.state", "--pin", "123456"), env=env)
    reply, _, _ = create(host)
    assert reply["error"]["name"] == "NotAllowedError"
    assert reply["error"]["message"] == NOT_ALLOWED_TEXT, "a page must not learn the key's PIN state"
    assert "remove and reinsert" in reply["detail"]


def test_a_blocked_pin_says_the_key_must_be_reset(launch, tmp_path, pinentry):
    env, answers, _ = pinentry
    token = create_token(tmp_path / "t.state", "--pin", "123456")
    # 8 retries; PIN_AUTH_BLOCKED after 3 in a row, so every host (a "power cycle") gets 3 tries.
    for round_ in range(3):
        answers("pin 000000", "pin 000000", "pin 000000")
        host = launch(token, env=env)
        reply, _, _ = create(host, request_id=f"c-{round_}")
        host.close()
    assert reply["error"]["message"] == NOT_ALLOWED_TEXT, reply
    assert "reset" in reply["detail"], reply


def test_pin_is_set_up_when_uv_is_required_and_none_is_set(launch, tmp_path, pinentry):
    env, answers, commands = pinentry
    answers("pin 24680", "pin 13579", "pin 24680", "pin 24680")
    host = launch(create_token(tmp_path / "t.state"), env=env)
    reply, challenge, statuses = create(host)
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge, require_uv=True)
    # A code only: the extension has the sentence for it.
    assert [s for s in statuses if s["status"] == "set-pin"] == [{"id": "c-1", "type": "status", "status": "set-pin"}]
    # The mismatch was noticed and the user asked again.
    assert any(c.startswith("SETERROR") for c in commands())
    # The new PIN now guards the key.
    answers("pin 24680")
    reply, challenge, _ = create(host, request_id="c-2")
    verify_registration(reply["credential"], challenge, require_uv=True)


# The statuses show which verification the host asked for; the host sends them only once the key has been
# waiting a moment (DeferredStatus), so these tokens take their time like a person would.
WAITS_FOR_THE_USER = ("--presence", "delay:300")


def test_built_in_uv_needs_no_pin_prompt(launch, tmp_path, pinentry):
    env, _, commands = pinentry
    host = launch(create_token(tmp_path / "t.state", "--uv", "--pin", "123456", *WAITS_FOR_THE_USER), env=env)
    reply, challenge, statuses = create(host)
    assert reply["type"] == "result", reply
    assert verify_registration(reply["credential"], challenge, require_uv=True).user_verified
    assert "uv" in [s["status"] for s in statuses]
    assert commands() == []


def test_blocked_built_in_uv_falls_back_to_the_pin(launch, tmp_path, pinentry):
    env, answers, commands = pinentry
    answers("pin 123456")
    host = launch(create_token(tmp_path / "t.state", "--uv", "--uv-fails", "--pin", "123456", *WAITS_FOR_THE_USER), env=env)
    reply, challenge, statuses = create(host)
    assert reply["type"] == "result", reply
    assert verify_registration(reply["credential"], challenge, require_uv=True).user_verified
    kinds = [s["status"] for s in statuses]
    assert kinds.index("uv") < kinds.index("pin"), kinds
    assert any(c == "GETPIN" for c in commands())
    assert "falling back to the PIN" in host.log()


def test_no_pin_reaches_the_log_even_at_trace_level(launch, tmp_path, pinentry):
    env, answers, _ = pinentry
    # Wrong PIN first, then the right one; neither is a string a trace's numbers could hold by chance (a getInfo
    # reports 1,000,000 free slots, which holds "000000").
    answers("pin 528619", "pin 731904")
    host = launch(create_token(tmp_path / "t.state", "--pin", "731904"), env=env, log_level="trace")
    reply, _, statuses = create(host)
    assert reply["type"] == "result", reply
    host.close()
    # Nor any frame sent to the browser: the statuses of both PIN rounds and the result.
    frames = json.dumps([reply, *statuses])
    assert "pin" in [s["status"] for s in statuses], statuses
    for secret in ("731904", "528619", "731904".encode().hex(), "528619".encode().hex()):
        assert secret not in frames
    log = host.log()
    assert "libfido2:" in log, "trace level includes libfido2's own output"
    assert "CTAP → authenticatorClientPIN" in log and "CTAP → authenticatorMakeCredential {" in log
    assert ": <redacted>" in log
    assert not re.search(r"libfido2: \d{4}: [0-9a-f]{2} ", log), "no raw frame dump may reach the log"
    for secret in ("731904", "528619", "731904".encode().hex(), "528619".encode().hex()):
        assert secret not in log


def test_fido_debug_in_the_environment_dumps_no_frames_to_stderr(launch, tmp_path, pinentry):
    # libfido2 prints every CTAPHID frame in hex to stderr when FIDO_DEBUG is set, PIN material included;
    # the host's stderr ends up in the browser's own log, so the variable must not take effect.
    env, answers, _ = pinentry
    answers("pin 482915")
    host = launch(create_token(tmp_path / "t.state", "--pin", "482915"), env={**env, "FIDO_DEBUG": "1"})
    reply, _, _ = create(host)
    assert reply["type"] == "result", reply
    host.close()
    stderr = host.proc.stderr.read().decode()
    assert not re.search(r"\d{4}: [0-9a-f]{2} [0-9a-f]{2} ", stderr), stderr[:2000]
    assert "fido_tx" not in stderr and "fido_rx" not in stderr


DISCOVERABLE_UV_DISCOURAGED = {"authenticatorSelection": {"residentKey": "required", "userVerification": "discouraged"}}


def test_discoverable_credential_on_a_key_with_built_in_uv_uses_it_even_when_discouraged(launch, tmp_path):
    # CTAP 2.1: makeCredUvNotRqd spares UV for non-discoverable credentials only; a key with UV configured
    # refuses to store a discoverable one without it. Chromium verifies the user here, and so does the host.
    host = launch(create_token(tmp_path / "t.state", "--uv", *WAITS_FOR_THE_USER))
    reply, challenge, statuses = create(host, **DISCOVERABLE_UV_DISCOURAGED)
    assert reply["type"] == "result", reply
    assert "uv" in [s["status"] for s in statuses]
    assert verify_registration(reply["credential"], challenge).user_verified


def test_discoverable_credential_on_a_key_with_a_pin_asks_for_it_even_when_discouraged(launch, tmp_path, pinentry):
    env, answers, _ = pinentry
    answers("pin 246810")
    host = launch(create_token(tmp_path / "t.state", "--pin", "246810"), env=env)
    reply, challenge, statuses = create(host, **DISCOVERABLE_UV_DISCOURAGED)
    assert reply["type"] == "result", reply
    assert [s["status"] for s in statuses][:1] == ["pin"]
    assert verify_registration(reply["credential"], challenge).user_verified
