"""pytest plugin: records what the integration tests (Tests/Integration) send to and receive from the real host,
and the files and pinentry sessions they leave behind, as seed corpora for the fuzz targets.

Loaded by `scripts/fuzz.sh --make-seeds` as `pytest -p record_integration`; writes under $FUZZ_SEED_DIR, one
directory per target, in the input format each target documents (Fuzz/Sources/fuzz-*/). File names are content
hashes, so recording twice gives the same files."""

import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

INTEGRATION = Path(__file__).resolve().parents[2] / "Tests" / "Integration"
sys.path.insert(0, str(INTEGRATION))
import bridge  # noqa: E402
from fido2 import cbor  # noqa: E402

OUT = Path(os.environ["FUZZ_SEED_DIR"])
PIPE_CAPACITY = 65536  # the frame-reader and Assuan targets feed their input through a pipe
LARGEST_SEED = 16384  # larger frames (1,000-entry lists) add time per run and nothing the small ones lack
FORMATS = ["packed", "none", "fido-u2f", "tpm", "android-key", "apple"]  # fuzz-authenticator-output's table

sent: list[bytes] = []
received: list[dict] = []


def seed(target: str, data: bytes):
    if len(data) > LARGEST_SEED:
        return
    directory = OUT / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def length_prefixed(data: bytes) -> bytes:
    return struct.pack(">H", len(data)) + data


def record_send(original):
    def send_raw(self, payload: bytes, length: int | None = None):
        sent.append(struct.pack("=I", len(payload) if length is None else length) + payload)
        return original(self, payload, length)
    return send_raw


def record_recv(original):
    def recv(self, timeout: float = 20.0) -> dict:
        frame = original(self, timeout)
        received.append(frame)
        return frame
    return recv


bridge.Host.send_raw = record_send(bridge.Host.send_raw)
bridge.Host.recv = record_recv(bridge.Host.recv)


def binaries(value):
    """Every __binary__ string in a frame."""
    if isinstance(value, dict):
        if set(value) == {"__binary__"} and isinstance(value["__binary__"], str):
            yield value["__binary__"]
        for item in value.values():
            yield from binaries(item)
    elif isinstance(value, list):
        for item in value:
            yield from binaries(item)


def frames_sent():
    stream = b"".join(sent)
    # fuzz-frame-reader: limit index 6 (the host's default limit), then the stream as the browser wrote it.
    if stream and len(stream) < PIPE_CAPACITY:
        seed("fuzz-frame-reader", b"\x06" + stream)
    for frame in sent:
        body = frame[4:]
        seed("fuzz-json-options", body)
        try:
            request = json.loads(body)
        except ValueError:
            continue
        if not isinstance(request, dict):
            continue
        for text in binaries(request):
            seed("fuzz-base64url", text.encode())
        options = request.get("options")
        if isinstance(request.get("origin"), str):
            rp = None
            if isinstance(options, dict):
                rp = options["rp"].get("id") if isinstance(options.get("rp"), dict) else options.get("rpId")
            parts = [request["origin"], request.get("topOrigin") or ""] + ([rp] if isinstance(rp, str) else [])
            seed("fuzz-origin-rpid", "\n".join(parts).encode())


def replies():
    for frame in received:
        credential = frame.get("credential") if frame.get("type") == "result" else None
        response = credential.get("response") if isinstance(credential, dict) else None
        if not isinstance(response, dict):
            continue
        if "authenticatorData" in response:
            seed("fuzz-authenticator-output", b"\x00" + bridge.decode_binary(response["authenticatorData"]))
        if "attestationObject" in response:
            raw = bridge.decode_binary(response["attestationObject"])
            seed("fuzz-cbor", raw)
            attestation = cbor.decode(raw)
            fmt = FORMATS.index(attestation["fmt"]) if attestation["fmt"] in FORMATS else 0
            auth_data = attestation["authData"]
            seed("fuzz-authenticator-output", b"\x00" + auth_data)
            seed("fuzz-authenticator-output", bytes([1, fmt]) + length_prefixed(auth_data) + cbor.encode(attestation["attStmt"]))


def token_files(tmp: Path):
    for state in tmp.glob("*.state"):
        journal, counters = Path(f"{state}.journal"), Path(f"{state}.counters")
        present = (1 if journal.exists() else 0) | (2 if counters.exists() else 0)
        data = bytes([present]) + length_prefixed(state.read_bytes())
        data += length_prefixed(journal.read_bytes() if journal.exists() else b"")
        data += counters.read_bytes() if counters.exists() else b""
        seed("fuzz-softtoken-state", data)


def pinentry_session(tmp: Path):
    """Replays the commands the host sent the scripted pinentry into it again, keeping what it printed."""
    commands, answers = tmp / "pinentry.log", tmp / "answers.txt"
    if not commands.exists():
        return
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "answers.txt"
        shutil.copy(answers, script)
        env = dict(os.environ, FAKE_PINENTRY_SCRIPT=str(script), FAKE_PINENTRY_LOG=str(Path(scratch) / "log"))
        transcript = subprocess.run([sys.executable, str(INTEGRATION / "fake_pinentry.py")], input=commands.read_bytes(),
                                    capture_output=True, env=env, timeout=30, check=True).stdout
    seed("fuzz-assuan", transcript)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    frames_sent()
    replies()
    tmp = item.funcargs.get("tmp_path")
    if tmp is not None:
        token_files(tmp)
        pinentry_session(tmp)
    sent.clear()
    received.clear()
