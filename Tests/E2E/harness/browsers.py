"""Headless Chromium over CDP and headless Firefox ESR over WebDriver BiDi, with the extension loaded.

Both drivers offer the same small surface: open(url), evaluate(js) → JSON value, close(). The recipe (flags,
where the host manifest must be, BiDi without an Origin header) is the one Tests/E2E/README.md
describes ("Browser recipes"). Each browser runs in its own process group, which close() terminates:
nothing else on the machine is touched.
"""
import json
import os
import re
import signal
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from .protocol import Connection, ProtocolError

CHROMIUM = "/usr/lib/chromium/chromium"   # not /usr/bin/chromium: Debian's wrapper adds flags and shell noise
FIREFOX = "/usr/bin/firefox-esr"

# Profile prefs for quiet, deterministic runs; reduceTimerPrecision off so performance.now() is sub-ms.
FIREFOX_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.enabled": False,
    "extensions.update.enabled": False,
    "browser.aboutwelcome.enabled": False,
    "privacy.reduceTimerPrecision": False,
}


def write_profile(profile: Path, prefs: dict | None, files: dict | None) -> None:
    """A Firefox profile: the quiet prefs plus `prefs` in user.js, and `files` ({name: text}: cert_override.txt,
    for one) as a user's profile would hold them."""
    profile.mkdir(parents=True, exist_ok=True)
    all_prefs = {**FIREFOX_PREFS, **(prefs or {})}
    (profile / "user.js").write_text("".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n"
                                             for k, v in all_prefs.items()))
    for name, text in (files or {}).items():
        (profile / name).write_text(text)


def _wrap(expression: str) -> str:
    # The answer travels as one JSON string: simpler than either protocol's remote-object encoding.
    return f"(async () => JSON.stringify(await ({expression})))()"


class Browser:
    name = "?"

    def __init__(self, workdir: Path, env: dict):
        self.workdir = workdir
        self.env = env
        self.log_path = workdir / f"{self.name}.log"
        self.proc: subprocess.Popen | None = None
        self.conn: Connection | None = None

    def _spawn(self, argv: list[str], stdout) -> None:
        # A new session makes the browser a process-group leader: close() kills exactly that group.
        self.proc = subprocess.Popen(argv, env=self.env, stdin=subprocess.DEVNULL, stdout=stdout,
                                     stderr=subprocess.STDOUT, start_new_session=True, cwd=self.workdir)

    def _check_alive(self):
        if self.proc.poll() is not None:
            raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; see {self.log_path}:\n"
                               + self.log_tail())

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def open(self, url: str, timeout: float = 30) -> None:
        raise NotImplementedError

    def evaluate(self, expression: str, timeout: float = 60):
        raise NotImplementedError

    def wait_for(self, expression: str, timeout: float = 10, interval: float = 0.1):
        """Polls a boolean page expression until true; returns False at the deadline."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.evaluate(expression, timeout=5) is True:
                    return True
            except (ProtocolError, RuntimeError):
                pass  # the page is between documents
            time.sleep(interval)
        return False

    # Tabs. The browser starts with one tab, which open/evaluate/wait_for drive; in_tab() points them at another
    # for a while. A tab opened in the background is not the active tab of its window (tabs.query says
    # active: false), and the page sees document.visibilityState "hidden" and hasFocus() false, in both browsers.
    def new_tab(self, background: bool = True):
        raise NotImplementedError

    def activate(self, tab=None) -> None:
        """Makes `tab` (default: the one being driven) the active tab of its window."""
        raise NotImplementedError

    def close_tab(self, tab) -> None:
        raise NotImplementedError

    @contextmanager
    def in_tab(self, tab):
        previous = self.tab
        self.tab = tab
        try:
            yield
        finally:
            self.tab = previous

    def close(self):
        if self.conn:
            self.conn.close()
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
            except ProcessLookupError:
                pass


class Chromium(Browser):
    """Chromium with --load-extension (or, with extension=None, none: the browser's own WebAuthn, or what it
    installs itself by policy); the host manifest must be in <user-data-dir>/NativeMessagingHosts (or the system
    directory). `launcher` goes before the command (e.g. a mount namespace's unshare). `others` are more
    unpacked extensions, loaded before the extension (others_first) or after it, in the order given."""
    name = "chromium"

    def __init__(self, workdir: Path, env: dict, extension: Path | None, user_data_dir: Path,
                 launcher: tuple[str, ...] = (), flags: tuple[str, ...] = (), others: tuple[Path, ...] = (),
                 others_first: bool = False):
        super().__init__(workdir, env)
        self.user_data_dir = user_data_dir
        loaded = ",".join(str(e) for e in ([*others, extension] if others_first else [extension, *others]) if e)
        extension_flags = [f"--load-extension={loaded}", f"--disable-extensions-except={loaded}"] if loaded else []
        with open(self.log_path, "ab") as log:
            self._spawn([*launcher, CHROMIUM, "--headless=new", "--no-sandbox", f"--user-data-dir={user_data_dir}",
                         "--no-first-run", "--no-default-browser-check", "--log-level=3", *extension_flags, *flags,
                         "--remote-debugging-port=0", "about:blank"], log)
        port_file = user_data_dir / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
            self._check_alive()
            if time.monotonic() > deadline:
                raise TimeoutError(f"chromium wrote no DevToolsActivePort in 30 s:\n{self.log_tail()}")
            time.sleep(0.05)
        port, path = port_file.read_text().splitlines()[:2]
        self.conn = Connection(f"ws://127.0.0.1:{port}{path}")
        self.tab = self.new_tab(background=False)

    @property
    def session(self) -> str:
        return self.tab[1]

    def new_tab(self, background: bool = True):
        """A (targetId, sessionId) pair; Target.createTarget with background: true leaves it inactive."""
        target = self.conn.call("Target.createTarget", {"url": "about:blank", "background": background})["targetId"]
        return target, self.conn.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def activate(self, tab=None) -> None:
        self.conn.call("Target.activateTarget", {"targetId": (tab or self.tab)[0]})

    def close_tab(self, tab) -> None:
        self.conn.call("Target.closeTarget", {"targetId": tab[0]})

    def call(self, method: str, params: dict | None = None, timeout: float = 30):
        """A CDP command on the page's session (WebAuthn.*, Page.*, ...)."""
        return self.conn.call(method, params, session=self.session, timeout=timeout)

    def add_virtual_authenticator(self, **capabilities) -> str:
        """A CTAP2 USB key inside Chromium that answers at once (DevTools' virtual authenticator; Tests/E2E/README.md,
        "Browser recipes"): the browser's own path to compare the bridge with, or to prove a fallback.
        `capabilities` adds WebAuthn.VirtualAuthenticatorOptions (hasPrf=True, hasCredBlob=True, …)."""
        self.call("WebAuthn.enable", {"enableUI": False})
        return self.call("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "usb", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True, **capabilities}})["authenticatorId"]

    def open(self, url: str, timeout: float = 30) -> None:
        result = self.call("Page.navigate", {"url": url}, timeout=timeout)
        if result.get("errorText"):
            raise RuntimeError(f"navigate {url}: {result['errorText']}")
        if not self.wait_for(f"document.readyState === 'complete' && location.href === {json.dumps(url)}",
                             timeout=timeout):
            raise TimeoutError(f"chromium did not finish loading {url} in {timeout} s")

    def click(self, x: float, y: float) -> None:
        """A real (trusted) mouse click in the page, as a person's."""
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def open_past_certificate_error(self, url: str, timeout: float = 30) -> None:
        """Loads a page whose certificate Chromium rejects as a user would: its warning page ("Your connection is
        not private") comes up, and the user clicks Advanced → Proceed (the warning page's own proceed()). Chromium
        remembers that decision for the host until it quits: later loads show no warning."""
        result = self.call("Page.navigate", {"url": url}, timeout=timeout)
        error = str(result.get("errorText", ""))
        if error and not error.startswith("net::ERR_CERT_"):
            raise RuntimeError(f"navigate {url}: {error}")
        if error:
            if not self.wait_for("typeof certificateErrorPageController === 'object'", timeout=timeout):
                raise TimeoutError(f"chromium showed no certificate warning for {url}")
            self.evaluate("(certificateErrorPageController.proceed(), true)")
        if not self.wait_for(f"document.readyState === 'complete' && location.href === {json.dumps(url)}",
                             timeout=timeout):
            raise TimeoutError(f"chromium did not load {url} past its certificate warning in {timeout} s")

    def evaluate(self, expression: str, timeout: float = 60):
        result = self.call("Runtime.evaluate", {"expression": _wrap(expression), "awaitPromise": True,
                                                "returnByValue": True, "userGesture": True}, timeout=timeout)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise RuntimeError(f"page threw: {details.get('exception', {}).get('description') or details}")
        value = result["result"].get("value")
        return None if value is None else json.loads(value)


class Firefox(Browser):
    """Firefox ESR; the extension is a temporary add-on installed over BiDi (no signing, no prefs needed), or none
    (extension=None: what the browser installs itself, e.g. by policy). `launcher` goes before the command (as
    for Chromium: e.g. a mount namespace's unshare). `others` are more temporary add-ons, installed before the
    extension (others_first) or after it, in the order given."""
    name = "firefox"
    extra_args: tuple[str, ...] = ()

    def __init__(self, workdir: Path, env: dict, extension: Path | None, profile: Path, prefs: dict | None = None,
                 launcher: tuple[str, ...] = (), profile_files: dict | None = None, others: tuple[Path, ...] = (),
                 others_first: bool = False):
        super().__init__(workdir, env)
        self.profile = profile
        write_profile(profile, prefs, profile_files)
        self._spawn([*launcher, FIREFOX, "--headless", "--no-remote", "--profile", str(profile), *self.extra_args,
                     "--remote-debugging-port", "0", "about:blank"], subprocess.PIPE)
        self.conn = self._session(self._bidi_url(timeout=60))
        install = lambda path: self.conn.call(   # noqa: E731
            "webExtension.install", {"extensionData": {"type": "path", "path": str(path)}})["extension"]
        for other in others if others_first else ():
            install(other)
        self.extension_id = extension and install(extension)
        for other in () if others_first else others:
            install(other)
        self.tab = self.conn.call("browsingContext.getTree", {})["contexts"][0]["context"]

    def _session(self, url: str) -> Connection:
        """A BiDi session of its own at the address Firefox announced."""
        conn = Connection(f"{url}/session", suppress_origin=True)
        conn.call("session.new", {"capabilities": {}}, timeout=60)
        return conn

    @property
    def context(self) -> str:
        return self.tab

    def new_tab(self, background: bool = True):
        """A browsing context id; BiDi's background: true leaves the tab inactive."""
        return self.conn.call("browsingContext.create", {"type": "tab", "background": background})["context"]

    def activate(self, tab=None) -> None:
        self.conn.call("browsingContext.activate", {"context": tab or self.tab})

    def close_tab(self, tab) -> None:
        self.conn.call("browsingContext.close", {"context": tab})

    def _bidi_url(self, timeout: float) -> str:
        """Copies Firefox's output to the log (a thread keeps draining it) and returns the BiDi address."""
        found: list[str] = []
        ready = threading.Event()

        def pump():
            with open(self.log_path, "ab") as log:
                for line in self.proc.stdout:
                    log.write(line)
                    log.flush()
                    match = re.search(rb"WebDriver BiDi listening on (ws://\S+)", line)
                    if match and not found:
                        found.append(match.group(1).decode())
                        ready.set()

        threading.Thread(target=pump, daemon=True).start()
        deadline = time.monotonic() + timeout
        while not ready.wait(0.1):
            self._check_alive()
            if time.monotonic() > deadline:
                raise TimeoutError(f"firefox announced no BiDi port in {timeout} s:\n{self.log_tail()}")
        return found[0]

    def click(self, x: float, y: float) -> None:
        """A real (trusted) mouse click in the page, as a person's."""
        self.conn.call("input.performActions", {"context": self.context, "actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
                {"type": "pointerMove", "x": round(x), "y": round(y), "origin": "viewport"},
                {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})

    def open(self, url: str, timeout: float = 30) -> None:
        self.conn.call("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"},
                       timeout=timeout)

    def evaluate(self, expression: str, timeout: float = 60):
        result = self.conn.call("script.evaluate", {
            "expression": _wrap(expression), "target": {"context": self.context}, "awaitPromise": True,
            "resultOwnership": "none", "userActivation": True}, timeout=timeout)
        if result.get("type") == "exception":
            details = result.get("exceptionDetails", {})
            raise RuntimeError(f"page threw: {details.get('text') or details}")
        value = result["result"].get("value")
        return None if value is None else json.loads(value)
