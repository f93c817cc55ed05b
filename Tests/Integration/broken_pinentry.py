#!/usr/bin/env python3
"""A pinentry that fails the way broken ones do, for the fault matrix (test_faults_prompts.py). $BROKEN_PINENTRY
says how: "crash" dies of SIGSEGV when asked for the PIN; "garbage" answers the PIN request with bytes that are
not Assuan; "silent-exit" greets, then exits without a word when asked; "no-greeting" exits at once."""

import os
import signal
import sys

mode = os.environ["BROKEN_PINENTRY"]
out = sys.stdout.buffer


def reply(line: bytes):
    out.write(line + b"\n")
    out.flush()


if mode == "no-greeting":
    sys.exit(1)
reply(b"OK Pleased to meet you")
for raw in sys.stdin.buffer:
    command = raw.split(b" ", 1)[0].strip().upper()
    if command != b"GETPIN":
        reply(b"OK")
        continue
    if mode == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode == "garbage":
        reply(b"\x00\xff\x1b[2J D 123456 \xc3\x28")
        reply(b"D" + b"9" * 5000)
        reply(b"INQUIRE")
        reply(b"OKAY")
    sys.exit(0)
