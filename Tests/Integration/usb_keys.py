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

# A command that runs a program without the capabilities that let root open any file, so that a node of mode 000
# is refused to it as to a user without the udev rule (as another user it would need its own HOME and log).
WITHOUT_ROOTS_FILE_ACCESS = (["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search", "--"]
                             if os.geteuid() == 0 else [])
YUBIKEY5 = {"vendorId": 0x1050, "productId": 0x0407, "manufacturer": "Yubico", "product": "YubiKey OTP+FIDO+CCID"}
YUBIKEY5_AAGUID = "a25342c03cdc44148e46f4807fca511c"
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
            # Under umockdev's preload itself, so that its uevents find the devices they announce.
            self.proc = subprocess.Popen(["umockdev-wrapper", SYSTEM_PYTHON, str(SERVER)], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=errors, text=True, start_new_session=True)
        ready = self.proc.stdout.readline()
        assert ready, f"the hidraw testbed did not start:\n{self.errors.read_text()}"
        self.root = json.loads(ready)["root"]
        self.nodes: dict[str, str] = {}

    @property
    def env(self) -> dict:
        """What a program needs in its environment to see the testbed's /dev and /sys."""
        preload = " ".join(filter(None, [PRELOAD, os.environ.get("LD_PRELOAD")]))
        return {"LD_PRELOAD": preload, "UMOCKDEV_DIR": self.root}

    def run(self, *argv: str, unprivileged: bool = False) -> subprocess.CompletedProcess:
        """A program started with the testbed in its environment (no SoftToken variable), as on a real machine."""
        environment = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")}
        environment.update(self.env)
        prefix = WITHOUT_ROOTS_FILE_ACCESS if unprivileged else []
        return subprocess.run([*prefix, *argv], capture_output=True, text=True, timeout=60, env=environment)

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
