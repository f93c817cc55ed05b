"""Fault matrix, the PIN prompt (issue 14, docs/robustness.md): a pinentry that crashes, is missing, answers
garbage or exits without a word, and a host with neither a pinentry nor a terminal. Each time the page gets
NotAllowedError, the log says why, nothing the broken prompt printed reaches the key as a PIN (the retry counter
is untouched), no pinentry is left running, and the host serves the next request. A pinentry killed with its host
and the terminal it leaves are in test_faults_host.py and test_pinentry_lifetime.py."""

from pathlib import Path

import pytest

from bridge import create_token
from faults import assert_survived, create, registered, snapshot

BROKEN = str(Path(__file__).with_name("broken_pinentry.py"))
UV_REQUIRED = {"authenticatorSelection": {"userVerification": "required", "residentKey": "discouraged"}}


def pin_request_with(launch, tmp_path, env):
    token = create_token(tmp_path / "t.state", "--pin", "123456")
    host = launch(token, env=env)
    registered(host)
    before = snapshot(token)
    reply, statuses, _ = create(host, "c-1", **UV_REQUIRED)
    assert "touch" not in [s["status"] for s in statuses], "nothing went to the key"
    return host, token, before, reply


@pytest.mark.parametrize("mode,why", [
    ("crash", r"ERROR \[c-1\] PIN prompt failed: pinentry exited unexpectedly \(during GETPIN\)$"),
    ("garbage", r"ERROR \[c-1\] PIN prompt failed: pinentry sent a line that is not Assuan"),
    ("silent-exit", r"ERROR \[c-1\] PIN prompt failed: pinentry exited unexpectedly \(during GETPIN\)$"),
    ("no-greeting", r"ERROR \[c-1\] PIN prompt failed: pinentry exited unexpectedly \(during start-up\)$"),
])
def test_a_broken_pinentry_is_not_allowed_and_nothing_it_printed_is_a_pin(launch, tmp_path, mode, why):
    host, token, before, reply = pin_request_with(
        launch, tmp_path, {"WEBAUTHN_BRIDGE_PINENTRY": BROKEN, "BROKEN_PINENTRY": mode})
    assert reply.get("detail") == "The PIN prompt could not be shown.", reply
    assert_survived(host, reply, name="NotAllowedError", token=token, before=before,
                    log=[why, r"create failed .* NotAllowedError: The PIN prompt could not be shown\.$"])


def test_a_missing_pinentry_is_named_in_the_log(launch, tmp_path):
    missing = str(tmp_path / "no-such-pinentry")
    host, token, before, reply = pin_request_with(launch, tmp_path, {"WEBAUTHN_BRIDGE_PINENTRY": missing})
    assert_survived(host, reply, name="NotAllowedError", token=token, before=before,
                    log=[r"ERROR \[c-1\] no PIN prompt available: pinentry program .*no-such-pinentry\" not found or not executable$",
                         r"create failed .* NotAllowedError: The PIN prompt could not be shown\.$"])


def test_no_pinentry_and_no_terminal_is_not_allowed(launch, tmp_path):
    """No pinentry on PATH and no controlling terminal (the host runs in a session of its own, as under a
    browser started from the desktop): /dev/tty cannot be opened, so no PIN can be asked for."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    host, token, before, reply = pin_request_with(launch, tmp_path, {"PATH": str(empty)})
    assert_survived(host, reply, name="NotAllowedError", token=token, before=before,
                    log=[r"this request needs the key's PIN but no PIN prompt is available \(no pinentry program, no terminal\)",
                         r"create failed .* NotAllowedError: The security key needs its PIN, but no PIN prompt is available\."])
