"""python-fido2 on a SoftToken: `webauthn-bridge token ctaphid FILE` serves the token's CTAPHID reports on a pipe,
and this module hands that pipe to python-fido2's CtapHidDevice as its connection. python-fido2 then speaks CTAP
to the same token file the bridge's commands use, as an independent client (no libfido2 on this side)."""

import subprocess
from pathlib import Path

from fido2.ctap2 import Ctap2
from fido2.hid import CtapHidDevice
from fido2.hid.base import CtapHidConnection, HidDescriptor

from bridge import host_binary

REPORT = 64


class PipeConnection(CtapHidConnection):
    def __init__(self, token: Path):
        self.process = subprocess.Popen([host_binary(), "token", "ctaphid", str(token)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def write_packet(self, data: bytes) -> None:
        self.process.stdin.write(data.ljust(REPORT, b"\0"))
        self.process.stdin.flush()

    def read_packet(self) -> bytes:
        packet = self.process.stdout.read(REPORT)
        if len(packet) != REPORT:
            raise OSError("the SoftToken's CTAPHID pipe closed")
        return packet

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=10)


def open_ctap2(token: Path) -> tuple[Ctap2, PipeConnection]:
    """python-fido2's Ctap2 on the token; close the connection when done."""
    connection = PipeConnection(token)
    descriptor = HidDescriptor(str(token), 0, 0, REPORT, REPORT, "SoftToken", None)
    return Ctap2(CtapHidDevice(descriptor, connection)), connection
