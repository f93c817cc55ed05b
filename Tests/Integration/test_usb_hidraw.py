"""The USB path, with a key present: a SoftToken plugged in as a YubiKey 5 behind /dev/hidraw0 of a umockdev testbed
(usb_keys.py), no SoftToken variable set. The host finds it through libudev and libfido2's hidraw code and makes
and uses a credential on it; `devices` and `doctor` show it; and two programs written apart from this project,
libfido2's fido2-token and python-fido2's Linux HID backend, agree that it is that FIDO key."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from bridge import Host, create_token, host_binary
from rp import ORIGIN, creation_options, request_options, verify_authentication, verify_registration
from usb_keys import USBKeys

YUBIKEY5 = {"vendorId": 0x1050, "productId": 0x0407, "manufacturer": "Yubico", "product": "YubiKey OTP+FIDO+CCID"}
YUBIKEY5_AAGUID = "a25342c03cdc44148e46f4807fca511c"


@pytest.fixture
def usb(tmp_path):
    keys = USBKeys(tmp_path)
    yield keys
    keys.close()


@pytest.fixture
def yubikey(tmp_path, usb):
    """A YubiKey 5 (SoftToken profile) in the port; returns its state file."""
    token = create_token(tmp_path / "yubikey.state", "--profile", "yubikey5")
    assert usb.plug(token) == "/dev/hidraw0"
    return token


def run(usb, *argv, **kwargs) -> subprocess.CompletedProcess:
    """A program started with the testbed in its environment, as a browser's host would be on a real machine."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")}
    environment.update(usb.env)
    environment.update(kwargs.pop("env", {}))
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=environment, **kwargs)


def test_fido2_token_lists_the_key_with_its_usb_identity(usb, yubikey):
    listed = run(usb, "fido2-token", "-L")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == "/dev/hidraw0: vendor=0x1050, product=0x0407 (Yubico YubiKey OTP+FIDO+CCID)"


def test_fido2_token_reads_the_keys_get_info_over_hidraw(usb, yubikey):
    info = run(usb, "fido2-token", "-I", "/dev/hidraw0")
    assert info.returncode == 0, info.stderr
    assert f"aaguid: {YUBIKEY5_AAGUID}" in info.stdout
    assert "FIDO_2_1" in info.stdout and "U2F_V2" in info.stdout


PYTHON_FIDO2_PROBE = textwrap.dedent("""
    import json
    from fido2.ctap2 import Ctap2
    from fido2.hid import CtapHidDevice
    from fido2.hid.linux import list_descriptors, open_connection
    found = []
    for descriptor in list_descriptors():
        device = CtapHidDevice(descriptor, open_connection(descriptor))
        info = Ctap2(device).get_info()
        found.append({"path": descriptor.path, "vendorId": descriptor.vid, "productId": descriptor.pid,
                      "product": descriptor.product_name, "aaguid": bytes(info.aaguid).hex()})
        device.close()
    print(json.dumps(found))
""")


def test_python_fido2s_linux_backend_sees_the_same_key(usb, yubikey):
    probe = run(usb, sys.executable, "-c", PYTHON_FIDO2_PROBE)
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout) == [{
        "path": "/dev/hidraw0", "vendorId": 0x1050, "productId": 0x0407,
        "product": "Yubico YubiKey OTP+FIDO+CCID", "aaguid": YUBIKEY5_AAGUID}]


def test_the_host_registers_and_signs_in_with_the_usb_key(tmp_path, usb, yubikey, launch):
    host = launch(None, env=usb.env)
    options, challenge = creation_options()
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    assert "insert-key" not in [s["status"] for s in statuses]
    registration = verify_registration(reply["credential"], challenge)
    assert registration.aaguid.replace("-", "") == YUBIKEY5_AAGUID

    options, challenge = request_options(allow=[registration.credential_id])
    reply, _ = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    verify_authentication(reply["credential"], challenge, registration.credential_public_key, registration.sign_count)
    log = host.log()
    assert "phase key-ready: /dev/hidraw0" in log
    assert "SoftToken" not in log


def test_devices_shows_the_usb_key_and_its_get_info(usb, yubikey):
    shown = run(usb, host_binary(), "devices", "--json")
    assert shown.returncode == 0, shown.stderr
    (key,) = json.loads(shown.stdout)
    assert {k: key[k] for k in ("path", "kind", *YUBIKEY5)} == {
        "path": "/dev/hidraw0", "kind": "security key", **YUBIKEY5}
    assert key["aaguid"].replace("-", "") == YUBIKEY5_AAGUID
    assert "FIDO_2_1" in key["versions"]


def test_doctor_finds_the_usb_key(usb, yubikey):
    doctor = run(usb, host_binary(), "doctor")
    line = next(line for line in doctor.stdout.splitlines() if "security keys" in line)
    assert "/dev/hidraw0 Yubico YubiKey OTP+FIDO+CCID" in line, doctor.stdout
