"""Until the user acts, nothing a page can see tells whether the key holds one of the allowCredentials (or
excludeCredentials) ids (issue 12, item 4): the status frames come in the same order, and the PIN dialog opens the
same way, for a list naming a credential the key holds and for one naming none, short or long (silently probed in
batches).

Each request is watched up to its first "touch" status and then cancelled: the simulated user never touches
within the test (presence delay), so what is compared is what came before the user's touch — and for a PIN, what
came before and right after the PIN was typed."""

import os

import pytest

from bridge import Host, binary, create_token
from conftest import PINENTRY
from rp import ORIGIN, creation_options, request_options, verify_registration

# userVerification for the get, token options, and the PIN the scripted pinentry types.
METHODS = {
    "touch-only": ("discouraged", [], None),
    "built-in-uv": ("required", ["--uv"], None),
    "pin": ("required", ["--pin", "123456"], "123456"),
}
# Long enough that the test has read the statuses and cancelled before the simulated touch. Only registering a
# credential waits it out.
PRESENCE_DELAY_MS = 2000


@pytest.fixture(scope="module", params=list(METHODS))
def key(request, tmp_path_factory):
    """A token of one kind and a credential registered on it: (method, token path, credential id)."""
    method = request.param
    _, token_args, pin = METHODS[method]
    tmp = tmp_path_factory.mktemp(method)
    token = create_token(tmp / "token.state", *token_args, "--presence", f"delay:{PRESENCE_DELAY_MS}")
    env, answer = pinentry_env(tmp)
    if pin:
        answer(f"pin {pin}")
    host = Host(tmp, token, env=env)
    try:
        options, challenge = creation_options()
        reply, _ = host.request({"id": "register", "type": "create", "origin": ORIGIN, "options": options}, timeout=30)
        assert reply["type"] == "result", reply
        credential_id = verify_registration(reply["credential"], challenge).credential_id
    finally:
        host.close()
    return method, token, credential_id


def pinentry_env(tmp):
    """The scripted pinentry's environment, and a function that sets its answers (and clears its log)."""
    tmp.mkdir(exist_ok=True)
    script, log = tmp / "answers.txt", tmp / "pinentry.log"

    def answer(*lines: str):
        script.write_text("\n".join(lines) + "\n")
        script.with_suffix(".pos").unlink(missing_ok=True)
        log.unlink(missing_ok=True)

    answer()
    return {"WEBAUTHN_BRIDGE_PINENTRY": PINENTRY, "FAKE_PINENTRY_SCRIPT": str(script), "FAKE_PINENTRY_LOG": str(log)}, answer


def events_before_the_touch(launch, tmp_path, key, kind: str, ids: list[bytes]) -> list[str]:
    """The status frames of a `kind` ("get" naming `ids` in allowCredentials, "create" in excludeCredentials) up to
    its first "touch", with "pinentry:GETPIN" where the PIN dialog asked."""
    method, token, _ = key
    user_verification, _, pin = METHODS[method]
    env, answer = pinentry_env(tmp_path)
    answer(*([f"pin {pin}"] if pin else []))
    host = launch(token, env=env)
    if kind == "get":
        options, _ = request_options(allow=ids, userVerification=user_verification)
    else:
        options, _ = creation_options(
            excludeCredentials=[{"type": "public-key", "id": binary(i)} for i in ids],
            authenticatorSelection={"userVerification": user_verification, "residentKey": "discouraged"})
    host.send({"id": "g", "type": kind, "origin": ORIGIN, "options": options})
    events = []
    while True:
        frame = host.recv(timeout=30)
        assert frame["type"] == "status", f"the request ended before the user touched the key: {frame} after {events}"
        events.append(frame["status"])
        if frame["status"] == "pin":
            events.append("pinentry:GETPIN")
        if frame["status"] == "touch":
            break
    host.send({"id": "g", "type": "cancel"})
    reply, _ = host.final("g", timeout=30)
    assert reply["error"]["name"] == "AbortError", reply
    assert host.close() == 0
    log = tmp_path / "pinentry.log"
    asked = [line for line in log.read_text().splitlines() if line.startswith("GETPIN")] if log.exists() else []
    assert len(asked) == events.count("pinentry:GETPIN"), asked
    return events


def strangers(count: int) -> list[bytes]:
    return [os.urandom(64) for _ in range(count)]


EXPECTED = {"touch-only": ["touch"], "built-in-uv": ["uv", "touch"], "pin": ["pin", "pinentry:GETPIN", "touch"]}


@pytest.mark.parametrize("length", [1, 64])
@pytest.mark.parametrize("kind", ["get", "create"])
def test_held_and_unheld_ids_look_the_same_until_the_user_acts(launch, tmp_path, key, kind, length):
    method, _, credential_id = key
    held_list = strangers(length // 2) + [credential_id] + strangers(length - 1 - length // 2)
    held = events_before_the_touch(launch, tmp_path / "held", key, kind, held_list)
    unheld = events_before_the_touch(launch, tmp_path / "unheld", key, kind, strangers(length))
    assert held == unheld == EXPECTED[method]
