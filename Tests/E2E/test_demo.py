"""`webauthn-bridge demo` (issue 15 part 5): the demo run as a user runs it, in headless Chromium and Firefox ESR.

The demo loads the extension by its own mechanism (Chromium: --load-extension in a throwaway user-data-dir;
Firefox: a proxy file in the profile's extensions/ directory and user.js prefs): the harness only connects to
the browser the demo started (CDP / WebDriver BiDi, whose address --headless prints) to click through the
page. The demo's own relying party verifies; the tests assert on what it verified, on the SoftToken that signed
(its host log and `token show`), and that SIGTERM leaves no process and no temporary directory behind.
"""
import json
import os
import queue
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from harness.paths import OVERRIDE_ACTIVE_JS, extension_dir
from harness.protocol import Connection, ProtocolError

START_TIMEOUT = 90


class Demo:
    """`webauthn-bridge demo ARGS` with its output read line by line on a thread."""

    def __init__(self, host: Path, *args: str, workdir: Path, extra_env: dict | None = None,
                 tmpdir: Path | None = None, prefix: tuple[str, ...] = ()):
        # Short: Chromium puts its singleton socket in TMPDIR, and a socket path is limited to 108 bytes.
        # `tmpdir`: another demo's TMPDIR, shared (the first demo's `kill` removes it). `prefix`: a command the demo
        # runs under (test_package_deb.py: a mount namespace holding the installed package).
        self.owns_tmpdir = tmpdir is None
        self.tmpdir = tmpdir or Path(tempfile.mkdtemp(prefix="wbd-", dir="/tmp"))
        (workdir / "home").mkdir(parents=True)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(workdir / "home"),
               "TMPDIR": str(self.tmpdir), **(extra_env or {})}
        if os.environ.get("WEBAUTHN_BRIDGE_EXTENSION") and "--extension" not in args:
            args += ("--extension", str(extension_dir()))   # a work in progress (harness/paths.py); else the demo finds it
        self.proc = subprocess.Popen([*prefix, str(host), "demo", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, text=True, env=env)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def expect(self, pattern: str, timeout: float = START_TIMEOUT) -> re.Match:
        """The first output line matching `pattern`; fails with the output so far at the deadline or at exit."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None:
                raise AssertionError(f"demo printed no line matching {pattern!r}:\n{''.join(self.output)}")
            self.output.append(line)
            if match := re.search(pattern, line):
                return match

    def stop(self, sig=signal.SIGTERM, timeout: float = 60) -> int:
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout=timeout)
        while (line := self.lines.get(timeout=10)) is not None:
            self.output.append(line)
        return code

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        if self.owns_tmpdir:
            shutil.rmtree(self.tmpdir, ignore_errors=True)


def descendants(root_pid: int) -> dict[int, str]:
    """Every process below root_pid, with its command line (a snapshot of /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
    found, frontier = {}, [root_pid]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                try:
                    found[pid] = (Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
                except OSError:
                    found[pid] = "?"
                frontier.append(pid)
    return found


def alive(pid: int) -> bool:
    """True while pid exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


class Page:
    """The demo page in the browser the demo started, through the remote-control address it printed."""

    def __init__(self, kind: str, address: str):
        self.kind = kind
        if kind == "chromium":
            self.conn = Connection(address)
            targets = self.conn.call("Target.getTargets")["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            self.session = self.conn.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        else:
            self.conn = Connection(f"{address}/session", suppress_origin=True)
            self.conn.call("session.new", {"capabilities": {}}, timeout=60)
            self.context = self.conn.call("browsingContext.getTree", {})["contexts"][0]["context"]

    def evaluate(self, expression: str, timeout: float = 60):
        wrapped = f"(async () => JSON.stringify(await ({expression})))()"
        if self.kind == "chromium":
            result = self.conn.call("Runtime.evaluate", {"expression": wrapped, "awaitPromise": True, "returnByValue": True,
                                                         "userGesture": True}, session=self.session, timeout=timeout)
            if "exceptionDetails" in result:
                raise RuntimeError(f"page threw: {result['exceptionDetails']}")
            value = result["result"].get("value")
        else:
            result = self.conn.call("script.evaluate", {"expression": wrapped, "target": {"context": self.context},
                                                        "awaitPromise": True, "userActivation": True}, timeout=timeout)
            if result.get("type") == "exception":
                raise RuntimeError(f"page threw: {result.get('exceptionDetails')}")
            value = result["result"].get("value")
        return None if value is None else json.loads(value)

    def wait_for(self, expression: str, timeout: float = 30) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.evaluate(expression, timeout=5) is True:
                    return True
            except (ProtocolError, RuntimeError, TimeoutError):
                pass   # the page is between documents
            time.sleep(0.1)
        return False

    def close(self):
        self.conn.close()


def get_json(url: str) -> dict:
    port = int(url.rsplit(":", 1)[1].strip("/"))
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/verified", headers={"Host": f"localhost:{port}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@pytest.mark.parametrize("kind", ["chromium", "firefox"])
def test_demo_registers_and_signs_in_then_leaves_nothing(kind, host, tmp_path):
    demo = Demo(host, "--browser", kind, "--headless", workdir=tmp_path)
    page = None
    try:
        token = Path(demo.expect(r"SoftToken:\s+(\S+)").group(1))
        root = token.parent
        assert root.parent == demo.tmpdir and root.name.startswith("webauthn-bridge-demo-")
        url = demo.expect(r"demo page:\s+(http://localhost:\d+/)").group(1)
        demo.expect(rf"Started {kind} \(pid \d+")
        page = Page(kind, demo.expect(r"Remote control: (ws://\S+)").group(1))

        # The extension the demo loaded (not the harness) serves the demo page.
        assert page.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete' && "
                             f"{OVERRIDE_ACTIVE_JS} && window.demo.bridgeActive()", timeout=60), \
            f"{kind}: the demo page is not served by the extension\n{''.join(demo.output)}"

        registered = page.evaluate(f"demo.register('alice-{kind}')")
        assert registered["verified"] is True, registered
        assert registered["ceremony"] == "registration"
        assert registered["attestationFormat"] == "packed"
        assert registered["attestation"].startswith("packed, signature valid with the attestation certificate")
        assert registered["flags"]["UP"] is True and registered["flags"]["AT"] is True
        assert registered["rpIdHashValid"] is True and registered["signatureValid"] is True
        assert registered["counter"] == 0

        signed_in = page.evaluate("demo.signIn()")
        assert signed_in["verified"] is True, signed_in
        assert signed_in["ceremony"] == "authentication" and signed_in["user"] == f"alice-{kind}"
        assert signed_in["credentialId"] == registered["credentialId"]
        assert signed_in["flags"]["UP"] is True and signed_in["flags"]["UV"] is False
        assert signed_in["signatureValid"] is True and signed_in["rpIdHashValid"] is True
        # 2: the host's silent look at the key before the request is signed and counted too (docs/errors.md).
        assert (signed_in["previousCounter"], signed_in["counter"]) == (0, 2)

        # The server's own record, and the page's table made from it.
        verified = get_json(url)
        assert verified["registration"]["credentialId"] == registered["credentialId"]
        assert verified["authentication"]["counter"] == 2
        assert page.evaluate("document.querySelector('#status').textContent") == "Verified by the server."

        # The bridge's host (this binary, started by the browser from the profile's manifest) and its SoftToken signed.
        host_log = (root / "host.log").read_text()
        assert re.search(r"create ok", host_log) and re.search(r"get ok", host_log), host_log[-2000:]
        shown = json.loads(subprocess.run([str(host), "token", "show", str(token), "--json"], capture_output=True,
                                          text=True, timeout=30, check=True).stdout)
        assert [(c["rpID"], c["userName"]) for c in shown["credentials"]] == [("localhost", f"alice-{kind}")]

        processes = descendants(demo.proc.pid)
        hosts = [pid for pid, cmd in processes.items() if str(host) in cmd or "webauthn-bridge" in cmd.split(" ")[0]]
        assert hosts, f"no native-messaging host among the demo's processes: {processes}"
        page.close()
        page = None

        assert demo.stop(signal.SIGTERM) == 0, "".join(demo.output)
        assert "Received SIGTERM; stopping." in "".join(demo.output)
        left = {pid: cmd for pid, cmd in processes.items() if alive(pid)}
        assert not left, f"processes the demo started outlived it: {left}"
        assert not root.exists(), f"{root} was not removed"
        assert list(demo.tmpdir.iterdir()) == []
    finally:
        if page:
            page.close()
        demo.kill()


def raw_request(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=15) as connection:
        connection.sendall(data)
        connection.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_demo_without_browser_prints_the_commands_and_serves_strictly(host, tmp_path):
    demo = Demo(host, workdir=tmp_path)
    try:
        token = Path(demo.expect(r"SoftToken:\s+(\S+)").group(1))
        url = demo.expect(r"demo page:\s+(http://localhost:\d+/)").group(1)
        port = int(url.rsplit(":", 1)[1].strip("/"))
        chromium = demo.expect(r"^\s+env .*--load-extension=.*").group(0)
        firefox = demo.expect(r"^\s+env .*HOME=.*--profile .*").group(0)
        demo.expect(r"Press Ctrl-C to stop")
        for command in (chromium, firefox):
            assert f"WEBAUTHN_BRIDGE_SOFT_TOKEN={token}" in command and command.rstrip().endswith(url)
        profile = token.parent / "firefox-profile"
        assert (profile / "extensions/webauthn-bridge@webauthn-bridge").read_text().strip().endswith("extension")
        assert 'user_pref("xpinstall.signatures.required", false);' in (profile / "user.js").read_text()
        for manifest in (token.parent / "chromium-profile/NativeMessagingHosts/webauthn_bridge.json",
                         token.parent / "home/.mozilla/native-messaging-hosts/webauthn_bridge.json"):
            assert json.loads(manifest.read_text())["path"] == str(host.resolve())

        assert raw_request(port, f"GET / HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n".encode()).startswith(b"HTTP/1.1 200 ")
        assert raw_request(port, f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()).startswith(b"HTTP/1.1 421 ")
        assert raw_request(port, f"GET / HTTP/1.1\r\nHost: localhost:{port}\r\nX-Pad: {'a' * 9000}\r\n\r\n".encode()) \
            .startswith(b"HTTP/1.1 431 ")
        assert raw_request(port, f"POST /api/login/verify HTTP/1.1\r\nHost: localhost:{port}\r\nContent-Length: 999999\r\n\r\n"
                           .encode()).startswith(b"HTTP/1.1 413 ")
        assert raw_request(port, f"POST /api/register/options HTTP/1.1\r\nHost: localhost:{port}\r\n"
                           f"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}".encode()).startswith(b"HTTP/1.1 403 ")
        body = b'{"type":"public-key","rawId":"AAAA","response":{"clientDataJSON":"e30","signature":"AAAA"}}'
        forged = raw_request(port, f"POST /api/login/verify HTTP/1.1\r\nHost: localhost:{port}\r\nOrigin: http://localhost:{port}\r\n"
                             f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        assert forged.startswith(b"HTTP/1.1 400 ") and b'"verified":false' in forged
        assert get_json(url) == {"registration": None, "authentication": None}

        assert demo.stop(signal.SIGINT) == 0
        assert not token.parent.exists()
    finally:
        demo.kill()


@pytest.mark.parametrize("kind", ["chromium", "firefox"])
def test_the_printed_command_starts_a_browser_that_signs_in_without_remote_control(kind, host, tmp_path):
    """The command `demo` prints, run as printed but headless and on `?auto=1` (the page registers and signs in by
    itself): no DevTools, no BiDi, nothing of the harness in the browser. The extension is loaded by the profile
    alone (Firefox: extensions/ proxy file and user.js), and the demo's server verifies both ceremonies."""
    demo = Demo(host, workdir=tmp_path)
    browser = None
    try:
        url = demo.expect(r"demo page:\s+(http://localhost:\d+/)").group(1)
        pattern = r"^\s+(env .*--load-extension=.*)" if kind == "chromium" else r"^\s+(env .*--profile .*)"
        command = shlex.split(demo.expect(pattern).group(1))
        demo.expect(r"Press Ctrl-C to stop")
        assert command[-1] == url
        command[-1:] = ["--headless=new" if kind == "chromium" else "--headless", url + "?auto=1"]
        log = open(tmp_path / f"{kind}.log", "wb")
        browser = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True, env={**os.environ, "HOME": str(tmp_path / "home")})
        deadline = time.monotonic() + 90
        while (verified := get_json(url))["authentication"] is None:
            assert browser.poll() is None, f"{kind} exited: {(tmp_path / f'{kind}.log').read_text(errors='replace')[-2000:]}"
            assert time.monotonic() < deadline, f"no sign-in verified in 90 s: {verified}"
            time.sleep(0.1)
        assert verified["registration"]["user"] == "auto" and verified["registration"]["attestationFormat"] == "packed"
        assert verified["authentication"]["signatureValid"] is True and verified["authentication"]["counter"] == 2
    finally:
        if browser and browser.poll() is None:
            os.killpg(browser.pid, signal.SIGTERM)
            browser.wait(timeout=30)
        demo.stop(signal.SIGTERM)
        demo.kill()


FAKE_BROWSER = """#!/bin/sh
# Records how the demo started it, leaves a process outside its own process group (as a browser's helper or a
# native host may be: only the demo's subreaper role can find it), and waits to be told to go.
env > "$RECORD.env"
printf '%s\\n' "$@" > "$RECORD.args"
setsid sleep 300 &
echo $! > "$RECORD.escaped"
[ -n "$EXIT_AT_ONCE" ] && exit 3
exec sleep 300
"""


@pytest.mark.parametrize("ending", ["browser-exits", "sigterm"])
def test_demo_stops_with_its_browser_and_reaps_what_escaped_its_group(ending, host, tmp_path):
    """A stand-in browser (no real one needed): the demo starts it with the SoftToken in its environment and the
    page's URL last, stops when it exits (or on SIGTERM), and stops the process it left outside its group."""
    fake = tmp_path / "fake-browser"
    fake.write_text(FAKE_BROWSER)
    fake.chmod(0o755)
    record = tmp_path / "record"
    demo = Demo(host, "--browser", "firefox", "--browser-binary", str(fake), workdir=tmp_path,
                extra_env={"RECORD": str(record), **({"EXIT_AT_ONCE": "1"} if ending == "browser-exits" else {})})
    try:
        token = Path(demo.expect(r"SoftToken:\s+(\S+)").group(1))
        url = demo.expect(r"demo page:\s+(http://localhost:\d+/)").group(1)
        demo.expect(r"Started firefox \(pid \d+")
        if ending == "browser-exits":
            demo.expect(r"The browser exited \(exit status 3\); stopping\.")
            assert demo.proc.wait(timeout=60) == 0
        else:
            demo.expect(r"Press Ctrl-C to stop")
            deadline = time.monotonic() + 30
            while not record.with_suffix(".escaped").exists():   # the stand-in is starting its escaped child
                assert time.monotonic() < deadline, "the stand-in browser did not start"
                time.sleep(0.05)
            assert demo.stop(signal.SIGTERM) == 0
        env = dict(line.split("=", 1) for line in record.with_suffix(".env").read_text().splitlines() if "=" in line)
        assert env["WEBAUTHN_BRIDGE_SOFT_TOKEN"] == str(token)
        assert env["HOME"] == str(token.parent / "home")
        args = record.with_suffix(".args").read_text().splitlines()
        assert args[:3] == ["--no-remote", "--profile", str(token.parent / "firefox-profile")] and args[-1] == url
        escaped = int(record.with_suffix(".escaped").read_text())
        assert not alive(escaped), "the process that left the browser's group outlived the demo"
        assert not token.parent.exists()
    finally:
        demo.kill()


def test_a_killed_demo_takes_its_browser_along_and_the_next_demo_removes_what_it_left(host, tmp_path):
    """SIGKILL leaves the demo no say: the kernel's parent-death signal, set in the stand-in browser before it ran
    (setpriv --pdeathsig), ends the browser, and the next demo in the same TMPDIR removes the directory the killed
    one left. The directory of a demo that still runs is kept."""
    fake = tmp_path / "fake-browser"
    fake.write_text(FAKE_BROWSER)
    fake.chmod(0o755)
    record = tmp_path / "record"
    killed = Demo(host, "--browser", "firefox", "--browser-binary", str(fake), workdir=tmp_path / "killed",
                  extra_env={"RECORD": str(record)})
    running = later = None
    escaped = browser = None
    try:
        left = Path(killed.expect(r"SoftToken:\s+(\S+)").group(1)).parent
        browser_pid = int(killed.expect(r"Started firefox \(pid (\d+)").group(1))
        killed.expect(r"Press Ctrl-C to stop")
        deadline = time.monotonic() + 30
        while not (record.with_suffix(".escaped").exists() and "sleep" in Path(f"/proc/{browser_pid}/cmdline")
                   .read_bytes().decode(errors="replace")):   # the stand-in has become its last command
            assert time.monotonic() < deadline, "the stand-in browser did not start"
            time.sleep(0.05)
        escaped = int(record.with_suffix(".escaped").read_text())
        browser = os.pidfd_open(browser_pid)   # before the kill: a reused PID cannot stand in for it
        assert (left / "owner").read_text().startswith(f"pid {killed.proc.pid}\n")

        running = Demo(host, workdir=tmp_path / "running", tmpdir=killed.tmpdir)
        running_root = Path(running.expect(r"SoftToken:\s+(\S+)").group(1)).parent
        running.expect(r"Press Ctrl-C to stop")

        killed.proc.kill()
        assert killed.proc.wait(timeout=30) == -signal.SIGKILL
        readable, _, _ = select.select([browser], [], [], 30)   # a pidfd turns readable when its process exits
        assert readable, f"the browser (pid {browser_pid}) outlived the demo killed with SIGKILL by 30 s"
        assert left.exists(), "nothing but the next demo may remove the killed demo's directory"

        later = Demo(host, workdir=tmp_path / "later", tmpdir=killed.tmpdir)
        later.expect(rf"^Removed {re.escape(str(left))}, left by an earlier demo \(pid {killed.proc.pid}\) "
                     r"that no longer runs\.")
        later_root = Path(later.expect(r"SoftToken:\s+(\S+)").group(1)).parent
        later.expect(r"Press Ctrl-C to stop")
        assert not left.exists()
        assert running_root.exists(), "the directory of a demo that still runs was removed"
        assert sum(line.startswith("Removed ") for line in later.output) == 1, "".join(later.output)

        assert running.stop(signal.SIGTERM) == 0 and later.stop(signal.SIGTERM) == 0
        assert not running_root.exists() and not later_root.exists()
    finally:
        if browser is not None:
            try:
                signal.pidfd_send_signal(browser, signal.SIGKILL)   # only when it outlived the demo (a failure)
            except ProcessLookupError:
                pass
            os.close(browser)
        if escaped and alive(escaped):
            os.kill(escaped, signal.SIGKILL)   # the stand-in's escaped child: nobody's to stop once the demo is killed
        for demo in (later, running, killed):
            if demo:
                demo.kill()


def test_demo_names_a_missing_extension(host, tmp_path):
    result = subprocess.run([str(host), "demo", "--extension", str(tmp_path / "nowhere")], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 1
    assert "no manifest.json there" in result.stderr
    assert list(tmp_path.iterdir()) == []
