"""Firefox's own WebAuthn as an oracle: Firefox ESR without the extension, driven over Marionette (WebDriver
classic), which has the W3C WebAuthn commands BiDi lacks, so a virtual authenticator answers its requests.

Recipe (Tests/E2E/README.md, "Browser recipes"): `--marionette --headless` with profile prefs `marionette.port=0`
(Firefox writes the port it chose to `<profile>/MarionetteActivePort`), the soft token on and USB tokens off (else
the virtual authenticator is not used). Wire: packets `<byte length>:<JSON>`; a command is `[0, id, name, params]`,
its reply `[1, id, error, body]`; the server greets first. The authenticator speaks `ctap2_1` (with `ctap2`, a get()
with two or more allowCredentials fails).
"""
import json
import os
import socket
import tempfile
import time
from pathlib import Path

from .browsers import FIREFOX, Browser, Firefox, write_profile
from .protocol import Connection

ORACLE_PREFS = {
    "marionette.port": 0,
    "security.webauth.webauthn_enable_softtoken": True,
    "security.webauth.webauthn_enable_usbtoken": False,
    "security.webauthn.always_allow_direct_attestation": True,
}


class MarionetteClient:
    """A WebDriver classic session over Marionette's socket: the port Firefox wrote to the profile, the greeting, then
    commands. `capabilities` go to WebDriver:NewSession as Marionette takes them (flat, not W3C's alwaysMatch)."""

    def __init__(self, profile: Path, browser: Browser, capabilities: dict | None = None):
        port_file = profile / "MarionetteActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            browser._check_alive()
            if time.monotonic() > deadline:
                raise TimeoutError(f"firefox wrote no MarionetteActivePort in 60 s:\n{browser.log_tail()}")
            time.sleep(0.1)
        self.browser = browser
        self.sock = socket.create_connection(("127.0.0.1", int(port_file.read_text().strip())), timeout=120)
        self.buffer = b""
        self.sent = 0
        self._packet()   # the greeting
        self.session = self.command("WebDriver:NewSession", capabilities or {}, whole=True)

    def _packet(self):
        while b":" not in self.buffer:
            self._receive()
        length, _, rest = self.buffer.partition(b":")
        self.buffer = rest
        while len(self.buffer) < int(length):
            self._receive()
        body, self.buffer = self.buffer[:int(length)], self.buffer[int(length):]
        return json.loads(body)

    def _receive(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"marionette closed the connection:\n{self.browser.log_tail()}")
        self.buffer += chunk

    def command(self, name: str, params: dict | None = None, whole: bool = False):
        self.sent += 1
        data = json.dumps([0, self.sent, name, params or {}]).encode()
        self.sock.sendall(str(len(data)).encode() + b":" + data)
        while True:
            kind, number, error, body = self._packet()
            if kind == 1 and number == self.sent:
                if error:
                    raise RuntimeError(f"{name}: {error}")
                return body if whole or not isinstance(body, dict) else body.get("value")

    def add_virtual_authenticator(self) -> str:
        """Firefox's own WebAuthn answered by a CTAP 2.1 USB key that always consents (resident keys, UV)."""
        return self.command("WebAuthn:AddVirtualAuthenticator", {
            "protocol": "ctap2_1", "transport": "usb", "hasResidentKey": True, "hasUserVerification": True,
            "isUserConsenting": True, "isUserVerified": True})

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class FirefoxWithOwnAuthenticator(Firefox):
    """The bridge's Firefox (the extension, BiDi) whose own WebAuthn is answered too: Marionette's session, opened
    with `webSocketUrl`, is the BiDi session (one WebDriver session, both protocols), and its virtual authenticator
    serves whatever reaches Firefox's own. A page driven this way has the focus Firefox's own checks."""
    extra_args = ("--marionette",)

    def __init__(self, workdir: Path, env: dict, extension: Path | None, profile: Path, prefs: dict | None = None,
                 **kwargs):
        super().__init__(workdir, env, extension, profile, {**ORACLE_PREFS, **(prefs or {})}, **kwargs)

    def _session(self, url: str) -> Connection:
        self.marionette = MarionetteClient(self.profile, self, {"webSocketUrl": True})
        return Connection(self.marionette.session["capabilities"]["webSocketUrl"], suppress_origin=True)

    def add_virtual_authenticator(self) -> str:
        return self.marionette.add_virtual_authenticator()

    def close(self):
        if getattr(self, "marionette", None):
            self.marionette.close()
        super().close()


class MarionetteFirefox(Browser):
    """Firefox with a CTAP 2.1 USB virtual authenticator (resident keys, UV, always consenting); open(url) and
    evaluate(js) as the other drivers offer them. `prefs` and `profile_files` ({name: text}, e.g. a user's
    cert_override.txt) go into its profile as for the bridge's Firefox (browsers.write_profile)."""
    name = "firefox-own"
    tab = None   # one tab only

    def __init__(self, workdir: Path | None = None, prefs: dict | None = None, profile_files: dict | None = None):
        workdir = workdir or Path(tempfile.mkdtemp(prefix="webauthn-bridge-e2e-firefox-own-"))
        super().__init__(workdir, {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workdir)})
        profile = workdir / "profile"
        write_profile(profile, {**ORACLE_PREFS, **(prefs or {})}, profile_files)
        with open(self.log_path, "ab") as log:
            self._spawn([FIREFOX, "--marionette", "--headless", "--no-remote", "--profile", str(profile), "about:blank"], log)
        self.marionette = MarionetteClient(profile, self)
        self.marionette.add_virtual_authenticator()

    def command(self, name: str, params: dict | None = None):
        return self.marionette.command(name, params)

    def open(self, url: str, timeout: float = 30) -> None:
        self.command("WebDriver:Navigate", {"url": url})

    def evaluate(self, expression: str, timeout: float = 60):
        self.command("WebDriver:SetTimeouts", {"script": int(timeout * 1000)})
        script = ("const done = arguments[arguments.length - 1];"
                  f"(async () => JSON.stringify(await ({expression})))()"
                  ".then(done, (e) => done(JSON.stringify({__threw: String(e)})));")
        value = self.command("WebDriver:ExecuteAsyncScript", {"script": script, "args": []})
        result = None if value is None else json.loads(value)
        if isinstance(result, dict) and "__threw" in result:
            raise RuntimeError(f"page threw: {result['__threw']}")
        return result

    def close(self):
        if getattr(self, "marionette", None):
            self.marionette.close()
        super().close()
