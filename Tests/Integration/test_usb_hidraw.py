"""The USB path, with a key present: a SoftToken plugged in as a YubiKey 5 behind /dev/hidraw0 of a umockdev testbed
(usb_keys.py), no SoftToken variable set. The host finds it through libudev and libfido2's hidraw code and makes
and uses a credential on it; `devices` and `doctor` show it; and two programs written apart from this project,
libfido2's fido2-token and python-fido2's Linux HID backend, agree that it is that FIDO key."""

import json
import sys
import textwrap

from bridge import create_token, host_binary
from rp import ORIGIN, creation_options, request_options, verify_authentication, verify_registration
from usb_keys import YUBIKEY5, YUBIKEY5_AAGUID


def test_fido2_token_lists_the_key_with_its_usb_identity(usb, yubikey):
    listed = usb.run("fido2-token", "-L")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == "/dev/hidraw0: vendor=0x1050, product=0x0407 (Yubico YubiKey OTP+FIDO+CCID)"


def test_fido2_token_lists_two_keys_each_with_its_profiles_identity(tmp_path, usb, yubikey):
    usb.plug(create_token(tmp_path / "bio.state", "--profile", "bio"))
    listed = usb.run("fido2-token", "-L")
    assert listed.returncode == 0, listed.stderr
    assert sorted(listed.stdout.splitlines()) == [
        "/dev/hidraw0: vendor=0x1050, product=0x0407 (Yubico YubiKey OTP+FIDO+CCID)",
        "/dev/hidraw1: vendor=0x1050, product=0x0402 (Yubico YubiKey FIDO)"]


def test_fido2_token_reads_the_keys_get_info_over_hidraw(usb, yubikey):
    info = usb.run("fido2-token", "-I", "/dev/hidraw0")
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
    probe = usb.run(sys.executable, "-c", PYTHON_FIDO2_PROBE)
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout) == [{
        "path": "/dev/hidraw0", "vendorId": 0x1050, "productId": 0x0407,
        "product": "Yubico YubiKey OTP+FIDO+CCID", "aaguid": YUBIKEY5_AAGUID}]


def test_the_host_registers_and_signs_in_with_the_usb_key(usb, yubikey, launch):
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
    shown = usb.run(host_binary(), "devices", "--json")
    assert shown.returncode == 0, shown.stderr
    (key,) = json.loads(shown.stdout)
    assert {k: key[k] for k in ("path", "kind", *YUBIKEY5)} == {
        "path": "/dev/hidraw0", "kind": "security key", **YUBIKEY5}
    assert key["aaguid"].replace("-", "") == YUBIKEY5_AAGUID
    assert "FIDO_2_1" in key["versions"]


def test_doctor_finds_the_usb_key(usb, yubikey):
    doctor = usb.run(host_binary(), "doctor")
    line = next(line for line in doctor.stdout.splitlines() if "security keys" in line)
    assert "/dev/hidraw0 Yubico YubiKey OTP+FIDO+CCID" in line, doctor.stdout


def test_a_pin_protected_key_is_verified_with_its_pin_over_hidraw(tmp_path, usb, launch, pinentry):
    env, answers, _ = pinentry
    answers("pin 123456")
    usb.plug(create_token(tmp_path / "pin.state", "--profile", "yubikey5", "--pin", "123456"))
    host = launch(None, env={**usb.env, **env})
    options, challenge = creation_options(authenticatorSelection={"userVerification": "required"})
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    assert [s["status"] for s in statuses][:2] == ["pin", "touch"]
    assert verify_registration(reply["credential"], challenge, require_uv=True).user_verified


def test_a_u2f_only_key_registers_over_hidraw_and_an_abort_interrupts_its_wait(tmp_path, usb, launch):
    """libfido2 speaks U2F (CTAPHID_MSG) to a key without CTAP2; it cannot cancel a U2F request, so the host
    interrupts the blocked read with a signal (U2FInterruption): here a real ppoll on a node, not an I/O hook."""
    usb.plug(create_token(tmp_path / "u2f.state", "--profile", "u2f-only"), "quick")
    host = launch(None, env=usb.env)
    options, challenge = creation_options()
    reply, _ = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)

    usb.unplug("quick")
    usb.plug(create_token(tmp_path / "slow.state", "--profile", "u2f-only", "--presence", "delay:60000"), "slow")
    host.send({"id": "c-2", "type": "create", "origin": ORIGIN, "options": creation_options()[0]})
    frame = host.recv()
    assert frame["type"] == "status" and frame["status"] == "touch", frame
    host.send({"id": "c-2", "type": "cancel"})
    reply, _ = host.final("c-2", timeout=15)
    assert reply["type"] == "error" and reply["error"]["name"] == "AbortError", reply
    reply, _ = host.request({"id": "i-1", "type": "info"}, timeout=15)
    assert reply["type"] == "result", reply
