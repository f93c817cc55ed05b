"""The integration suite's scripted pinentry (Tests/Integration/fake_pinentry.py) as the host's PIN dialog: a real
program speaking pinentry's Assuan protocol to the host, holding each dialog open (FAKE_PINENTRY_HOLD) until the test
answers it, so a PIN is given only when the host asks for one and the test waits on that question, not on time."""
import os
import time
from pathlib import Path

FAKE_PINENTRY = Path(__file__).resolve().parents[2] / "Integration" / "fake_pinentry.py"


class Pinentry:
    """The scripted pinentry: a PIN is given only when its dialog asks (FAKE_PINENTRY_HOLD)."""

    def __init__(self, scratch: Path, pin: str):
        self.script, self.log = scratch / "answers", scratch / "commands"
        self.pin = pin
        self.answers = []
        self.next = []   # the answers the next dialogs get, in order; then the key's PIN

    def env(self) -> dict:
        return {"WEBAUTHN_BRIDGE_PINENTRY": str(FAKE_PINENTRY), "FAKE_PINENTRY_HOLD": "1",
                "FAKE_PINENTRY_SCRIPT": str(self.script), "FAKE_PINENTRY_LOG": str(self.log)}

    def asked(self) -> int:
        return (self.log.read_text() if self.log.exists() else "").count("GETPIN")

    def answer_while(self, pending, timeout: float = 30) -> None:
        """Until pending() is false: each dialog that opens gets the PIN (the file replaced whole, never half-read)."""
        deadline = time.monotonic() + timeout
        while pending():
            assert time.monotonic() < deadline, "the operation did not end"
            if self.asked() > len(self.answers):
                self.answers.append(f"pin {self.next.pop(0) if self.next else self.pin}")
                partial = self.script.with_suffix(".partial")
                partial.write_text("".join(f"{answer}\n" for answer in self.answers))
                os.replace(partial, self.script)
            time.sleep(0.05)
