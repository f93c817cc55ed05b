"""Fault matrix, the host's surroundings (issue 14, docs/robustness.md): a log directory it cannot write, a full
disk under the log, a malformed config.json, and no public suffix list. A log failure never fails a ceremony; a
broken configuration stops the host with a line in the log saying why; without a public suffix list no rp.id
can be checked, so every ceremony fails closed before any key is asked."""

import re
import subprocess
from pathlib import Path

import pytest

from bridge import Host, host_binary
from faults import assert_logged, assert_page_error, assert_survived, create, snapshot


def stderr_of(host) -> list[str]:
    host.close()
    return host.proc.stderr.read().decode().splitlines()


def log_warnings_of_a_ceremony(launch, token, log_file: str) -> list[str]:
    """Runs a ceremony and its follow-up on a host logging to `log_file`; returns the stderr lines about the log."""
    host = launch(token, env={"WEBAUTHN_BRIDGE_LOG_FILE": log_file})
    before = snapshot(token)
    reply, _, _ = create(host, "c-1")
    assert_survived(host, reply, name=None, log=[], token=token, before=before)
    return [line for line in stderr_of(host) if "cannot write log" in line]


def test_a_log_directory_it_cannot_write_never_fails_a_ceremony(launch, token):
    # Not even root may create a directory under /proc: the log cannot be opened at all.
    warnings = log_warnings_of_a_ceremony(launch, token, "/proc/webauthn-bridge-no/host.log")
    assert len(warnings) == 1 and warnings[0].startswith("webauthn-bridge: cannot write log /proc/webauthn-bridge-no/host.log: ")
    assert warnings[0].endswith("; continuing without a log file"), warnings


def test_a_full_disk_under_the_log_never_fails_a_ceremony(launch, token):
    # /dev/full takes the log file open and refuses every line with ENOSPC, as a full disk does.
    warnings = log_warnings_of_a_ceremony(launch, token, "/dev/full")
    assert warnings == ["webauthn-bridge: cannot write log /dev/full: No space left on device; carrying on, lines are "
                        "lost until it takes them again"], warnings


WRAPPER = """#!/bin/sh
# The host on a tmpfs of its own for the log (a private mount namespace), so the test can fill that disk.
exec unshare --mount --propagation private sh -c 'mount -t tmpfs -o size=64k tmpfs "$FAULT_LOG_DIR" && exec "$FAULT_REAL_HOST" "$@"' sh "$@"
"""


def can_mount_a_tmpfs() -> bool:
    probe = subprocess.run(["unshare", "--mount", "sh", "-c", "mount -t tmpfs -o size=4k tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not can_mount_a_tmpfs(), reason="needs mount rights (root, or a user namespace) for a small tmpfs")
def test_a_log_disk_that_fills_up_and_frees_again_says_how_many_lines_were_lost(tmp_path, token, monkeypatch):
    log_dir = tmp_path / "logdisk"
    log_dir.mkdir()
    wrapper = tmp_path / "host-on-a-small-disk"
    wrapper.write_text(WRAPPER)
    wrapper.chmod(0o755)
    real = host_binary()
    monkeypatch.setenv("WEBAUTHN_BRIDGE_HOST", str(wrapper))
    host = Host(tmp_path, token, env={"WEBAUTHN_BRIDGE_LOG_FILE": str(log_dir / "host.log"),
                                      "FAULT_LOG_DIR": str(log_dir), "FAULT_REAL_HOST": real})
    monkeypatch.setenv("WEBAUTHN_BRIDGE_HOST", real)  # the token commands run as usual
    try:
        info, _ = host.request({"id": "i-1", "type": "info"})  # the host runs, its disk mounted
        # The host's view of its disk, reached through its own root: filled to the last block.
        disk = Path(f"/proc/{host.proc.pid}/root") / str(log_dir).lstrip("/")
        with open(disk / "filler", "wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError:
                pass
        before = snapshot(token)
        # A full disk still takes lines into the log file's last, partly used block: enough ceremonies overrun it.
        for n in range(6):
            reply, _, _ = create(host, f"c-{n}")
            assert reply["type"] == "result", reply
        (disk / "filler").unlink()  # space again
        follow, _, _ = create(host, "next")
        assert follow["type"] == "result", follow
        host.log_path = disk / "host.log"
        assert_logged(host, "next", [r"create ok "])
        log = host.log()
        assert re.search(r" WARN \d+ log line\(s\) could not be written before this one\n", log), log[-2000:]
        assert snapshot(token)["credentials"].keys() >= before["credentials"].keys()
    finally:
        stderr = stderr_of(host)
    assert [line for line in stderr if "No space left on device" in line], stderr


@pytest.mark.parametrize("contents,why", [
    ('{"logLevel": "loud"', r"config\.json is not a JSON object"),
    ('{"logLevel": "loud"}', r'config\.json: unknown logLevel "loud"'),
    ('{"pinentry": 42}', r'config\.json: unknown or mistyped setting "pinentry"'),
])
def test_a_malformed_config_stops_the_host_with_the_reason_in_the_log(launch, tmp_path, token, contents, why):
    config = tmp_path / "config" / "webauthn-bridge" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(contents)
    host = launch(token)
    assert host.close() == 2, "the host serves nothing with a configuration it cannot read"
    lines = host.log().splitlines()
    assert [l for l in lines if " ERROR configuration error: " in l and l.endswith("the host serves nothing until it is fixed")], lines
    assert any(re.search(why, l) for l in lines), lines
    assert any("configuration error" in l for l in host.proc.stderr.read().decode().splitlines())
    # The extension falls back to the browser's own WebAuthn for a host that never answered (router.test.mjs);
    # once the file is fixed, the next launch serves.
    config.unlink()
    again = launch(token)
    reply, _, _ = create(again, "c-1")
    assert reply["type"] == "result", reply


NO_PSL = r"""
#include <stddef.h>
/* libpsl with no list at all: neither the distribution's file nor a built-in copy. */
void *psl_latest(const char *fname) { return NULL; }
const void *psl_builtin(void) { return NULL; }
void *psl_load_file(const char *fname) { return NULL; }
"""


def test_no_public_suffix_list_fails_closed_before_any_key(launch, tmp_path, token):
    source, library = tmp_path / "no_psl.c", tmp_path / "no_psl.so"
    source.write_text(NO_PSL)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    host = launch(token, env={"LD_PRELOAD": str(library)})
    before = snapshot(token)
    reply, statuses, _ = create(host, "c-1")
    assert statuses == [], "no key was asked"
    assert reply["detail"].startswith("No public suffix list is available"), reply
    # Fails closed: every ceremony, not just the first; the host itself still answers.
    again, _, _ = create(host, "c-2")
    assert_page_error(again, "SecurityError")
    assert_survived(host, reply, name="SecurityError", token=token, before=before, follow_up="info",
                    log=[r"create failed .* SecurityError: No public suffix list is available, so no relying party ID can be checked"])
    assert snapshot(token) == before, "nothing reached the key"
