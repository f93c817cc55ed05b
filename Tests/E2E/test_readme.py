"""README.md's first steps, run as written from the clone in a scratch HOME: the lines of the block under its
"first steps" marker, in order, then "Trouble? Run webauthn-bridge doctor". The lines come from README.md itself, so
the test fails when the README drifts from what works.

The install line runs as the README's reader runs it (a shell with the Swift toolchain on PATH); the lines after it
run in a new login shell, with Debian's ~/.profile (from /etc/skel, as adduser copies it), which puts ~/.local/bin
on PATH once install.sh made it. The demo line gets --headless (CI has no display) and the harness clicks through
the page the demo opened. install.sh builds the release host (incremental when .build/release is there).
"""
import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from harness.paths import OVERRIDE_ACTIVE_JS, REPO
from test_demo import Page

MARKER = "<!-- first steps:"


def first_steps() -> list[str]:
    """The commands of the README's first-steps block, comments removed."""
    text = (REPO / "README.md").read_text()
    assert MARKER in text, "README.md lost its first-steps marker"
    block = re.search(r"```sh\n(.*?)```", text[text.index(MARKER):], re.S).group(1)
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    return [c for c in commands if c]


def test_the_first_steps_are_install_then_demo():
    commands = first_steps()
    assert commands[0] == "./install.sh" and commands[1].startswith("webauthn-bridge demo"), commands


@pytest.fixture
def home():
    with tempfile.TemporaryDirectory(prefix="wbr-") as d:   # short: Chromium's socket path in TMPDIR is limited
        home = Path(d) / "home"
        home.mkdir()
        shutil.copy("/etc/skel/.profile", home / ".profile")
        (home / ".mozilla").mkdir()                      # browsers used before: install.sh registers with them
        (home / ".config/chromium").mkdir(parents=True)
        (Path(d) / "tmp").mkdir()
        yield home


def environment(home: Path) -> dict:
    return {"HOME": str(home), "PATH": os.environ["PATH"], "LANG": "C.UTF-8", "TMPDIR": str(home.parent / "tmp"),
            "USER": os.environ.get("USER", "root")}


def login_shell(command: str, home: Path, **kwargs) -> subprocess.Popen:
    """`command` in a new login shell of the scratch user (PATH as /etc/profile and ~/.profile make it)."""
    env = {k: v for k, v in environment(home).items() if k != "PATH"}
    return subprocess.Popen(["bash", "-lc", command], cwd=REPO, env=env, text=True, **kwargs)


def test_readme_first_steps_from_a_clone_then_doctor(home):
    install, demo_line, *rest = first_steps()
    assert rest == [], f"first steps the test does not know how to run: {rest}"

    installed = subprocess.run(shlex.split(install), cwd=REPO, env=environment(home), capture_output=True, text=True,
                               timeout=1500)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (home / ".local/bin/webauthn-bridge").resolve() == home / ".local/libexec/webauthn-bridge/webauthn-bridge"
    assert (home / ".local/share/webauthn-bridge/extension/manifest.json").is_file()
    assert "webauthn-bridge demo" in installed.stdout and "doctor" in installed.stdout

    found = login_shell("command -v webauthn-bridge", home, stdout=subprocess.PIPE)
    assert found.communicate(timeout=60)[0].strip() == str(home / ".local/bin/webauthn-bridge")

    demo = login_shell(f"{demo_line} --headless", home, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, start_new_session=True)
    lines: queue.Queue[str | None] = queue.Queue()
    output: list[str] = []
    threading.Thread(target=lambda: ([lines.put(l) for l in demo.stdout], lines.put(None)), daemon=True).start()

    def expect(pattern: str, timeout: float = 120) -> re.Match:
        deadline = time.monotonic() + timeout
        while (line := lines.get(timeout=max(0.1, deadline - time.monotonic()))) is not None:
            output.append(line)
            if match := re.search(pattern, line):
                return match
        raise AssertionError(f"the demo printed no line matching {pattern!r}:\n{''.join(output)}")

    page = None
    try:
        url = expect(r"demo page:\s+(http://localhost:\d+/)").group(1)
        page = Page("chromium", expect(r"Remote control: (ws://\S+)").group(1))
        assert page.wait_for(f"location.href === {url!r} && document.readyState === 'complete' && "
                             f"{OVERRIDE_ACTIVE_JS} && window.demo.bridgeActive()", timeout=60), "".join(output)
        registered = page.evaluate("demo.register('readme')")
        assert registered["verified"] is True, registered
    finally:
        if page:
            page.close()
        os.killpg(demo.pid, signal.SIGTERM)
        demo.wait(timeout=60)
    # The extension the demo loaded is the installed copy, not the clone's.
    assert str(home / ".local/share/webauthn-bridge/extension") in "".join(output), "".join(output)

    doctor = login_shell("webauthn-bridge doctor", home, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    said = doctor.communicate(timeout=120)[0]
    assert doctor.returncode == 0, said
    assert re.search(r"OK\s+host manifest for Chromium", said) and re.search(r"OK\s+host manifest for Firefox", said), said
