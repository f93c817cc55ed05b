"""Secrets at rest after a crash (issue 12, item 9): the running host can write no core file, so a crash
during PIN entry cannot put the PIN on disk, and it is not dumpable (the kernel then also keeps other
processes of its user out of its memory)."""

import os
import resource
import subprocess

from bridge import CHROMIUM_ID, Host, host_binary

NOBODY = 65534


def start_host(tmp_path, as_nobody=False) -> Host:
    """A host started with core files allowed (and optionally as an unprivileged user), once it serves."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")}
    environment.update({"WEBAUTHN_BRIDGE_LOG_FILE": str(tmp_path / "host.log"), "HOME": str(tmp_path)})
    argv = [host_binary(), f"chrome-extension://{CHROMIUM_ID}/"]
    if as_nobody:
        tmp_path.chmod(0o777)
        argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]

    def allow_core_files():
        resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    host = Host.__new__(Host)
    host.log_path, host._buffer = tmp_path / "host.log", b""
    host.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 env=environment, cwd=tmp_path, preexec_fn=allow_core_files)
    # Answered: start-up, which hardens the process first thing, is over.
    assert host.request({"id": "i-1", "type": "info"})[0]["type"] == "result"
    return host


def status_field(pid: int, name: str) -> list[str]:
    return next(line.split()[1:] for line in open(f"/proc/{pid}/status") if line.startswith(name + ":"))


def test_the_host_sets_its_core_file_limit_to_zero(tmp_path):
    host = start_host(tmp_path)
    try:
        limit = next(l for l in open(f"/proc/{host.proc.pid}/limits") if l.startswith("Max core file size"))
        assert limit.split()[4:6] == ["0", "0"], limit
    finally:
        assert host.close() == 0


def test_the_host_is_not_dumpable(tmp_path):
    host = start_host(tmp_path, as_nobody=True)
    try:
        pid = host.proc.pid
        assert status_field(pid, "Uid")[0] == str(NOBODY)
        # The kernel hands the /proc files of a process that is not dumpable to root.
        assert os.stat(f"/proc/{pid}/status").st_uid == 0
    finally:
        assert host.close() == 0
