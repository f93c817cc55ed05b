"""One browser under test with everything around it: scratch HOME, installed host, SoftToken, extension.

A test module gets one BrowserSession per browser (Firefox takes seconds to start); the module can ask for a
SoftToken that waits before "touch" (TOKEN_ARGS) or for no host at all (INSTALL_HOST = False). A session with
own_webauthn=True is the baseline: the browser without the extension or a host, its own WebAuthn answered by a
virtual authenticator (Chromium: DevTools'; Firefox: Marionette's, harness/marionette.py); Chromium's times are
recorded under "chromium-own".

Chromium serves a request by one of two paths (docs/extension.md): the page path (page/interceptor.js → relay →
background → host) or the proxy path (chrome.webAuthenticationProxy). A Chromium session sets the extension's
"proxyPath" setting explicitly, from `path`, and waits until the background reports the proxy attached (or
not), so each test runs the path it names whatever the extension's default; its times are recorded under
"chromium-proxy" for the proxy path.
"""
import itertools
import json
import os
import re
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from .browsers import Chromium, Firefox
from .install import create_token, firefox_extension, install_host, wrap_host
from .marionette import FirefoxWithOwnAuthenticator, MarionetteFirefox
from .paths import OVERRIDE_ACTIVE_JS, extension_dir
from .prompt_window import PromptWindow
from .timings import record

# One count for the whole run: every session (module × browser) shares the RP, so a per-session count gave two
# modules the same username and the RP listed the other token's credentials for it.
_USER_NUMBERS = itertools.count()


# The host's lines for a ceremony (RequestLoop): "<type> origin=…" when it starts one, "refused <type>" when it is
# busy, "<type> ok|failed …" when one ends.
# Ids of requests Chromium proxied end in "-proxy" (background/router.js): which path served shows in the log.
REACHED_LINE = re.compile(r"\[(?P<id>r\d+-t\d+-f\d+-p\d+(?:-proxy)?)\] (?:(?P<type>create|get) origin=|refused (?P<refused>create|get))")
ENDED_LINE = re.compile(r"\[(?P<id>r\d+-t\d+-f\d+-p\d+(?:-proxy)?)\] (?P<type>create|get) (?P<outcome>ok|failed) ")
PROXY_KEY = "proxyPath"


class BrowserSession:
    def __init__(self, kind: str, host_binary: Path, site_origin: str, *, install: bool = True,
                 token_args: tuple[str, ...] = (), firefox_prefs: dict | None = None, own_webauthn: bool = False,
                 extra_env: dict | None = None, path: str = "page", chromium_flags: tuple[str, ...] = (),
                 profile_files: dict | None = None, virtual_authenticator: bool = True,
                 own_authenticator: bool = False, others: tuple[Path, ...] = (), others_first: bool = False,
                 ready_js: str = OVERRIDE_ACTIVE_JS, host_env: dict | None = None):
        assert not own_webauthn or not install, "the browser's own WebAuthn runs without the bridge"
        assert path == "page" or kind == "chromium", "only Chromium has the proxy path"
        self.kind = kind
        self.path = path
        self.own_webauthn = own_webauthn
        self.timing_label = f"{kind}-own" if own_webauthn else (f"{kind}-proxy" if path == "proxy" else kind)
        self.site_origin = site_origin
        self.workdir = Path(tempfile.mkdtemp(prefix=f"webauthn-bridge-e2e-{kind}-"))
        self.home = self.workdir / "home"
        self.home.mkdir()
        self.host_log = self.workdir / "host.log"
        self.token = self.workdir / "softtoken.state"
        self.browser = None
        self.installed = install
        self.timed = (install and not token_args) or own_webauthn
        self.opened_once = False
        self.timed_once = False
        # The browser's environment is the host's environment: this is how the test selects the SoftToken.
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"), "XDG_STATE_HOME": str(self.home / ".local/state"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "WEBAUTHN_BRIDGE_SOFT_TOKEN": str(self.token), "WEBAUTHN_BRIDGE_LOG_FILE": str(self.host_log),
            "WEBAUTHN_BRIDGE_LOG_LEVEL": "debug",
            **(extra_env or {}),   # e.g. WEBAUTHN_BRIDGE_PINENTRY: the host sees what the browser was given
        }
        self.chromium_flags = chromium_flags
        self.profile_files = profile_files
        # Chromium skips its certificate check while a DevTools virtual authenticator is attached: the reference
        # for that check is Chromium's own without one.
        self.virtual_authenticator = virtual_authenticator
        # With the bridge: what is below it (the browser's own WebAuthn) answered too, by a virtual authenticator
        # (Chromium: DevTools' on the tab; Firefox: Marionette's, harness/marionette.py). Its id: own_authenticator_id.
        self.own_authenticator = own_authenticator
        self.own_authenticator_id = None
        # Other extensions beside the bridge (a stand-in password manager: harness/standin.py), loaded or installed
        # before it or after it; `ready_js` is what says a page is ready (the bridge's flag, unless another
        # extension's function is on top of it).
        self.others = others
        self.others_first = others_first
        self.ready_js = ready_js
        # Keys on the USB path instead of a SoftToken (Tests/Integration/usb_keys.py): `host_env` (umockdev's preload
        # and testbed) is given to the host alone, by a wrapper script the manifest names; the browser runs as usual.
        self.host_env = host_env
        if host_env:
            del self.env["WEBAUTHN_BRIDGE_SOFT_TOKEN"]
        try:
            self._start(host_binary, install, token_args, firefox_prefs)
        except BaseException:
            self.close()
            raise

    @classmethod
    def for_param(cls, param: str, host_binary: Path, site_origin: str, **kwargs) -> "BrowserSession":
        """A session for a test parameter: "chromium", "firefox", or "chromium-proxy" (the proxy path)."""
        kind, _, path = param.partition("-")
        return cls(kind, host_binary, site_origin, path=path or "page", **kwargs)

    def _start(self, host_binary, install, token_args, firefox_prefs):
        user_data_dir = self.workdir / "chromium-profile"
        manifest_dir = (user_data_dir / "NativeMessagingHosts" if self.kind == "chromium"
                        else self.home / ".mozilla/native-messaging-hosts")
        if install:
            host = install_host(host_binary, self.kind, self.home, self.workdir / "prefix", manifest_dir)
            if self.host_env:
                wrap_host(host, manifest_dir / "webauthn_bridge.json", self.host_env)
            else:
                create_token(host, self.token, *token_args, env=self.env)
        profile = self.workdir / "firefox-profile"
        if self.own_webauthn and self.kind == "firefox":
            self.browser = MarionetteFirefox(self.workdir, firefox_prefs, self.profile_files)
        elif self.own_webauthn:
            self.browser = Chromium(self.workdir, self.env, None, user_data_dir, flags=self.chromium_flags)
            if self.virtual_authenticator:
                self.browser.add_virtual_authenticator()
        elif self.kind == "chromium":
            self.browser = Chromium(self.workdir, self.env, extension_dir(), user_data_dir, flags=self.chromium_flags,
                                    others=self.others, others_first=self.others_first)
        else:
            kind = FirefoxWithOwnAuthenticator if self.own_authenticator else Firefox
            self.browser = kind(self.workdir, self.env, firefox_extension(self.workdir), profile, firefox_prefs,
                                profile_files=self.profile_files, others=self.others, others_first=self.others_first)
        # Not on Chromium's proxy path: a tab with a DevTools authenticator is served by it, never proxied; a test
        # there adds one once the bridge has the request (add_own_authenticator).
        if self.own_authenticator and self.path != "proxy":
            self.add_own_authenticator()
        self.front_tab = self.browser.tab   # the tab every test drives unless it opens another
        if self.kind == "chromium" and not self.own_webauthn:
            self.choose_path(self.path, expect_attached=install and self.path == "proxy")
        self.open("/index.html")

    def add_own_authenticator(self) -> str:
        self.own_authenticator_id = self.browser.add_virtual_authenticator()
        return self.own_authenticator_id

    def extension_status(self) -> dict:
        """The background's bridge-status answer (what the options page shows), asked from an extension page."""
        return self.call("chrome.runtime.sendMessage({kind: 'bridge-status'})")

    def status_in_background_tab(self, until: str | None = None):
        """The background's bridge-status answer, asked from the options page in a tab of its own (the tab being
        driven stays put); with `until` (an expression of that answer `s`), whether it became true within 20 s."""
        ext_id = (extension_dir() / "chromium-id.txt").read_text().strip()
        tab = self.browser.new_tab(background=True)
        try:
            with self.browser.in_tab(tab):
                self.browser.open(f"chrome-extension://{ext_id}/options/options.html")
                ask = "chrome.runtime.sendMessage({kind: 'bridge-status'})"
                if until:
                    return self.browser.wait_for(f"{ask}.then((s) => {until})", timeout=20)
                return self.browser.evaluate(ask)
        finally:
            self.browser.close_tab(tab)
            self.browser.activate(self.front_tab)

    def choose_path(self, path: str, expect_attached: bool) -> None:
        """Sets the extension's proxyPath setting from its options page and waits for the background to act on
        it: the proxy attached (expect_attached) or not. rp() then expects its ceremonies on that path."""
        self.path = path
        ext_id = (extension_dir() / "chromium-id.txt").read_text().strip()
        self.browser.open(f"chrome-extension://{ext_id}/options/options.html")
        self.call(f"chrome.storage.local.set({{{PROXY_KEY}: {json.dumps(path == 'proxy')}}})")
        attached = "s.proxy.state === 'attached'" if expect_attached else "s.proxy.state !== 'attached'"
        check = f"chrome.runtime.sendMessage({{kind: 'bridge-status'}}).then((s) => Boolean(s.proxy) && {attached})"
        if not self.browser.wait_for(check, timeout=20):
            raise AssertionError(f"chromium: the proxy path did not become {'attached' if expect_attached else 'detached'}: "
                                 f"{self.extension_status()}\n{self.diagnostics()}")

    def open(self, path: str, past_certificate_warning: bool = False) -> None:
        """Loads a page of the site (or any `https://` URL) and checks the bridge's override is in place before any
        test uses it. past_certificate_warning: the page's certificate is one the browser rejects, and the user
        goes on anyway — Chromium's "Proceed" on its warning page; in Firefox the override ("Accept the risk")
        must be in the profile already (cert_override.txt)."""
        url = path if path.startswith("https://") else self.site_origin + path
        if past_certificate_warning and isinstance(self.browser, Chromium):
            self.browser.open_past_certificate_error(url)
        else:
            self.browser.open(url)
        if self.own_webauthn:
            return
        active = self.browser.wait_for(self.ready_js, timeout=5)
        if not active and not self.opened_once:
            # The first page after launch can race the extension's start-up (content scripts registered a
            # moment after the browser is reachable): one reload, then the same strict check.
            self.browser.open(url)
            active = self.browser.wait_for(self.ready_js, timeout=10)
        self.opened_once = True
        if not active:
            raise AssertionError(f"{self.kind}: the extension's override is not active on {url} "
                                 f"({self.ready_js} is false)\n{self.diagnostics()}")

    @contextmanager
    def second_tab(self, path: str, background: bool = True):
        """A second tab on a page of the site, opened in the background (or in front, as a user opening a tab
        does): call()/rp() drive it inside the block. Afterwards it is closed and the first tab is made active
        again (the next test expects it in front)."""
        tab = self.browser.new_tab(background=background)
        try:
            with self.browser.in_tab(tab):
                if self.own_webauthn:
                    self.browser.add_virtual_authenticator()   # Chromium's are per tab
                self.open(path)
                yield tab
        finally:
            self.browser.close_tab(tab)
            self.browser.activate(self.front_tab)

    def press_in_page(self) -> None:
        """The user clicks in the page (its top-left corner, away from any control), as before pressing "Sign in":
        the security-key window takes the focus, at once, only after such a press (prompt-window.js)."""
        self.browser.click(2, 2)

    def call(self, js: str, timeout: float = 60):
        return self.browser.evaluate(js, timeout=timeout)

    def new_user(self, name: str) -> str:
        """A username no other test or browser uses: the RP is shared by every browser of the run."""
        return f"{name}-{self.kind}-{next(_USER_NUMBERS)}"

    def rp(self, function: str, /, deadline: float = 60, **args) -> dict:
        """Runs window.rp.<function>(args) in the page (site/rp.js) and returns its JSON result."""
        result = self.call(f"rp.{function}({json.dumps(args)})", timeout=deadline)
        if self.installed and function in ("register", "signIn") and isinstance(result, dict) and result.get("ok"):
            self.assert_path_served()
        # Timed only where the token answers at once: a presence delay would measure the delay.
        if (self.timed and function in ("register", "signIn") and isinstance(result, dict)
                and result.get("ok") and isinstance(result.get("elapsedMs"), (int, float))):
            record(self.timing_label, function, result["elapsedMs"], cold=not self.timed_once)
            self.timed_once = True
        return result

    def given_up(self, js: str, deadline: float = 60):
        """Evaluates `js`, a call whose request fails with an error the security-key window holds with "Try again"
        while the page waits (background/try-again.js): the user closes the window, as one who gives up, and the
        call settles with the failure's error, which this returns."""
        self.call(f"(window.heldCall = ({js}), true)")
        window = PromptWindow.wait(self.browser, timeout=deadline)
        window.wait_for("document.getElementById('retry').hidden === false", timeout=deadline)
        window.click("Close")
        return self.call("window.heldCall", timeout=deadline)

    def rp_given_up(self, function: str, /, deadline: float = 60, **args) -> dict:
        """rp.<function>(args) (as rp()) failing with an error the user may try again, given up (given_up())."""
        return self.given_up(f"rp.{function}({json.dumps(args)})", deadline)

    def assert_path_served(self) -> None:
        """The ceremony that just succeeded reached the host by this session's path (proxied ids end in -proxy):
        a proxy-path test that the page path served, or the reverse, fails here. A session whose path is "any"
        (the extension left at its defaults: harness/policy.py) only needs the ceremony in the log."""
        last = self.ceremonies()[-1:]
        assert last, f"{self.kind}: a ceremony succeeded but none is in the host log\n{self.diagnostics()}"
        if self.path == "any":
            return
        proxied = last[0]["id"].endswith("-proxy")
        assert proxied == (self.path == "proxy"), f"{self.kind}: served by the {'proxy' if proxied else 'page'} path, " \
                                                  f"not the {self.path} path: {last[0]['line']}"

    def _log_matches(self, pattern: re.Pattern) -> list[dict]:
        if not self.host_log.exists():
            return []
        lines = self.host_log.read_text(errors="replace").splitlines()
        return [{**m.groupdict(), "line": line} for line in lines if (m := pattern.search(line))]

    def ceremonies(self) -> list[dict]:
        """Every ceremony request that reached the host, in order, from its log: [{id, type, line}]."""
        return [{"id": e["id"], "type": e["type"] or e["refused"], "line": e["line"]} for e in self._log_matches(REACHED_LINE)]

    def ended(self) -> list[dict]:
        """Every ceremony the host finished, in order: [{id, type, outcome, line}]."""
        return self._log_matches(ENDED_LINE)

    def wait_for_log(self, find, what: str, timeout: float = 15):
        """Polls find() (reading the host log) until it returns something true, and returns that: the host writes
        a line a moment after the page or the test has seen the event it records."""
        deadline = time.monotonic() + timeout
        while not (found := find()):
            if time.monotonic() > deadline:
                raise AssertionError(f"not in the host log in {timeout} s: {what}\n{self.diagnostics()}")
            time.sleep(0.05)
        return found

    def diagnostics(self) -> str:
        host_log = self.host_log.read_text(errors="replace")[-3000:] if self.host_log.exists() else "(no host log)"
        browser_log = self.browser.log_tail() if self.browser else ""
        return f"--- host log ({self.host_log})\n{host_log}\n--- {self.kind} output\n{browser_log}"

    def close(self):
        if self.browser:
            self.browser.close()
        if os.environ.get("WEBAUTHN_BRIDGE_E2E_KEEP"):
            print(f"kept {self.workdir}")
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)
