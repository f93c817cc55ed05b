"""Keys on the USB path (usb_keys.py: hidraw nodes of a umockdev testbed) plugged, pulled and refused while the host
works, with no SoftToken variable set: what test_keys_plugging.py checks through the I/O hooks, here through udev,
libfido2's hidraw code and the host's presence check of a /dev node. Every wait is on a status frame or a log line."""

import json
import os
import select
import subprocess

from bridge import create_token, host_binary
from rp import ORIGIN, creation_options, verify_registration
from test_keys_plugging import UNTOUCHED, credentials_on, wait_for_log, wait_for_status
from usb_keys import WITHOUT_ROOTS_FILE_ACCESS, YUBIKEY5


def start_create(host):
    options, challenge = creation_options()
    host.send({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    return challenge


def expect_credential_made_on(token, host, challenge):
    reply, _ = host.final("c-1")
    assert reply["type"] == "result", reply
    verify_registration(reply["credential"], challenge)
    assert len(credentials_on(token)) == 1


def test_a_key_plugged_in_while_the_host_waits_for_one_is_used(tmp_path, usb, launch):
    host = launch(None, env=usb.env)
    challenge = start_create(host)
    wait_for_status(host, "c-1", "insert-key")
    token = create_token(tmp_path / "key.state", "--profile", "yubikey5")
    usb.plug(token)
    expect_credential_made_on(token, host, challenge)


def waiting_for_the_touch(usb, launch, token):
    """A host whose request waits for the touch of `token`, plugged in as the only key (and never touched)."""
    create_token(token, "--profile", "yubikey5", *UNTOUCHED)
    usb.plug(token)
    host = launch(None, env=usb.env)
    challenge = start_create(host)
    wait_for_status(host, "c-1", "touch")
    return host, challenge


def test_a_key_pulled_out_while_waiting_for_its_touch_is_waited_for_and_another_one_used(tmp_path, usb, launch):
    first = tmp_path / "first.state"
    host, challenge = waiting_for_the_touch(usb, launch, first)
    usb.unplug(first.name)
    wait_for_status(host, "c-1", "insert-key")
    assert "/dev/hidraw0 was removed while it waited for its touch" in host.log()
    second = create_token(tmp_path / "second.state", "--profile", "yubikey5")
    usb.plug(second)
    expect_credential_made_on(second, host, challenge)
    assert credentials_on(first) == []


def test_a_key_plugged_in_while_another_waits_for_its_touch_joins_and_wins(tmp_path, usb, launch):
    waiting = tmp_path / "waiting.state"
    host, challenge = waiting_for_the_touch(usb, launch, waiting)
    touched = create_token(tmp_path / "touched.state", "--profile", "yubikey5", "--presence", "delay:500")
    assert usb.plug(touched) == "/dev/hidraw1"
    wait_for_log(host, "/dev/hidraw1 was plugged in; it joins the request")
    wait_for_status(host, "c-1", "select-key")
    expect_credential_made_on(touched, host, challenge)
    assert credentials_on(waiting) == []


def test_a_key_without_the_udev_rule_is_named_with_doctors_advice_and_used_once_allowed(tmp_path, usb, yubikey,
                                                                                      launch):
    usb.deny(yubikey.name)
    host = launch(None, env=usb.env, prefix=WITHOUT_ROOTS_FILE_ACCESS)
    challenge = start_create(host)
    frame = wait_for_status(host, "c-1", "key-unusable")
    assert "Yubico YubiKey OTP+FIDO+CCID is plugged in but cannot be used" in frame["detail"], frame
    assert "this account may not open /dev/hidraw0: the udev rule" in frame["detail"], frame
    usb.allow(yubikey.name)  # the user installs the rule and replugs
    expect_credential_made_on(yubikey, host, challenge)


def test_doctor_gives_the_udev_advice_for_a_key_this_user_cannot_open(usb, yubikey):
    usb.deny(yubikey.name)
    doctor = usb.run(host_binary(), "doctor", unprivileged=True)
    lines = doctor.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "security keys" in line)
    assert "no key usable; /dev/hidraw0 Yubico YubiKey OTP+FIDO+CCID cannot be opened by this user" in lines[at], \
        doctor.stdout
    assert "udev rule giving your session access (uaccess)" in "\n".join(lines[at:at + 3]), doctor.stdout


def test_devices_lists_a_key_this_user_cannot_open_with_the_reason(usb, yubikey):
    usb.deny(yubikey.name)
    shown = usb.run(host_binary(), "devices", "--json", unprivileged=True)
    assert shown.returncode == 0, shown.stderr
    (key,) = json.loads(shown.stdout)
    assert {k: key[k] for k in ("path", *YUBIKEY5)} == {"path": "/dev/hidraw0", **YUBIKEY5}
    assert key["problem"] == ("this account may not open /dev/hidraw0: the udev rule that gives your session access "
                              "to security keys is missing"), key
    assert "versions" not in key


def test_a_udev_monitor_hears_the_key_plugged_in_and_pulled_out(tmp_path, usb):
    """What a program that follows hotplug (Chromium's HID service, udisks) would hear: libudev's monitor."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")} | usb.env
    monitor = subprocess.Popen(["stdbuf", "-oL", "udevadm", "monitor", "--udev", "--subsystem-match=hidraw"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    pending = b""

    def next_line() -> str:
        nonlocal pending
        while b"\n" not in pending:
            ready, _, _ = select.select([monitor.stdout], [], [], 20)
            assert ready, f"udevadm monitor printed nothing more after {pending!r}"
            pending += os.read(monitor.stdout.fileno(), 4096)
        line, pending = pending.split(b"\n", 1)
        return line.decode()

    try:
        while not next_line().startswith("UDEV - "):  # printed once it listens
            pass
        token = create_token(tmp_path / "key.state", "--profile", "yubikey5")
        usb.plug(token)
        usb.unplug(token.name)
        events = []
        while not events or events[-1][0] != "remove":
            if fields := next_line().split():
                events.append(tuple(fields[2:]))
        node = "/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/0003:1050:0407.0001/hidraw/hidraw0"
        assert set(events) == {("add", node, "(hidraw)"), ("remove", node, "(hidraw)")}, events
        assert events[0][0] == "add", events
    finally:
        monitor.terminate()
        monitor.wait(timeout=10)


HOLD_THE_NODE = """
import fcntl, os, sys
node = os.open("/dev/hidraw0", os.O_RDWR)
fcntl.flock(node, fcntl.LOCK_EX)  # as libfido2 (and so another FIDO client) holds a key it has open
print("held", flush=True)
sys.stdin.read()
"""


def test_a_key_another_program_holds_is_named_and_used_once_released(usb, yubikey, launch):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBAUTHN_BRIDGE_")} | usb.env
    holder = subprocess.Popen(["python3", "-c", HOLD_THE_NODE], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        host = launch(None, env=usb.env)
        challenge = start_create(host)
        frame = wait_for_status(host, "c-1", "key-unusable")
        assert "/dev/hidraw0 did not answer" in frame["detail"], frame
        assert "another program may be using the key" in frame["detail"], frame
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
    expect_credential_made_on(yubikey, host, challenge)
