"""Drives the real webauthn-bridge executable the way browsers do: argv as Chromium or Firefox pass it,
native-messaging frames (uint32 length in native byte order + UTF-8 JSON) over its stdin/stdout.

Also converts between the host's `{"__binary__": …}` JSON and the WebAuthn L3 JSON that py_webauthn
(the independent relying-party library used as the test oracle) verifies."""

import base64
import json
import os
import select
import struct
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHROMIUM_ID = (REPO / "extension" / "chromium-id.txt").read_text().strip() if (REPO / "extension" / "chromium-id.txt").exists() else "pending-extension-key"
FIREFOX_ID = "webauthn-bridge@webauthn-bridge"


def extension_data(name: str):
    """A data module of extension/common/ (protocol-constants.js, chromium-texts.js): strict JSON after
    `export default`, the one list the extension imports and the host's tests check against."""
    text = (REPO / "extension" / "common" / name).read_text()
    return json.loads(text.split("export default ", 1)[1].rstrip().removesuffix(";"))


# What Chromium tells a page for every NotAllowedError, so the page learns nothing about the key; the host
# gives pages the same text and puts the precise reason in the error frame's `detail` (docs/errors.md).
NOT_ALLOWED_TEXT = extension_data("chromium-texts.js")["notAllowed"]


def host_binary() -> str:
    path = os.environ.get("WEBAUTHN_BRIDGE_HOST") or str(REPO / ".build" / "debug" / "webauthn-bridge")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"host binary {path} is missing: build it with `swift build` first")
    return path


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def binary(data: bytes) -> dict:
    return {"__binary__": b64url(data)}


def to_l3_json(value):
    """Host JSON → WebAuthn L3 JSON: every {"__binary__": s} becomes the base64url string s."""
    if isinstance(value, dict):
        if set(value) == {"__binary__"}:
            return value["__binary__"]
        return {k: to_l3_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_l3_json(v) for v in value]
    return value


def decode_binary(value) -> bytes:
    assert isinstance(value, dict) and set(value) == {"__binary__"}, value
    return unb64url(value["__binary__"])


def create_token(path: Path, *args: str) -> Path:
    subprocess.run([host_binary(), "token", "create", str(path), *args], check=True, capture_output=True, timeout=30)
    return path


class Host:
    """One host process, launched as `browser` ("chromium" | "firefox") would launch it."""

    def __init__(self, tmp: Path, token: Path | None, browser: str = "chromium", extension_id: str | None = None,
                 env: dict | None = None, log_level: str = "debug", prefix: list[str] | None = None):
        """`prefix`: a command the host is started through (e.g. one that drops privileges)."""
        self.log_path = tmp / f"host-{time.monotonic_ns()}.log"
        environment = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")}
        environment.update({"WEBAUTHN_BRIDGE_LOG_FILE": str(self.log_path), "WEBAUTHN_BRIDGE_LOG_LEVEL": log_level,
                            "XDG_CONFIG_HOME": str(tmp / "config"), "HOME": str(tmp)})
        environment.pop("DISPLAY", None)
        if token is not None:
            environment["WEBAUTHN_BRIDGE_SOFT_TOKEN"] = str(token)
        environment.update(env or {})
        if browser == "chromium":
            argv = [host_binary(), f"chrome-extension://{extension_id or CHROMIUM_ID}/"]
        else:
            argv = [host_binary(), str(tmp / "webauthn_bridge.json"), extension_id or FIREFOX_ID]
        self.proc = subprocess.Popen([*(prefix or []), *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=environment, cwd=os.path.dirname(argv[0]), start_new_session=True)
        self._buffer = b""

    def send_raw(self, payload: bytes, length: int | None = None):
        self.proc.stdin.write(struct.pack("=I", len(payload) if length is None else length) + payload)
        self.proc.stdin.flush()

    def send(self, frame: dict):
        self.send_raw(json.dumps(frame).encode())

    def _read_exact(self, n: int, deadline: float) -> bytes:
        fd = self.proc.stdout.fileno()
        while len(self._buffer) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no frame from the host in time; log:\n{self.log()}")
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise EOFError(f"host closed stdout (exit {self.proc.poll()}); log:\n{self.log()}")
                self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def recv(self, timeout: float = 20.0) -> dict:
        deadline = time.monotonic() + timeout
        (length,) = struct.unpack("=I", self._read_exact(4, deadline))
        return json.loads(self._read_exact(length, deadline))

    def final(self, request_id: str, timeout: float = 20.0) -> tuple[dict, list[dict]]:
        """Reads frames until the `result` or `error` for `request_id`; returns it and the status frames before it."""
        statuses = []
        while True:
            frame = self.recv(timeout)
            if frame.get("type") == "status":
                assert frame["id"] == request_id, frame
                statuses.append(frame)
                continue
            assert frame["id"] == request_id, frame
            return frame, statuses

    def request(self, frame: dict, timeout: float = 20.0) -> tuple[dict, list[dict]]:
        self.send(frame)
        return self.final(frame["id"], timeout)

    def close(self, timeout: float = 10.0) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else "(no log file)"
