#!/usr/bin/env python3
"""A pinentry that holds its dialog open until the test releases it: speaks Assuan as pinentry programs do, and
answers GETPIN only once $HELD_PINENTRY_RELEASE exists, with the PIN written in that file (empty file: cancel).
So a test sees the ceremony while the PIN is being asked, for as long as it needs, with no timing in it.
Gives up (cancel) after 120 s, so a failed test leaves no pinentry behind."""
import os
import sys
import time
from pathlib import Path

release = Path(os.environ["HELD_PINENTRY_RELEASE"])
asked = release.with_suffix(".asked")


def reply(line: str):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def held_answer() -> str:
    asked.write_text("GETPIN\n")
    deadline = time.monotonic() + 120
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    answer = release.read_text().strip() if release.exists() else ""
    release.unlink(missing_ok=True)
    return answer


reply("OK Pleased to meet you")
for raw in sys.stdin:
    command = raw.strip().split(" ", 1)[0].upper()
    if command == "GETPIN":
        pin = held_answer()
        if pin:
            reply("D " + pin.replace("%", "%25"))
            reply("OK")
        else:
            reply("ERR 83886179 Operation cancelled <Pinentry>")
    elif command == "BYE":
        reply("OK closing connection")
        break
    else:
        reply("OK")
