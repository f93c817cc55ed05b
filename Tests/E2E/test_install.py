"""install.sh on its own, in a scratch HOME with a stand-in host binary: what it writes, and that it undoes it.
(The browser tests also go through install.sh, with the real host.)"""
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest

from harness.install import run_install_sh
from harness.paths import INSTALL_SH

CHROMIUM_ID = "abcdefghijklmnopabcdefghijklmnop"
CHROMIUM_ID_OF_REPO = (INSTALL_SH.parent / "extension/chromium-id.txt").read_text().strip()


@pytest.fixture
def tmp_path():
    # Our own scratch directory, removed afterwards (pytest's tmp_path keeps the last runs around).
    with tempfile.TemporaryDirectory(prefix="webauthn-bridge-install-test-") as d:
        yield Path(d)


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    (home / ".mozilla").mkdir(parents=True)
    (home / ".config/BraveSoftware/Brave-Browser").mkdir(parents=True)
    # Someone else's host next to ours: uninstall must leave it alone.
    (home / ".mozilla/native-messaging-hosts").mkdir()
    (home / ".mozilla/native-messaging-hosts/other_host.json").write_text("{}")
    return home


@pytest.fixture
def fake_host(tmp_path):
    host = tmp_path / "fake-host"
    host.write_text("#!/bin/sh\nexit 0\n")
    host.chmod(0o755)
    return host


def tree(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def install(home, fake_host, *extra):
    return run_install_sh("--host-binary", str(fake_host), "--chromium-id", CHROMIUM_ID, *extra, home=home)


def test_manifests_go_to_browsers_whose_profile_exists_with_an_absolute_host_path(home, fake_host):
    install(home, fake_host)
    host = home / ".local/libexec/webauthn-bridge/webauthn-bridge"
    assert host.is_file() and os.access(host, os.X_OK)

    firefox = json.loads((home / ".mozilla/native-messaging-hosts/webauthn_bridge.json").read_text())
    assert firefox == {"name": "webauthn_bridge", "description": firefox["description"], "path": str(host),
                       "type": "stdio", "allowed_extensions": ["webauthn-bridge@webauthn-bridge"]}
    brave = json.loads((home / ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts/webauthn_bridge.json")
                       .read_text())
    assert brave["path"] == str(host)
    assert brave["allowed_origins"] == [f"chrome-extension://{CHROMIUM_ID}/"]
    # No profile, no manifest: nothing is created for browsers that are not there.
    assert not (home / ".config/chromium").exists()
    assert not (home / ".config/google-chrome").exists()


def test_second_run_changes_nothing(home, fake_host):
    install(home, fake_host)
    before = tree(home)
    again = install(home, fake_host)
    assert tree(home) == before
    changes = [line for line in again.stdout.splitlines() if line.startswith(("wrote:", "installed:"))]
    assert changes == [], again.stdout


def test_uninstall_removes_exactly_what_install_added(home, fake_host):
    before = tree(home)
    install(home, fake_host, "--browser", "chromium")
    assert (home / ".config/chromium/NativeMessagingHosts/webauthn_bridge.json").exists()
    run_install_sh("--uninstall", home=home)
    assert tree(home) == before


def test_dry_run_changes_nothing_and_names_every_action(home, fake_host):
    before = tree(home)
    result = install(home, fake_host, "--dry-run")
    assert tree(home) == before
    assert "would run: install -m 0755" in result.stdout
    assert "would write: " + str(home / ".mozilla/native-messaging-hosts/webauthn_bridge.json") in result.stdout


def test_custom_manifest_dir_and_prefix(home, fake_host, tmp_path):
    udd = tmp_path / "udd"
    install(home, fake_host, "--prefix", str(tmp_path / "p"), "--manifest-dir", str(udd / "NativeMessagingHosts"),
            "--browser-kind", "chromium")
    manifest = json.loads((udd / "NativeMessagingHosts/webauthn_bridge.json").read_text())
    assert manifest["path"] == str(tmp_path / "p/libexec/webauthn-bridge/webauthn-bridge")
    # Only the directory asked for: the detected browsers are left alone.
    assert not (home / ".mozilla/native-messaging-hosts/webauthn_bridge.json").exists()


def test_ends_with_how_to_load_the_extension(home, fake_host):
    out = install(home, fake_host).stdout
    assert "chrome://extensions" in out and "Load unpacked" in out
    assert "about:debugging" in out and "xpinstall.signatures.required=false" in out
    assert "doctor" in out


def test_flatpak_browser_gets_a_note(home, fake_host):
    (home / ".var/app/org.mozilla.firefox").mkdir(parents=True)
    assert "Flatpak org.mozilla.firefox" in install(home, fake_host).stdout


def test_unknown_option_fails(home):
    result = run_install_sh("--frobnicate", home=home, check=False)
    assert result.returncode != 0 and "unknown option" in result.stderr


def test_install_sh_is_shellcheck_clean():
    if not shutil.which("shellcheck"):
        pytest.fail("shellcheck is not installed (run.sh installs it)")
    result = subprocess.run(["shellcheck", str(INSTALL_SH)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_system_install_targets_the_system_manifest_directories(home, fake_host):
    # --dry-run only: the test must not write to /etc or /usr.
    out = install(home, fake_host, "--system", "--browser", "chromium", "--browser", "brave",
                  "--browser", "firefox", "--dry-run").stdout
    assert "would run: install -m 0755 -- " + str(fake_host) + " /usr/local/libexec/webauthn-bridge/webauthn-bridge" in out
    for path in ("/etc/chromium/native-messaging-hosts/webauthn_bridge.json",
                 "/etc/opt/chrome/native-messaging-hosts/webauthn_bridge.json",   # Brave reads Chrome's
                 "/usr/lib/mozilla/native-messaging-hosts/webauthn_bridge.json"):
        assert f"would write: {path}" in out or f"unchanged: {path}" in out, out


def test_another_chromium_id_comes_with_the_config_line_the_host_needs(home, fake_host):
    result = install(home, fake_host)
    assert f'"allowedExtensions": ["{CHROMIUM_ID}"]' in result.stdout
    assert str(home / ".config/webauthn-bridge/config.json") in result.stdout
    default = run_install_sh("--host-binary", str(fake_host), home=home)
    assert "allowedExtensions" not in default.stdout


def test_a_plain_install_builds_the_static_release_host_that_answers_as_chromium_starts_it(tmp_path):
    """What a user runs: install.sh builds the host itself (release, Swift runtime linked in), and the installed
    binary, started the way Chromium starts it, answers `info`. Takes the release build's time (~1 min)."""
    home, prefix, manifests = tmp_path / "home", tmp_path / "prefix", tmp_path / "manifests"
    home.mkdir()
    result = subprocess.run(
        ["bash", str(INSTALL_SH), "--prefix", str(prefix), "--manifest-dir", str(manifests), "--browser-kind", "chromium"],
        env={"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8"}, capture_output=True, text=True,
        timeout=1200)
    assert result.returncode == 0, result.stdout + result.stderr
    installed = prefix / "libexec/webauthn-bridge/webauthn-bridge"
    assert json.loads((manifests / "webauthn_bridge.json").read_text())["path"] == str(installed)
    linked = subprocess.run(["ldd", str(installed)], capture_output=True, text=True).stdout
    assert "libswift" not in linked and "libFoundation" not in linked, linked
    assert "libfido2" in linked
    # Only FoundationEssentials is linked: full Foundation ($s10Foundation…) would bring ICU's 34 MB of data and
    # several MB of resident memory per launch. The release link packs relative relocations (Package.swift).
    symbols = subprocess.run(["nm", "--defined-only", str(installed)], capture_output=True, text=True).stdout
    assert "$s10Foundation" not in symbols and not re.search(r"\bicudt\d+_dat\b", symbols)
    sections = subprocess.run(["readelf", "-SW", str(installed)], capture_output=True, text=True).stdout
    assert ".relr.dyn" in sections, sections
    request = json.dumps({"id": "i-1", "type": "info"}).encode()
    answered = subprocess.run([str(installed), f"chrome-extension://{CHROMIUM_ID_OF_REPO}/"],
                              input=struct.pack("=I", len(request)) + request, capture_output=True, timeout=30,
                              env={"PATH": "/usr/bin:/bin", "HOME": str(home)})
    length = struct.unpack("=I", answered.stdout[:4])[0]
    reply = json.loads(answered.stdout[4:4 + length])
    assert reply["type"] == "result" and reply["info"]["libfido2"].startswith("1."), reply


# --- paths a manifest must carry exactly, and files written without following what others planted ---------------

def manifest_paths(home: Path, *dirs: Path) -> dict:
    """Each manifest's `path`, read as the browsers read it (JSON)."""
    found = [home / ".mozilla/native-messaging-hosts/webauthn_bridge.json",
             home / ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts/webauthn_bridge.json",
             *(d / "webauthn_bridge.json" for d in dirs)]
    return {str(m): json.loads(m.read_text(encoding="utf-8"))["path"] for m in found}


def test_quotes_backslashes_and_non_ascii_in_the_prefix_are_written_as_json_the_browser_reads(home, fake_host, tmp_path):
    prefix = tmp_path / 'the "odd\\ one" & é' / "x\\"
    custom = tmp_path / "custom \"manifests\" | here"
    before = tree(home)
    install(home, fake_host, "--prefix", str(prefix), "--manifest-dir", str(custom), "--browser-kind", "firefox",
            "--browser", "firefox", "--browser", "brave")
    host = prefix / "libexec/webauthn-bridge/webauthn-bridge"
    assert host.is_file()
    assert set(manifest_paths(home, custom).values()) == {str(host)}
    run_install_sh("--uninstall", "--prefix", str(prefix), home=home)
    assert tree(home) == before and not host.exists()


@pytest.mark.parametrize("character", ["\t", "\n", "\x1b", "\x7f"], ids=["tab", "newline", "escape", "delete"])
@pytest.mark.parametrize("where", ["--prefix", "--manifest-dir"])
def test_a_control_character_in_a_path_is_refused_before_anything_is_written(home, fake_host, tmp_path, character, where):
    # A newline would also split the record's line: "dir …\nfile /home/user/.bashrc" would have --uninstall remove it.
    odd = tmp_path / f"a{character}file {home}/.profile"
    before, outside = tree(home), sorted(p.name for p in tmp_path.iterdir())
    extra = [where, str(odd)] + (["--browser-kind", "chromium"] if where == "--manifest-dir" else [])
    result = install_unchecked(home, fake_host, *extra)
    assert result.returncode != 0
    assert "must not contain control characters" in result.stderr, result.stderr
    assert tree(home) == before and sorted(p.name for p in tmp_path.iterdir()) == outside


def test_a_prefix_that_is_not_utf8_is_refused(home, fake_host, tmp_path):
    latin1 = os.fsdecode(bytes(tmp_path) + b"/caf\xe9")
    result = install_unchecked(home, fake_host, "--prefix", latin1)
    assert result.returncode != 0 and "not valid UTF-8" in result.stderr, result.stderr
    assert not os.path.exists(latin1)


def install_unchecked(home, fake_host, *extra) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    return subprocess.run(["bash", str(INSTALL_SH), "--host-binary", str(fake_host), "--chromium-id", CHROMIUM_ID,
                           *extra], env=env, capture_output=True, text=True, errors="surrogateescape", timeout=120)


def test_a_symlink_planted_at_every_predictable_temporary_name_is_not_followed(home, fake_host, tmp_path):
    """install.sh once wrote PATH.tmp.$$ with `>`: a symlink planted under that name made it write through to the
    symlink's target. Here install.sh runs under a PID known beforehand (exec keeps it), with a symlink at every
    name derived from it and from the final names; the targets must be untouched."""
    victim = tmp_path / "victim"
    victim.write_text("not yours\n")
    victim.chmod(0o600)
    custom = tmp_path / "manifests"
    custom.mkdir()
    install_dir = home / ".local/libexec/webauthn-bridge"
    install_dir.mkdir(parents=True)
    targets = [home / ".mozilla/native-messaging-hosts/webauthn_bridge.json",
               home / ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts/webauthn_bridge.json",
               custom / "webauthn_bridge.json", install_dir / "installed-files"]
    (home / ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts").mkdir()
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    # bash waits for a line on stdin, then execs install.sh in the same process: $$ is proc.pid.
    proc = subprocess.Popen(["bash", "-c", 'read -r _ && exec bash "$@"', "bash", str(INSTALL_SH), "--host-binary",
                             str(fake_host), "--chromium-id", CHROMIUM_ID, "--manifest-dir", str(custom),
                             "--browser-kind", "chromium", "--browser", "firefox", "--browser", "brave"],
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    planted = [Path(f"{t}.tmp.{proc.pid}") for t in targets] + [install_dir / "webauthn-bridge"]
    for name in planted:
        name.symlink_to(victim)
    out, err = proc.communicate("go\n", timeout=120)
    assert proc.returncode == 0, out + err
    assert victim.read_text() == "not yours\n" and victim.stat().st_mode & 0o777 == 0o600
    for manifest in targets[:3]:
        assert not manifest.is_symlink() and json.loads(manifest.read_text())["path"] == str(install_dir / "webauthn-bridge")
    assert not (install_dir / "webauthn-bridge").is_symlink()
    assert "file " + str(targets[2]) in (install_dir / "installed-files").read_text()
    # Nothing is left behind under a temporary name.
    leftovers = [p for d in {t.parent for t in targets} for p in d.iterdir() if ".webauthn_bridge.json." in p.name
                 or ".installed-files." in p.name]
    assert leftovers == []
