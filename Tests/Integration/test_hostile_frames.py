"""A burst of hostile and mutated frames into one real host (libfido2 + SoftToken, an account chooser open):
every request id gets exactly one final answer, a frame that cannot be answered with its id gets one answer
with id null, a `select` never gets an answer of its own, and the host keeps serving throughout."""

import json
import random
import re
import threading
from collections import Counter

from bridge import create_token, decode_binary
from rp import ORIGIN, creation_options, request_options

ROUNDS = 24
BAD_INDICES = [1e300, -1, -1e300, 0.5, "0", True, [], {}, 2**63, -0.5]


def register(host, request_id, user):
    options, _ = creation_options(user_id=user, name=user.decode(), authenticatorSelection={"residentKey": "required"})
    reply, _ = host.request({"id": request_id, "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply


class Ledger:
    """Every frame the host sent, read until a marker request is answered, with the final answers counted."""

    def __init__(self, host):
        self.host = host
        self.finals = Counter()
        self.null_answers = []
        self.frames = []
        self.markers = 0

    def read_until(self, *ids: str):
        """Reads until every id in `ids` has had its final answer."""
        while not all(self.finals[i] for i in ids):
            frame = self.host.recv()
            self.frames.append(frame)
            if frame["type"] == "status":
                continue
            if frame["id"] is None:
                self.null_answers.append(frame)
            else:
                self.finals[frame["id"]] += 1

    def marker(self):
        """An `info` answered by the reader thread after every frame sent before it was handled."""
        self.markers += 1
        marker = f"marker-{self.markers}"
        self.host.send({"id": marker, "type": "info"})
        self.read_until(marker)


def test_a_burst_of_hostile_frames_gets_one_final_answer_per_id_and_the_host_keeps_serving(launch, token):
    host = launch(token)
    for i, user in enumerate([b"alice", b"bob"]):
        register(host, f"c-{i}", user)
    ledger = Ledger(host)
    rng = random.Random(20261124)
    own_answers, expected_nulls = set(), 0

    for round_number in range(ROUNDS):
        ceremony = f"g-{round_number}"
        options, _ = request_options()
        host.send({"id": ceremony, "type": "get", "origin": ORIGIN, "options": options})
        while (frame := host.recv()).get("status") != "select-account":
            assert frame["type"] == "status" and frame["id"] == ceremony, frame
        accounts = [decode_binary(a["id"]) for a in frame["accounts"]]

        # While the chooser is open: frames addressed elsewhere, frames reusing the ceremony's id, garbage.
        burst = []
        for k in range(8):
            other = f"o-{round_number}-{k}"
            burst.append(("none", {"id": other, "type": "select", "index": rng.choice(BAD_INDICES + [0, 1])}))
            burst.append(("none", {"id": other, "type": "cancel"}))
        burst += [
            ("null", {"id": ceremony, "type": "info"}),
            ("null", {"id": ceremony, "type": "create", "origin": ORIGIN, "options": creation_options()[0]}),
            ("null", {"id": ceremony, "type": 5}),
            ("null", {"id": ceremony, "type": "frobnicate"}),
            ("null", b'{"id":"' + ceremony.encode() + b'","type":"select","index":NaN}'),
            ("null", b'{"id":"' + ceremony.encode() + b'","type":"select","index":Infinity}'),
            ("null", b"{not json"),
            ("null", {"id": ["x"], "type": "info"}),
            ("null", {"id": "", "type": "get"}),
            ("null", {"id": "h" * 5000, "type": "info"}),
            ("null", {"id": "H" * (1536 * 1024), "type": "select", "index": 0}),
            ("own", {"id": f"busy-{round_number}", "type": "get", "origin": ORIGIN, "options": options}),
            ("own", {"id": f"frob-{round_number}", "type": "frobnicate"}),
            ("own", {"id": f"long-{round_number}-" + "l" * 3000, "type": "info"}),
        ]
        rng.shuffle(burst)
        for expectation, frame in burst:
            host.send_raw(frame) if isinstance(frame, bytes) else host.send(frame)
            if expectation == "null":
                expected_nulls += 1
            elif expectation == "own":
                own_answers.add(frame["id"])
        ledger.marker()
        assert ledger.finals[ceremony] == 0, "no frame of the burst may answer for the ceremony"

        # The ceremony's own answer: a valid choice, an out-of-range one, or a hostile one.
        decisive = rng.choice(["valid", "range", "bad", "declined"])
        index = {"valid": rng.randrange(len(accounts)), "range": 7, "bad": rng.choice(BAD_INDICES), "declined": None}[decisive]
        host.send({"id": ceremony, "type": "select", "index": index})
        ledger.read_until(ceremony)
        final = next(f for f in reversed(ledger.frames) if f["id"] == ceremony and f["type"] != "status")
        if decisive == "valid":
            assert final["type"] == "result", final
            assert decode_binary(final["credential"]["response"]["userHandle"]) == accounts[index]
        else:
            assert final["type"] == "error" and final["error"]["name"] == "NotAllowedError", final

        # After the end: selects and cancels for the finished ceremony are not answered at all.
        for index in [0, 1, 1e300, -1, None, "x"]:
            host.send({"id": ceremony, "type": "select", "index": index})
        host.send({"id": ceremony, "type": "cancel"})
        ledger.marker()

    ledger.read_until(*own_answers)
    assert host.proc.poll() is None, "the host must survive every frame"
    repeated = {i: n for i, n in ledger.finals.items() if n != 1}
    assert repeated == {}, f"ids answered more than once: {repeated}"
    assert len(ledger.null_answers) == expected_nulls, ledger.null_answers[-3:]
    assert all(f["type"] == "error" and f["error"]["message"] for f in ledger.null_answers)
    expected_ids = own_answers | {f"g-{r}" for r in range(ROUNDS)} | {f"marker-{m + 1}" for m in range(ledger.markers)}
    assert set(ledger.finals) == expected_ids
    # Still serving: a fresh sign-in with a valid choice works.
    options, _ = request_options()
    host.send({"id": "after", "type": "get", "origin": ORIGIN, "options": options})
    while host.recv().get("status") != "select-account":
        pass
    host.send({"id": "after", "type": "select", "index": 0})
    reply, _ = host.final("after")
    assert reply["type"] == "result", reply
    assert host.close() == 0
    assert "not a non-negative integer; the account choice ends as declined" in host.log()


def open_chooser(host, request_id: str):
    """Registers two accounts and starts a sign-in that waits in the account chooser."""
    for i, user in enumerate([b"alice", b"bob"]):
        register(host, f"c-{i}", user)
    options, _ = request_options()
    host.send({"id": request_id, "type": "get", "origin": ORIGIN, "options": options})
    while host.recv().get("status") != "select-account":
        pass


def test_a_select_with_a_huge_index_during_the_chooser_ends_the_ceremony_once(launch, token):
    host = launch(token)
    open_chooser(host, "g-1")
    host.send_raw(b'{"id":"g-1","type":"select","index":1e300}')
    reply, _ = host.final("g-1")
    assert reply["error"]["name"] == "NotAllowedError", reply
    host.send({"id": "g-1", "type": "select", "index": 0})
    follow_up, _ = host.request({"id": "i-1", "type": "info"})
    assert follow_up["id"] == "i-1", "the late select must not be answered"
    assert host.close() == 0


def test_a_frame_reusing_the_choosers_id_with_a_2_mb_type_is_answered_once_with_id_null(launch, token):
    # Its refusal quotes the type, which makes it too large for the browser: it must still be answered, with a
    # smaller error and id null, and the ceremony it collided with still ends with its own one answer.
    host = launch(token)
    open_chooser(host, "g-1")
    host.send({"id": "g-1", "type": "t" * (2 * 1024 * 1024)})
    refusal = host.recv()
    assert refusal["id"] is None and refusal["type"] == "error", {k: str(v)[:200] for k, v in refusal.items()}
    assert refusal["error"]["message"]
    host.send({"id": "g-1", "type": "select", "index": 1})
    reply, _ = host.final("g-1")
    assert reply["type"] == "result", reply
    follow_up, _ = host.request({"id": "i-1", "type": "info"})
    assert follow_up["type"] == "result"
    assert host.close() == 0


def test_a_request_id_too_long_to_echo_is_answered_with_id_null(launch, token):
    host = launch(token)
    host.send({"id": "x" * (2 * 1024 * 1024), "type": "info"})
    reply = host.recv()
    assert reply["id"] is None and reply["type"] == "error", {k: v for k, v in reply.items() if k != "id"}
    assert "id" in reply["error"]["message"]
    follow_up, _ = host.request({"id": "i-1", "type": "info"})
    assert follow_up["type"] == "result"


HOSTILE_VALUES = [1e300, -1, -1e300, 0.5, 2**63, "", "\u0000\n\u001b]0;x\u0007", "x" * 100_000, [], {}, None, True,
                  {"__binary__": "***"}, [{"__binary__": ""}], "\ud800"]


def mutated_frame(rng: random.Random, number: int):
    """A frame built like the extension's, then broken in one to three places; returns it and its id."""
    kind = rng.choice(["create", "get", "info", "select", "cancel", "frobnicate"])
    frame = {"id": f"m-{number}", "type": kind, "origin": ORIGIN}
    if kind == "create":
        frame["options"] = creation_options()[0]
    elif kind == "get":
        frame["options"] = request_options()[0]
    elif kind == "select":
        frame["index"] = 0
    for _ in range(rng.randint(1, 3)):
        target = rng.choice(["id", "type", "origin", "option", "option", "index", "topOrigin"])
        value = rng.choice(HOSTILE_VALUES[:-1] if target == "id" else HOSTILE_VALUES)  # an id must read back as sent
        if target == "option" and "options" in frame:
            options = frame["options"]
            path = rng.choice(list(options))
            if isinstance(options[path], dict) and options[path] and rng.random() < 0.5:
                options[path][rng.choice(list(options[path]))] = value
            else:
                options[path] = value
        elif target == "id" and isinstance(value, str) and 0 < len(value) < 4000:
            frame["id"] = f"{value}#{number}"  # still one id per request
        elif target != "option":
            frame[target] = value
    return frame


def has_bad_binary(value) -> bool:
    """Whether a {"__binary__": …} in `value` holds no base64url string (the host's parser refuses the frame)."""
    if isinstance(value, dict):
        if list(value) == ["__binary__"]:
            text = value["__binary__"]
            return not (isinstance(text, str) and re.fullmatch(r"[A-Za-z0-9_-]*", text) and len(text) % 4 != 1)
        return any(has_bad_binary(v) for v in value.values())
    if isinstance(value, list):
        return any(has_bad_binary(v) for v in value)
    return False


def expected_answer(frame) -> str:
    """"own" (one final answer with its id), "null" (one with id null) or "none" (select and cancel)."""
    request_id, kind = frame["id"], frame.get("type")
    usable_id = isinstance(request_id, str) and 0 < len(request_id.encode()) <= 4096
    encoded = json.dumps(frame, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if b"\xed\xa0\x80" in encoded or has_bad_binary(frame):
        # Not JSON the host accepts (a lone surrogate is no UTF-8): the id is read leniently, and not echoed for
        # what claims to be a select or cancel (it names another request).
        readable = usable_id and (kind is None or (isinstance(kind, str) and "\ud800" not in kind))
        return "own" if readable and kind not in ("select", "cancel") else "null"
    if not usable_id:
        return "null"
    return "none" if kind in ("select", "cancel") else "own"


def test_thousands_of_mutated_frames_get_one_answer_each_and_never_two(launch, tmp_path):
    # No discoverable credentials, so no sign-in waits in an account chooser: every ceremony ends at once.
    host = launch(create_token(tmp_path / "nork.state", "--no-rk"), log_level="warn")
    rng = random.Random(14)
    own, nulls = set(), 0
    finals, null_answers = Counter(), []
    arrived = threading.Condition()

    def collect():  # read while sending: answers quoting a 100 kB value would otherwise fill the pipe
        while True:
            try:
                frame = host.recv(timeout=120)
            except (EOFError, TimeoutError, OSError, ValueError):
                return
            with arrived:
                if frame["type"] != "status":
                    if frame["id"] is None:
                        null_answers.append(frame)
                    else:
                        finals[frame["id"]] += 1
                arrived.notify_all()

    collector = threading.Thread(target=collect, daemon=True)
    collector.start()
    for number in range(3000):
        frame = mutated_frame(rng, number)
        host.send_raw(json.dumps(frame, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        expectation = expected_answer(frame)
        if expectation == "own":
            own.add(frame["id"])
        nulls += expectation == "null"
    host.send({"id": "last", "type": "info"})
    own.add("last")
    with arrived:
        assert arrived.wait_for(lambda: own <= set(finals) and len(null_answers) >= nulls, timeout=120), \
            (len(own - set(finals)), len(null_answers), nulls)
    assert host.proc.poll() is None, "the host must survive every frame"
    repeated = {i: n for i, n in finals.items() if n != 1}
    assert repeated == {}, f"ids answered more than once: {repeated}"
    assert set(finals) == own
    assert len(null_answers) == nulls
    assert host.close() == 0
    collector.join(10)
