"""The PIN at rest in the host's memory (issue 12, item 9): on every path of a ceremony that used the PIN, no
copy of it goes back to the allocator unzeroed (an LD_PRELOAD probe checks every free), and none is left in
the host's writable memory afterwards (read through /proc/PID/mem, as the host's user with CAP_SYS_PTRACE)."""

import re
import subprocess
from pathlib import Path

import pytest

from bridge import create_token
from rp import ORIGIN, creation_options

# 63 bytes (CTAP's longest PIN), unlike anything else in the process.
PIN = "Zq8-pin-at-rest-" + "".join(chr(0x61 + (i * 7) % 26) for i in range(47))
UV_REQUIRED = {"authenticatorSelection": {"userVerification": "required", "residentKey": "discouraged"}}


def writable_memory(pid: int):
    """(start, bytes) of every readable, writable mapping: heap, anonymous, stacks, data."""
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            fields = line.split()
            start, end = (int(x, 16) for x in fields[0].split("-"))
            if not fields[1].startswith("rw") or (len(fields) > 5 and fields[5] in ("[vvar]", "[vsyscall]")):
                continue
            try:
                mem.seek(start)
                yield start, mem.read(end - start)
            except (OSError, ValueError):
                continue


def copies_of_the_pin(pid: int) -> list[str]:
    needle = PIN.encode()
    return [f"{start + m.start():#x}" for start, data in writable_memory(pid) for m in re.finditer(re.escape(needle), data)]


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> Path:
    library = tmp_path_factory.mktemp("probe") / "freed_secret_probe.so"
    source = Path(__file__).with_name("support") / "freed_secret_probe.c"
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(library), str(source)], check=True)
    return library


@pytest.mark.parametrize("answers,outcome", [
    (["pin " + PIN], "result"),
    (["pin " + PIN[:-1] + "x", "pin " + PIN], "result"),
    (["pin " + PIN[:-1] + "x", "cancel"], "error"),
])
def test_no_copy_of_the_pin_is_freed_unzeroed_or_left_in_the_host(launch, tmp_path, pinentry, probe, answers, outcome):
    env, script, _ = pinentry
    script(*answers)
    report = tmp_path / "probe.txt"
    env = env | {"LD_PRELOAD": str(probe), "PROBE_NEEDLE_HEX": PIN.encode().hex(), "PROBE_REPORT": str(report)}
    host = launch(create_token(tmp_path / "t.state", "--pin", PIN), env=env, log_level="info")
    options, _ = creation_options(**UV_REQUIRED)
    reply, _ = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options}, timeout=30)
    assert reply["type"] == outcome, reply
    # The ceremony's last line is written after its answer: once it is there, the libfido2 thread is done.
    host.request({"id": "i-1", "type": "info"})
    assert copies_of_the_pin(host.proc.pid) == []
    assert host.close() == 0
    assert report.read_text() == "probe active\n"
