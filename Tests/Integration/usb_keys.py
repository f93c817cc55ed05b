"""SoftTokens plugged in as USB FIDO keys: /dev/hidraw nodes in a umockdev testbed (support/hidraw_testbed.py), seen
by every program started with `env` (umockdev's preload and the testbed's directory) through the same code a
YubiKey goes through: libudev's enumeration, libfido2's report-descriptor check, open, read and write. No SoftToken
variable is set: the host finds the keys as it finds real ones. The machine's own /dev and /sys are not touched.

Needs the Debian packages umockdev, gir1.2-umockdev-1.0 and python3-gi (scripts/test.sh installs them); the testbed
runs under the system Python, which has the GObject bindings the test environment's Python lacks."""

import json
import os
import subprocess
from pathlib import Path

from bridge import host_binary

SERVER = Path(__file__).with_name("support") / "hidraw_testbed.py"
SYSTEM_PYTHON = "/usr/bin/python3"
PRELOAD = "libumockdev-preload.so.0"


def identity(token: Path) -> dict:
    """The USB identity the token's profile gives it (`token show --json`: vendor and product ids, names)."""
    shown = subprocess.run([host_binary(), "token", "show", str(token), "--json"], check=True, capture_output=True,
                           timeout=30)
    return json.loads(shown.stdout)["usb"]


class USBKeys:
    """The testbed process, and the keys plugged into it by name."""

    def __init__(self, tmp: Path):
        self.errors = tmp / "hidraw-testbed.err"
        with self.errors.open("wb") as errors:
            self.proc = subprocess.Popen([SYSTEM_PYTHON, str(SERVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=errors, text=True, start_new_session=True)
        ready = self.proc.stdout.readline()
        assert ready, f"the hidraw testbed did not start:\n{self.errors.read_text()}"
        self.root = json.loads(ready)["root"]
        self.nodes: dict[str, str] = {}

    @property
    def env(self) -> dict:
        """What a program needs in its environment to see the testbed's /dev and /sys."""
        preload = " ".join(filter(None, [PRELOAD, os.environ.get("LD_PRELOAD")]))
        return {"LD_PRELOAD": preload, "UMOCKDEV_DIR": self.root}

    def _ask(self, command: dict) -> dict:
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the hidraw testbed ended:\n{self.errors.read_text()}"
        answer = json.loads(line)
        assert answer["ok"], f"{command['op']}: {answer['error']}\n{self.errors.read_text()}"
        return answer

    def plug(self, token: Path, name: str | None = None) -> str:
        """Plugs `token` in as the USB key its profile imitates; returns its node (/dev/hidrawN)."""
        name = name or token.name
        usb = identity(token)
        answer = self._ask({"op": "plug", "name": name, "token": str(token), "host": host_binary(),
                            "vendor": usb["vendorId"], "product": usb["productId"],
                            "manufacturer": usb["manufacturer"], "productName": usb["product"]})
        self.nodes[name] = answer["node"]
        return answer["node"]

    def unplug(self, name: str):
        self._ask({"op": "unplug", "name": name})
        del self.nodes[name]

    def deny(self, name: str):
        """The key's node becomes one this user cannot open, as a key without libfido2's udev rule (uaccess)."""
        self._ask({"op": "deny", "name": name})

    def allow(self, name: str):
        self._ask({"op": "allow", "name": name})

    def close(self):
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
