"""A system install (install.sh --system) that the browser installs the extension from by itself: by policy
(Chromium) or from the system-wide extension directory (Firefox ESR).

install.sh writes into a scratch root (--root): the host, its manifest, the packaged extension and the browser's
policy file, each naming its final path under / (/etc/..., /usr/local/...). The browser then runs in a mount
namespace of its own where each top directory of that root lies over the real one, read-only (overlayfs, the
staged files first): it finds the policy where it looks for one, and the real /etc and /usr never change. The
mounts go with the namespace's last process. The browser gets no extension flag and no BiDi install: what it
runs, it installed from the policy (docs/install.md, "System install").
"""
import json
import subprocess
import tempfile
import time
from pathlib import Path

from .browsers import Chromium, Firefox
from .install import create_token, run_install_sh
from .paths import OVERRIDE_ACTIVE_JS, REPO
from .session import BrowserSession

PREFIX = "/usr/local"
FIREFOX_ID = "webauthn-bridge@webauthn-bridge"
# Where each browser says the extension came from: Chromium's location for a policy install; for Firefox, the
# system-wide extension directory's location (install.sh --system puts the unsigned .xpi there).
POLICY_SOURCE = {"chromium": "EXTERNAL_POLICY_DOWNLOAD", "firefox": "app-system-share"}


def throwaway_root(stage: Path) -> tuple[str, ...]:
    """The command prefix that runs a program with `stage`'s top directories laid over the real ones."""
    dirs = sorted(d for d in stage.iterdir() if d.is_dir())
    for d in dirs:
        # overlayfs separates its options with "," and its lower directories with ":".
        assert not set(str(d)) & set(",:"), f"overlayfs cannot take this path: {d}"
    mounts = "".join(f'mount -t overlay overlay -o "lowerdir={d}:/{d.name}" "/{d.name}" && ' for d in dirs)
    return ("unshare", "--mount", "--propagation", "private", "sh", "-c", mounts + 'exec "$@"', "sh")


def isolation_problem() -> str | None:
    """Why this machine cannot give a browser a throwaway root (None when it can): unshare needs root, or a
    kernel that lets this user make mount namespaces, and overlayfs."""
    with tempfile.TemporaryDirectory(prefix="webauthn-bridge-overlay-probe-") as d:
        (Path(d) / "etc").mkdir()
        (Path(d) / "etc/webauthn-bridge-probe").write_text("seen\n")
        try:
            probe = subprocess.run([*throwaway_root(Path(d)), "cat", "/etc/webauthn-bridge-probe"],
                                   capture_output=True, text=True, timeout=30)
        except FileNotFoundError as error:
            return f"unshare not found ({error}): install util-linux"
        if probe.returncode != 0 or probe.stdout != "seen\n":
            return f"unshare --mount with an overlay on /etc failed ({probe.returncode}): {probe.stderr.strip()}"
    return None


def package_extension(out: Path) -> tuple[Path, Path, str]:
    """scripts/package.sh xpi crx into `out`: the .xpi, the .crx (signed with a throwaway key made there) and its id."""
    result = subprocess.run(["bash", str(REPO / "scripts/package.sh"), "xpi", "crx", "--out", str(out)],
                            capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise RuntimeError(f"scripts/package.sh xpi crx failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    (xpi,), (crx,) = out.glob("webauthn-bridge-*.xpi"), out.glob("webauthn-bridge-*.crx")
    return xpi, crx, (out / "chromium-id.txt").read_text().strip()


def forget_remote_agent_scopes(profile: Path) -> None:
    """Removes what the test's own remote control left in the profile's prefs.js: Firefox's Remote Agent (BiDi, which
    a user's Firefox does not run) sets extensions.enabledScopes=5, leaving out the system scope where install.sh
    puts the extension, and a browser the test stops keeps it for the next start (measured with ESR 153: the
    extension then no longer loads). The first start is unaffected: the add-ons are loaded before the agent starts."""
    prefs = profile / "prefs.js"
    if prefs.exists():
        kept = [line for line in prefs.read_text().splitlines(keepends=True)
                if '"extensions.enabledScopes"' not in line and '"extensions.autoDisableScopes"' not in line]
        prefs.write_text("".join(kept))


class PolicySession(BrowserSession):
    """A BrowserSession whose extension the browser installed by policy from a system install in a throwaway root."""

    def _start(self, host_binary, install, token_args, firefox_prefs):
        assert install, "a policy session always installs"
        problem = isolation_problem()
        if problem:
            raise AssertionError(f"no throwaway root for the policy files on this machine: {problem}")
        self.stage = self.workdir / "root"
        self.profile = self.workdir / f"{self.kind}-profile"
        self.host_binary = host_binary
        self.packages = package_extension(self.workdir / "dist")
        self.crx_id = self.packages[2]
        self.install()
        create_token(self.stage / PREFIX.lstrip("/") / "libexec/webauthn-bridge/webauthn-bridge", self.token,
                     *token_args, env=self.env)
        # No config.json: a CRX signed with package.sh's throwaway key has an id of its own, which the host serves
        # because install.sh put it in PREFIX/share/webauthn-bridge/chromium-id.txt beside the host.
        self.start_browser(firefox_prefs)

    def install(self, *extra: str) -> None:
        """install.sh --system into the scratch root, for this session's browser."""
        xpi, crx, _ = self.packages
        self.install_output = run_install_sh(
            "--system", "--root", str(self.stage), "--prefix", PREFIX, "--host-binary", str(self.host_binary),
            "--xpi", str(xpi), "--crx", str(crx), "--browser", "chromium" if self.kind == "chromium" else "firefox-esr",
            *extra, home=self.home).stdout

    def start_browser(self, firefox_prefs=None, wait: bool = True):
        """Starts the browser on this session's profile in the throwaway root, no extension flag, and (wait) waits
        until the extension it installed by policy serves the test page."""
        launcher = throwaway_root(self.stage)
        self.timed = False   # the ceremony medians are the other modules' business
        if self.kind == "chromium":
            # A restart on the same profile: the last run's port file would send Chromium() to a dead port.
            (self.profile / "DevToolsActivePort").unlink(missing_ok=True)
            self.browser = Chromium(self.workdir, self.env, None, self.profile, launcher=launcher)
        else:
            forget_remote_agent_scopes(self.profile)
            self.browser = Firefox(self.workdir, self.env, None, self.profile, firefox_prefs, launcher=launcher)
        self.front_tab = self.browser.tab
        self.opened_once = False
        if not wait:
            return
        if not self.policy_installed_extension_active(timeout=120):
            raise AssertionError(f"{self.kind}: the policy-installed extension never served {self.site_origin}\n"
                                 f"install.sh said:\n{self.install_output}\n{self.diagnostics()}")
        # The extension as installed, with its defaults: in Chromium the proxy path once the host has answered, the
        # page path before; either may serve a ceremony here (the path is the other modules' business).
        self.path = "any"
        self.open("/index.html")

    def policy_installed_extension_active(self, timeout: float) -> bool:
        """Reloads the test page until the extension's override is in it: the browser installs a policy's extension
        after it has started (Chromium reads the update manifest, Firefox fetches the .xpi), in a second or so."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.browser.open(self.site_origin + "/index.html")
            if self.browser.wait_for(OVERRIDE_ACTIVE_JS, timeout=5):
                return True
        return False

    def browser_argv(self) -> list[str]:
        """The browser's command line as the kernel has it (the launcher has exec'd into the browser)."""
        return Path(f"/proc/{self.browser.proc.pid}/cmdline").read_bytes().decode().split("\0")

    def install_source(self, timeout: float = 30) -> str | None:
        """How the browser says the extension came: Chromium's location for the CRX's id (chrome://extensions-
        internals), Firefox's location in the profile's extensions.json (None: not there, or not active)."""
        if self.kind == "chromium":
            tab = self.browser.new_tab()
            try:
                with self.browser.in_tab(tab):
                    self.browser.open("chrome://extensions-internals/")
                    extensions = json.loads(self.browser.evaluate("document.body.innerText"))
            finally:
                self.browser.close_tab(tab)
                self.browser.activate(self.front_tab)
            return next((e["location"] for e in extensions if e["id"] == self.crx_id), None)
        record = self.profile / "extensions.json"
        deadline = time.monotonic() + timeout   # Firefox writes it a moment after the install
        while time.monotonic() < deadline:
            try:
                addons = json.loads(record.read_text())["addons"]
            except (OSError, ValueError, KeyError):
                addons = []
            found = next((a for a in addons if a["id"] == FIREFOX_ID), None)
            if found and found.get("active"):
                return found.get("location")
            time.sleep(0.2)
        return None

    def uninstall(self) -> str:
        """install.sh --uninstall on the scratch root, as on a real system."""
        return run_install_sh("--uninstall", "--system", "--root", str(self.stage), "--prefix", PREFIX,
                              home=self.home).stdout
