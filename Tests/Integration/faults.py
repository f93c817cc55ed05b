"""The fault matrix's shared parts (issue 14, docs/robustness.md): injecting faults into the SoftToken the real host
opens through libfido2, and the one check every fault test ends with.

A fault reaches the token through its fault file (`STATE.faults`, read by SoftToken's `FaultPlanFile` when a
request reaches the key), so the host, libfido2 and the CTAPHID framing between them are the real ones. Every fault
test ends in `assert_survived`: the page's DOMException, the log line that says what happened, a next request on the
same host that succeeds, and nothing lost — the token's credentials and PIN state as they were, no helper process
left behind."""

import json
import re
import subprocess
import time
from pathlib import Path

from bridge import NOT_ALLOWED_TEXT, host_binary
from rp import ORIGIN, creation_options, request_options, verify_registration

# CTAP command and status bytes (CTAP 2.1 §6 and §8.2), as the fault file takes them.
MAKE_CREDENTIAL, GET_ASSERTION, GET_INFO, CLIENT_PIN = 0x01, 0x02, 0x04, 0x06
GET_PIN_UV_AUTH_TOKEN_USING_UV, GET_PIN_UV_AUTH_TOKEN_USING_PIN = 0x06, 0x09
STATUS = {
    "INVALID_CBOR": 0x12, "CREDENTIAL_EXCLUDED": 0x19, "UNSUPPORTED_ALGORITHM": 0x26, "OPERATION_DENIED": 0x27,
    "KEY_STORE_FULL": 0x28, "NO_CREDENTIALS": 0x2E, "USER_ACTION_TIMEOUT": 0x2F, "PIN_INVALID": 0x31,
    "PIN_BLOCKED": 0x32, "PIN_AUTH_BLOCKED": 0x34, "UV_BLOCKED": 0x3C,
}


# A follow-up that needs no PIN even on a key with one (CTAP 2.1 makeCredUvNotRqd), so it proves the host and the
# key serve again without a prompt being involved.
PLAIN = {"authenticatorSelection": {"residentKey": "discouraged", "userVerification": "discouraged"}}


def inject(token: Path, **plan):
    """Gives the token a fault plan (the members of SoftToken's FaultPlan, e.g. command=1, response="stall",
    times=1); byte maps may use ints as keys."""
    for field in ("injectedErrors", "clientPINErrors"):
        if field in plan:
            plan[field] = {str(k): v for k, v in plan[field].items()}
    Path(f"{token}.faults").write_text(json.dumps(plan))


def clear(token: Path):
    """Ends the fault: the token behaves correctly from its next request on."""
    Path(f"{token}.faults").unlink(missing_ok=True)


def snapshot(token: Path) -> dict:
    """What must survive any fault: the credentials (ids and counters) and the PIN and UV retry counters, read
    by loading the token's files anew, as a restarted host would."""
    shown = subprocess.run([host_binary(), "token", "show", str(token), "--json"], capture_output=True, text=True, timeout=30)
    assert shown.returncode == 0, f"the token no longer loads: {shown.stderr}"
    state = json.loads(shown.stdout)
    return {"credentials": {c["credentialID"]: c["signCount"] for c in state["credentials"]},
            "pinRetries": state.get("pinRetries"), "uvRetries": state.get("uvRetries")}


def children_of(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except FileNotFoundError:  # a thread that ended meanwhile
            pass
    return found


def lines_of(host, request_id: str) -> list[str]:
    return [line for line in host.log().splitlines() if f"[{request_id}]" in line]


def create(host, request_id: str, wait: float = 60, **options):
    """A create through the host; returns (final frame, statuses, challenge). `wait`: how long the test waits for
    the answer (options' own `timeout` is the page's)."""
    built, challenge = creation_options(**options)
    reply, statuses = host.request({"id": request_id, "type": "create", "origin": ORIGIN, "options": built}, timeout=wait)
    return reply, statuses, challenge


def get(host, request_id: str, allow: list[bytes], wait: float = 60, **options):
    """A get through the host naming `allow`; returns (final frame, statuses)."""
    built, _ = request_options(allow=allow, **options)
    return host.request({"id": request_id, "type": "get", "origin": ORIGIN, "options": built}, timeout=wait)


def registered(host, request_id: str = "seed") -> bytes:
    """Makes a credential the fault must not lose; returns its id."""
    reply, _, challenge = create(host, request_id, **PLAIN)
    assert reply["type"] == "result", reply
    return verify_registration(reply["credential"], challenge).credential_id


def assert_page_error(reply: dict, name: str):
    assert reply["type"] == "error", reply
    assert reply["error"]["name"] == name, reply
    if name == "NotAllowedError":
        assert reply["error"]["message"] == NOT_ALLOWED_TEXT, "a page learns only Chromium's text"


def assert_survived(host, reply: dict, *, name: str | None, log: list[str], token: Path | None = None,
                    before: dict | None = None, follow_up: str | None = "create", retries: tuple | None = None):
    """The four outcomes of a fault test.

    1. The page gets `name` (a DOMException name, Chromium's text for NotAllowedError); None: a credential,
       for a fault the host must absorb.
    2. The log has a line of this request matching each regular expression of `log`.
    3. The host still serves: no helper process (pinentry) left, and a next request on it (`follow_up`: "create",
       verified by py_webauthn, or "info") succeeds, with the token's fault file removed first.
    4. Nothing is lost: the token loads, holds every credential of `before` (from `snapshot`) with no counter gone
       back, and its PIN and UV retry counters are as before (or `retries`, when the fault used one up)."""
    request_id = reply["id"]
    if name is None:
        assert reply["type"] == "result", reply
    else:
        assert_page_error(reply, name)
    if follow_up is not None:
        assert host.proc.poll() is None, f"the host exited ({host.proc.returncode})"
        assert no_children_left(host), "a helper process outlived its request"
        if token is not None:
            clear(token)
        if follow_up == "info":
            follow, _ = host.request({"id": f"{request_id}-next", "type": "info"})
            assert follow["type"] == "result", follow
        else:
            follow, _, challenge = create(host, f"{request_id}-next", **PLAIN)
            assert follow["type"] == "result", (follow, host.log())
            verify_registration(follow["credential"], challenge)
    assert_logged(host, request_id, log)
    if token is not None and before is not None:
        assert_state_kept(token, before, retries)


def assert_logged(host, request_id: str, patterns: list[str], timeout: float = 20):
    """Each pattern matches a log line of the request. The outcome line follows the answer, so this waits for
    the lines to be written (the log file is the only event there is to wait on)."""
    deadline = time.monotonic() + timeout
    while True:
        own_lines = lines_of(host, request_id)
        missing = [p for p in patterns if not any(re.search(p, line) for line in own_lines)]
        if not missing:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"no log line of [{request_id}] matches {missing!r}; its lines:\n" + "\n".join(own_lines))
        time.sleep(0.05)


def assert_state_kept(token: Path, before: dict, retries: tuple | None = None):
    after = snapshot(token)
    lost = set(before["credentials"]) - set(after["credentials"])
    assert not lost, f"credentials lost: {lost}"
    for held, count in before["credentials"].items():
        assert after["credentials"][held] >= count, "a signature counter went back"
    expected = retries or (before["pinRetries"], before["uvRetries"])
    assert (after["pinRetries"], after["uvRetries"]) == expected, (before, after)


def is_gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")  # a zombie waiting for its parent is no longer running


def no_children_left(host, timeout: float = 20) -> bool:
    """Whether every child of the host has ended (a pinentry quits after the host's BYE, on its own time; /proc
    offers no event for that, so this polls, with a deadline far beyond what it takes)."""
    deadline = time.monotonic() + timeout
    while any(not is_gone(pid) for pid in children_of(host.proc.pid)):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def wait_until_gone(pid: int, timeout: float = 30) -> bool:
    """The end of a process that is not the test's child (a pinentry the host started): /proc is all there is
    to watch."""
    deadline = time.monotonic() + timeout
    while not is_gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
