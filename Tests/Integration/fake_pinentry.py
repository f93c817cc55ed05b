#!/usr/bin/env python3
"""A scripted pinentry: speaks the Assuan protocol as pinentry programs do, for the branches of the PIN flow a
real terminal can't reach in a test. Every command it receives is appended to $FAKE_PINENTRY_LOG; each GETPIN
takes the next answer from $FAKE_PINENTRY_SCRIPT ("pin VALUE" or "cancel"), across processes. With
$FAKE_PINENTRY_HOLD set, a GETPIN with no answer written yet waits for one (the dialog stays open until the test
answers, 120 s at most) instead of cancelling."""

import os
import sys
import time
from pathlib import Path

script = Path(os.environ["FAKE_PINENTRY_SCRIPT"])
log = Path(os.environ["FAKE_PINENTRY_LOG"])
position = script.with_suffix(".pos")


def next_answer() -> str:
    index = int(position.read_text()) if position.exists() else 0
    answers = held_answers(index) if os.environ.get("FAKE_PINENTRY_HOLD") else script.read_text().splitlines()
    position.write_text(str(index + 1))
    return answers[index] if index < len(answers) else "cancel"


def held_answers(index: int) -> list[str]:
    deadline = time.monotonic() + 120
    while True:
        answers = script.read_text().splitlines() if script.exists() else []
        if index < len(answers) or time.monotonic() > deadline:
            return answers
        time.sleep(0.02)


def escape(data: str) -> str:
    return data.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def reply(line: str):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


reply("OK Pleased to meet you")
for raw in sys.stdin:
    line = raw.rstrip("\n")
    with log.open("a") as f:
        f.write(line + "\n")
    command = line.split(" ", 1)[0].upper()
    if command == "GETPIN":
        answer = next_answer()
        if answer.startswith("pin "):
            reply("D " + escape(answer[4:]))
            reply("OK")
        else:
            reply("ERR 83886179 Operation cancelled <Pinentry>")
    elif command == "BYE":
        reply("OK closing connection")
        break
    else:
        reply("OK")
