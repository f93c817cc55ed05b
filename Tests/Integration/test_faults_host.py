"""Fault matrix, the host process and the browser's pipe (issue 14, docs/robustness.md): the browser closing the
pipe mid-ceremony and mid-PIN, the host killed during a PIN prompt, frames split across reads and written a byte
at a time, two tabs and two browsers at once. A host that the fault ends is launched again, as the browser does at
its next request, and must serve on the same token with nothing lost. (When a host it had heard from goes away,
the extension fails the page's pending request with NotAllowedError: extension/tests/router.test.mjs, "a host
that crashes after answering fails the pending request".)"""

import json
import os
import re
import signal
import struct
import time

import pytest

from bridge import Host, create_token, unb64url
from faults import (MAKE_CREDENTIAL, PLAIN, assert_logged, assert_state_kept, assert_survived, children_of, clear,
                    create, inject, registered, snapshot, wait_until_gone)
from rp import ORIGIN, creation_options, verify_registration

UV_REQUIRED = {"authenticatorSelection": {"userVerification": "required", "residentKey": "discouraged"}}


def wait_for_status(host, request_id: str, status: str) -> dict:
    while True:
        frame = host.recv()
        assert frame["type"] == "status" and frame["id"] == request_id, frame
        if frame["status"] == status:
            return frame


def relaunched_host_serves(launch, token, env=None):
    """The browser starts the host again at the next request: it serves on the same token."""
    host = launch(token, env=env)
    reply, _, challenge = create(host, "after", **PLAIN)
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)


def test_the_browser_closing_the_pipe_mid_ceremony_ends_the_host_and_loses_nothing(launch, token):
    host = launch(token)
    registered(host)
    before = snapshot(token)
    inject(token, command=MAKE_CREDENTIAL, response="untouched")  # the key waits for a touch
    options, _ = creation_options()
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    wait_for_status(host, "c-1", "touch")
    host.proc.stdin.close()
    assert host.proc.wait(30) == 0
    assert_logged(host, "c-1", [r"create failed .* AbortError: The operation was aborted\.$"])
    assert "browser closed the connection; exiting" in host.log()
    clear(token)
    assert_state_kept(token, before)
    relaunched_host_serves(launch, token)


def pin_prompt_open(launch, tmp_path, pinentry):
    """A host whose request waits in the PIN dialog (a scripted pinentry that holds until answered)."""
    env, _, _ = pinentry
    env = {**env, "FAKE_PINENTRY_HOLD": "1"}
    (tmp_path / "answers.txt").write_text("")  # no answer: the dialog stays open
    token = create_token(tmp_path / "t.state", "--pin", "123456")
    host = launch(token, env=env)
    registered(host)
    before = snapshot(token)
    options, _ = creation_options(**UV_REQUIRED)
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    wait_for_status(host, "c-1", "pin")
    # The dialog is up once the pinentry has been asked for the PIN (its log is written before it waits).
    log = tmp_path / "pinentry.log"
    while "GETPIN" not in (log.read_text() if log.exists() else ""):
        time.sleep(0.02)
    [pinentry_pid] = children_of(host.proc.pid)
    return host, token, env, before, pinentry_pid


def test_the_browser_closing_the_pipe_mid_pin_stops_the_pinentry(launch, tmp_path, pinentry):
    host, token, env, before, pinentry_pid = pin_prompt_open(launch, tmp_path, pinentry)
    host.proc.stdin.close()
    assert host.proc.wait(30) == 0
    assert wait_until_gone(pinentry_pid), "the pinentry outlived the host"
    assert_logged(host, "c-1", [r"create failed .* AbortError: The operation was aborted\.$"])
    assert "browser closed the connection; exiting" in host.log()
    assert_state_kept(token, before)
    relaunched_host_serves(launch, token, env)


@pytest.mark.parametrize("kill", [signal.SIGTERM, signal.SIGKILL], ids=lambda s: s.name)
def test_the_host_killed_during_a_pin_prompt_takes_the_pinentry_with_it(launch, tmp_path, pinentry, kill):
    host, token, env, before, pinentry_pid = pin_prompt_open(launch, tmp_path, pinentry)
    host.proc.send_signal(kill)
    status = host.proc.wait(30)
    # SIGKILL: the kernel's parent-death signal (set through setpriv) ends the pinentry.
    assert wait_until_gone(pinentry_pid), "the pinentry outlived the host"
    if kill == signal.SIGTERM:
        assert status == 128 + kill
        assert "stopping on SIGTERM" in host.log()
    else:
        assert status == -kill
    assert_state_kept(token, before)
    relaunched_host_serves(launch, token, env)


def frame_bytes(frame: dict) -> bytes:
    body = json.dumps(frame).encode()
    return struct.pack("=I", len(body)) + body


@pytest.mark.parametrize("chunking", ["byte-at-a-time", "header-split", "two-frames-in-one-write"])
def test_frames_split_across_reads_are_served(launch, token, chunking):
    host = launch(token)
    before = snapshot(token)
    options, challenge = creation_options()
    data = frame_bytes({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    pipe = host.proc.stdin.fileno()
    if chunking == "byte-at-a-time":
        for i in range(len(data)):
            os.write(pipe, data[i:i + 1])
    elif chunking == "header-split":
        os.write(pipe, data[:2])
        os.write(pipe, data[2:7])
        os.write(pipe, data[7:])
    else:
        os.write(pipe, frame_bytes({"id": "i-1", "type": "info"}) + data)
        assert host.recv()["id"] == "i-1"
    reply, _ = host.final("c-1")
    verify_registration(reply["credential"], challenge)
    assert_survived(host, reply, name=None, log=[r"create ok origin=https://example.com"], token=token, before=before)


def test_two_tabs_at_once_the_second_is_refused_and_the_first_goes_on(launch, token):
    host = launch(token)
    registered(host)
    before = snapshot(token)
    inject(token, command=MAKE_CREDENTIAL, response="untouched")
    first, first_challenge = creation_options(user_id=b"tab-1")
    host.send({"id": "tab-1", "type": "create", "origin": ORIGIN, "options": first})
    wait_for_status(host, "tab-1", "touch")
    second, _ = creation_options(user_id=b"tab-2")
    host.send({"id": "tab-2", "type": "create", "origin": ORIGIN, "options": second})
    refused = host.recv()
    clear(token)  # the user touches the key for the first tab
    reply, _ = host.final("tab-1")
    verify_registration(reply["credential"], first_challenge)
    assert_survived(host, refused, name="NotAllowedError", token=token, before=before,
                    log=[r"refused create: another request is in progress$"])


def test_two_browsers_at_once_on_one_key_keep_every_credential(tmp_path, token):
    """Chromium and Firefox each start a host; both use the one key (and the one log) at the same time."""
    shared_log = tmp_path / "host.log"
    browsers = {name: Host(tmp_path, token, browser=name, env={"WEBAUTHN_BRIDGE_LOG_FILE": str(shared_log)})
                for name in ("chromium", "firefox")}
    try:
        made = []
        for round_ in range(3):
            for name, host in browsers.items():
                options, _ = creation_options(user_id=f"{name}-{round_}".encode(), authenticatorSelection={"residentKey": "required"})
                host.send({"id": f"{name}-{round_}", "type": "create", "origin": ORIGIN, "options": options})
            for name, host in browsers.items():
                reply, _ = host.final(f"{name}-{round_}")
                assert reply["type"] == "result", reply
                made.append(reply["credential"]["id"])
        held = snapshot(token)["credentials"]  # ids in hex
        lost = [c for c in made if unb64url(c).hex() not in held]
        assert not lost, "a credential one browser's host made was saved over by the other's"
        # One log, two writers: every line whole, stamped and levelled, and both hosts' ceremonies in it.
        lines = shared_log.read_text().splitlines()
        assert all(re.match(r"\d{4}-\d\d-\d\dT[\d:.]+Z (ERROR|WARN|INFO|DEBUG|TRACE) ", line) for line in lines), lines
        assert all(any(f"[{name}-2] create ok" in line for line in lines) for name in browsers)
    finally:
        for host in browsers.values():
            host.close()
