"""Key discovery as Chromium does it: wait for a key to be inserted, let the user pick one of several by touch.
SoftToken state files stand in for keys: a file that appears is a key being plugged in."""

import json
import subprocess
import time

from bridge import Host, create_token, host_binary
from rp import ORIGIN, creation_options, verify_registration


def credentials_on(token) -> list:
    shown = subprocess.run([host_binary(), "token", "show", str(token), "--json"], check=True, capture_output=True, timeout=30)
    return json.loads(shown.stdout)["credentials"]


def wait_for_status(host, wanted: str) -> list[dict]:
    seen = []
    while True:
        frame = host.recv()
        assert frame["type"] == "status", frame
        seen.append(frame)
        if frame["status"] == wanted:
            return seen


def test_no_key_asks_to_insert_one_and_goes_on_when_it_arrives(launch, tmp_path):
    token = tmp_path / "later.state"
    host = launch(token)
    options, challenge = creation_options()
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    wait_for_status(host, "insert-key")
    time.sleep(0.5)  # still waiting, not failing
    create_token(token)
    reply, statuses = host.final("c-1")
    assert reply["type"] == "result", reply
    assert "touch" in [s["status"] for s in statuses]
    verify_registration(reply["credential"], challenge)


def test_cancel_while_waiting_for_a_key_aborts(launch, tmp_path):
    host = launch(tmp_path / "never.state")
    options, _ = creation_options()
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    wait_for_status(host, "insert-key")
    started = time.monotonic()
    host.send({"id": "c-1", "type": "cancel"})
    reply, _ = host.final("c-1")
    assert reply["error"]["name"] == "AbortError"
    assert time.monotonic() - started < 2


def test_no_key_until_the_timeout_is_not_allowed(launch, tmp_path):
    host = launch(tmp_path / "never.state")
    options, _ = creation_options(timeout=1000)  # clamped up to the 30 s minimum, as Chromium does
    started = time.monotonic()
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options}, timeout=45)
    elapsed = time.monotonic() - started
    assert reply["error"]["name"] == "NotAllowedError"
    assert [s["status"] for s in statuses] == ["insert-key"]
    assert 29 <= elapsed < 40


def test_with_several_keys_the_one_touched_first_is_used(launch, tmp_path):
    slow = create_token(tmp_path / "slow.state", "--presence", "delay:4000")
    quick = create_token(tmp_path / "quick.state", "--presence", "delay:300")
    host = launch(None, env={"WEBAUTHN_BRIDGE_SOFT_TOKEN": f"{slow}:{quick}"})
    options, challenge = creation_options()
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    kinds = [s["status"] for s in statuses]
    # The request itself went to both keys: the touch that chose the key made the credential.
    assert kinds[0] == "select-key" and "touch" not in kinds, kinds
    verify_registration(reply["credential"], challenge)
    assert len(credentials_on(quick)) == 1
    assert credentials_on(slow) == []
