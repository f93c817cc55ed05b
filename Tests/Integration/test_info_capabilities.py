"""`info` says what a key can do once a ceremony has opened it, and only then (docs/protocol.md, `info`): the line
`webauthn-bridge devices` prints for the key, kept from the ceremony's own open, forgotten when the key goes. The
host opens no key to answer `info`, so before any ceremony the line is absent; mid-ceremony `info` answers at once
and carries it."""

import json
import os
import subprocess

from bridge import create_token, host_binary
from rp import ORIGIN, creation_options, verify_registration


def devices_line(token) -> str:
    """What `webauthn-bridge devices --json` says the key can do: the wording `info` must repeat."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")}
    environment.update({"WEBAUTHN_BRIDGE_SOFT_TOKEN": str(token), "HOME": str(token.parent)})
    shown = subprocess.run([host_binary(), "devices", "--json"], capture_output=True, text=True, env=environment,
                           timeout=60, check=True)
    [device] = json.loads(shown.stdout)
    return device["capabilities"]


def info_devices(host, request_id: str) -> list[dict]:
    reply, statuses = host.request({"id": request_id, "type": "info"})
    assert reply["type"] == "result" and not statuses, reply
    return reply["info"]["devices"]


def test_info_carries_the_capability_line_after_a_ceremony_and_not_before(launch, token):
    line = devices_line(token)
    assert line.startswith("CTAP 2.1, passkeys, PIN not set"), line
    host = launch(token)
    [before] = info_devices(host, "i-before")
    assert before["kind"] == "software token"
    assert "capabilities" not in before, before

    options, challenge = creation_options()
    reply, _ = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)

    [after] = info_devices(host, "i-after")
    assert after["capabilities"] == line, after
    assert {k: v for k, v in after.items() if k != "capabilities"} == before

    # Pulled out (its state file gone): not listed; plugged in again: a key no ceremony has opened yet.
    moved = token.with_suffix(".away")
    token.rename(moved)
    assert info_devices(host, "i-gone") == []
    moved.rename(token)
    [again] = info_devices(host, "i-again")
    assert "capabilities" not in again, again


def test_info_mid_ceremony_answers_at_once_with_the_line_of_the_key_in_use(launch, tmp_path):
    token = create_token(tmp_path / "slow.state", "--pin", "4321", "--presence", "delay:60000")
    line = devices_line(token)
    assert "PIN set" in line, line
    host = launch(token)
    options, _ = creation_options()
    options["authenticatorSelection"] = {"userVerification": "discouraged"}
    host.send({"id": "slow", "type": "create", "origin": ORIGIN, "options": options})
    while (frame := host.recv())["type"] == "status" and frame["status"] != "touch":
        pass
    assert frame == {"id": "slow", "type": "status", "status": "touch"}, frame
    [device] = info_devices(host, "i-mid")
    assert device["capabilities"] == line, device
    host.send({"id": "slow", "type": "cancel"})
    reply, _ = host.final("slow")
    assert reply["error"]["name"] == "AbortError", reply
