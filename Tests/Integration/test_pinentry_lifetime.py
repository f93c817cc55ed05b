"""A pinentry the host started never outlives it (issue 12, item 6): the real Debian pinentry-tty asks on a
pseudo-terminal, and the host is ended while it waits for the PIN: by the browser closing its stdin, by
SIGTERM, SIGINT or SIGHUP (the host stops it), or by SIGKILL (the kernel's parent-death signal, set through
setpriv, does). Afterwards the pinentry is gone and the terminal echoes again."""

import os
import pty
import select
import signal
import termios
import time
from pathlib import Path

import pytest

from bridge import create_token
from faults import is_gone, wait_until_gone
from rp import ORIGIN, creation_options

PINENTRY_TTY = "/usr/bin/pinentry-tty"
pytestmark = pytest.mark.skipif(not os.access(PINENTRY_TTY, os.X_OK), reason="needs Debian's pinentry-tty")


class Terminal:
    """A pseudo-terminal whose screen the test reads."""

    def __init__(self):
        self.master, self.slave = pty.openpty()
        self.path = os.ttyname(self.slave)
        self.screen = b""

    def wait_for(self, text: bytes, timeout: float = 30):
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            ready, _, _ = select.select([self.master], [], [], max(0, deadline - time.monotonic()))
            assert ready, f"{text!r} never appeared; screen: {self.screen!r}"
            self.screen += os.read(self.master, 4096)

    @property
    def echoes(self) -> bool:
        return bool(termios.tcgetattr(self.slave)[3] & termios.ECHO)

    def close(self):
        os.close(self.master)
        os.close(self.slave)


def children_of(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


@pytest.mark.parametrize("end", ["stdin closed", signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL],
                         ids=lambda end: getattr(end, "name", end))
def test_a_host_ended_while_pinentry_asks_takes_the_pinentry_with_it(launch, tmp_path, end):
    terminal = Terminal()
    pinentries = []
    try:
        env = {"WEBAUTHN_BRIDGE_PINENTRY": PINENTRY_TTY, "GPG_TTY": terminal.path, "TERM": "xterm"}
        host = launch(create_token(tmp_path / "t.state", "--pin", "123456"), env=env)
        options, _ = creation_options(authenticatorSelection={"userVerification": "required"})
        host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
        terminal.wait_for(b"PIN:")
        assert not terminal.echoes
        pinentries = children_of(host.proc.pid)
        assert len(pinentries) == 1, pinentries

        if end == "stdin closed":
            host.proc.stdin.close()
        else:
            host.proc.send_signal(end)
        status = host.proc.wait(30)
        assert wait_until_gone(pinentries[0]), "the pinentry outlived the host"
        assert terminal.echoes, "the terminal was left without echo"
        if end == signal.SIGKILL:
            assert status == -signal.SIGKILL
            return
        assert status == (0 if end == "stdin closed" else 128 + end), status
        assert ("stopping on " + end.name if end != "stdin closed" else "browser closed the connection") in host.log()
    finally:
        for pid in pinentries:  # only if the host failed to: the pinentry this test made it start
            if not is_gone(pid):
                os.kill(pid, signal.SIGKILL)
        terminal.close()
