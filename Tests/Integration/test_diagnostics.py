"""`devices`, `doctor`, `log`, and a log that cannot be written (issue 7), through the real executable."""

import json
import os
import select
import subprocess
import time
from pathlib import Path

from bridge import REPO, create_token, host_binary
from rp import ORIGIN, creation_options


def cli(*args, env=None, timeout=60):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")}
    environment.update(env or {})
    return subprocess.run([host_binary(), *args], capture_output=True, text=True, env=environment, timeout=timeout)


def test_devices_lists_the_soft_token_with_its_capabilities(tmp_path):
    token = create_token(tmp_path / "t.state", "--pin", "4321")
    env = {"WEBAUTHN_BRIDGE_SOFT_TOKEN": str(token), "HOME": str(tmp_path)}
    text = cli("devices", env=env)
    assert text.returncode == 0, text.stderr
    assert "software token — for development and tests only" in text.stdout
    assert "PIN: set, 8 attempts left" in text.stdout
    [device] = json.loads(cli("devices", "--json", env=env).stdout)
    assert device["versions"] == ["FIDO_2_0", "FIDO_2_1"]
    assert device["options"]["clientPin"] is True
    assert "hmac-secret" in device["extensions"]
    assert device["pinRetries"] == 8
    assert len(device["aaguid"]) == 36


def test_doctor_in_an_empty_home_fails_and_names_what_is_missing(tmp_path):
    result = cli("doctor", env={"HOME": str(tmp_path)})
    assert result.returncode == 1
    assert "FAIL  browsers" in result.stdout and "install.sh" in result.stdout


def test_doctor_names_each_browser_whose_manifest_is_missing(tmp_path):
    (tmp_path / ".mozilla").mkdir()
    (tmp_path / ".config" / "chromium").mkdir(parents=True)
    report = json.loads(cli("doctor", "--json", env={"HOME": str(tmp_path)}).stdout)
    failed = {c["check"]: c for c in report["checks"] if c["status"] == "FAIL"}
    assert report["ok"] is False
    assert "host manifest for Firefox / Firefox ESR" in failed and "host manifest for Chromium" in failed
    assert "native-messaging-hosts/webauthn_bridge.json is missing" in failed["host manifest for Firefox / Firefox ESR"]["detail"]


def test_doctor_passes_after_install_sh(tmp_path):
    home = tmp_path / "home"
    (home / ".mozilla").mkdir(parents=True)
    (home / ".config" / "chromium").mkdir(parents=True)
    install = subprocess.run([str(REPO / "install.sh"), "--host-binary", host_binary(), "--prefix", str(tmp_path / "prefix")],
                             capture_output=True, text=True, env={**os.environ, "HOME": str(home)}, timeout=120)
    assert install.returncode == 0, install.stderr
    report = json.loads(cli("doctor", "--json", env={"HOME": str(home)}).stdout)
    statuses = {c["check"]: c["status"] for c in report["checks"]}
    assert report["ok"] is True, report
    assert statuses["host manifest for Firefox / Firefox ESR"] == "OK"
    assert statuses["host manifest for Chromium"] == "OK"


def test_doctor_fails_a_manifest_pointing_at_a_missing_host(tmp_path):
    manifests = tmp_path / ".mozilla" / "native-messaging-hosts"
    manifests.mkdir(parents=True)
    (manifests / "webauthn_bridge.json").write_text(json.dumps({
        "name": "webauthn_bridge", "type": "stdio", "path": "/nonexistent/webauthn-bridge",
        "allowed_extensions": ["webauthn-bridge@webauthn-bridge"]}))
    result = cli("doctor", env={"HOME": str(tmp_path)})
    assert result.returncode == 1
    assert "/nonexistent/webauthn-bridge, which is not an executable" in result.stdout


def pin_prompt_check(home: Path, path: str, **env) -> dict:
    report = json.loads(cli("doctor", "--json", env={"HOME": str(home), "PATH": path, **env}).stdout)
    return next(c for c in report["checks"] if c["check"] == "PIN prompt")


def test_doctor_tries_the_pin_prompt_without_a_terminal_as_a_desktop_browser_starts_the_host(tmp_path):
    """Debian's `pinentry` is pinentry-curses: doctor starts it with no terminal, where it fails every PIN, and says
    so with the fix, though `pinentry` is on PATH (real pinentry-curses, installed by scripts/test.sh)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pinentry").symlink_to("/usr/bin/pinentry-curses")
    check = pin_prompt_check(tmp_path, f"{bin_dir}:/usr/bin:/bin", DISPLAY=":0")
    assert check["status"] == "WARN", check
    assert "terminal pinentry (curses)" in check["detail"] and "Inappropriate ioctl for device" in check["detail"]
    assert "pinentry-gnome3" in check["fix"]


def test_doctor_is_content_with_a_graphical_pinentry_when_a_display_is_there(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pinentry").symlink_to("/usr/bin/pinentry-curses")
    graphical = bin_dir / "pinentry-gnome3"   # preferred over `pinentry` when there is a display
    graphical.write_text('#!/bin/sh\necho "OK hi"\nwhile read -r l; do case "$l" in "GETINFO flavor") '
                         'echo "D gnome3"; echo OK;; BYE) echo OK; exit 0;; *) echo OK;; esac; done\n')
    graphical.chmod(0o755)
    check = pin_prompt_check(tmp_path, f"{bin_dir}:/usr/bin:/bin", DISPLAY=":0")
    assert (check["status"], check["detail"]) == ("OK", f"{graphical} (gnome3)"), check
    without_display = pin_prompt_check(tmp_path, f"{bin_dir}:/usr/bin:/bin")
    assert without_display["status"] == "WARN" and "no DISPLAY" in without_display["fix"], without_display


def test_the_installed_doctor_advises_install_sh_and_the_packaged_one_would_not(tmp_path):
    """A per-user install's doctor, with no browser profile yet: start the browser, then install.sh again."""
    home, prefix = tmp_path / "home", tmp_path / "prefix"
    home.mkdir()
    install = subprocess.run([str(REPO / "install.sh"), "--host-binary", host_binary(), "--prefix", str(prefix),
                              "--browser", "chromium", "--no-extension"], capture_output=True, text=True,
                             env={**os.environ, "HOME": str(home)}, timeout=120)
    assert install.returncode == 0, install.stderr
    (home / ".config" / "chromium" / "NativeMessagingHosts" / "webauthn_bridge.json").unlink()
    (home / ".config" / "chromium" / "NativeMessagingHosts").rmdir()
    installed = prefix / "libexec/webauthn-bridge/webauthn-bridge"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")}
    report = json.loads(subprocess.run([installed, "doctor", "--json"], capture_output=True, text=True, timeout=60,
                                       env={**environment, "HOME": str(home)}).stdout)
    check = next(c for c in report["checks"] if c["check"] == "host manifest for Chromium")
    assert check["status"] == "FAIL" and check["fix"] == (
        f"run ./install.sh --prefix {prefix} --browser chromium in the webauthn-bridge clone"), check


def test_log_prints_rotated_files_in_order_and_filters_by_request(tmp_path):
    log = tmp_path / "host.log"
    (tmp_path / "host.log.2").write_text("t0 INFO [r-1] oldest\n")
    (tmp_path / "host.log.1").write_text("t1 INFO [r-2] middle\n")
    log.write_text("t2 INFO [r-1] newest\nt3 WARN unrelated\n")
    env = {"WEBAUTHN_BRIDGE_LOG_FILE": str(log), "HOME": str(tmp_path)}
    assert cli("log", env=env).stdout.splitlines() == ["t0 INFO [r-1] oldest", "t1 INFO [r-2] middle",
                                                       "t2 INFO [r-1] newest", "t3 WARN unrelated"]
    assert cli("log", "--request", "r-1", env=env).stdout.splitlines() == ["t0 INFO [r-1] oldest", "t2 INFO [r-1] newest"]


def test_log_request_includes_the_ceremony_trace_and_key_lines(launch, token):
    host = launch(token, log_level="trace")
    for request_id in ("c-1", "c-2"):
        options, _ = creation_options()
        reply, _ = host.request({"id": request_id, "type": "create", "origin": ORIGIN, "options": options})
        assert reply["type"] == "result", reply
    host.close()
    env = {"WEBAUTHN_BRIDGE_LOG_FILE": str(host.log_path), "HOME": str(host.log_path.parent)}
    lines = cli("log", "--request", "c-2", env=env).stdout.splitlines()
    assert lines and all("[c-2]" in line for line in lines)
    # libfido2's decoded trace and the SoftToken attach/selection lines know no request id of their own.
    assert any("libfido2: CTAP → authenticatorMakeCredential" in line for line in lines), lines
    assert any("libfido2: CTAP ← authenticatorMakeCredential status 0x0" in line for line in lines), lines
    assert any("create ok" in line for line in lines)
    # Lines of the host as a whole (start-up) belong to no request.
    assert not any("started by" in line for line in lines)


def read_line(proc, buffer: bytearray, timeout: float = 10.0) -> str:
    """One line of `proc`'s stdout, failing after `timeout` seconds instead of waiting for ever."""
    deadline = time.monotonic() + timeout
    while b"\n" not in buffer:
        remaining = deadline - time.monotonic()
        ready, _, _ = select.select([proc.stdout], [], [], max(remaining, 0))
        if not ready:
            raise TimeoutError(f"no line from `log --follow` in {timeout} s; got so far: {bytes(buffer)!r}")
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            raise EOFError(f"`log --follow` exited ({proc.poll()}) after {bytes(buffer)!r}")
        buffer += chunk
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    return line.decode()


def test_log_follow_sees_new_lines_across_a_rotation(tmp_path):
    log = tmp_path / "host.log"
    log.write_text("before\n")
    environment = {**os.environ, "WEBAUTHN_BRIDGE_LOG_FILE": str(log), "HOME": str(tmp_path)}
    follower = subprocess.Popen([host_binary(), "log", "--follow"], stdout=subprocess.PIPE, env=environment)
    buffer = bytearray()
    try:
        # "appended" is written at once: a line that lands while the command switches from printing to following
        # must still come out.
        assert read_line(follower, buffer) == "before"
        with log.open("a") as f:
            f.write("appended\n")
        assert read_line(follower, buffer) == "appended"
        log.rename(tmp_path / "host.log.1")
        time.sleep(0.5)
        log.write_text("after rotation\n")
        assert read_line(follower, buffer) == "after rotation"
    finally:
        follower.kill()
        follower.wait()


def test_an_unwritable_log_warns_once_and_the_ceremony_succeeds(launch, token):
    host = launch(token, env={"WEBAUTHN_BRIDGE_LOG_FILE": "/proc/webauthn-bridge-no/host.log"})
    options, _ = creation_options()
    reply, _ = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    host.close()
    warnings = [l for l in host.proc.stderr.read().decode().splitlines() if "cannot write log" in l]
    assert len(warnings) == 1
