"""SoftTokens as USB FIDO keys behind /dev/hidraw nodes, in a umockdev testbed (run by the system Python, which
has umockdev's GObject bindings: python3-gi, gir1.2-umockdev-1.0).

Programs started with umockdev's preload (LD_PRELOAD=libumockdev-preload.so.0, UMOCKDEV_DIR=the testbed) see the
testbed's /sys and /dev instead of the machine's: libudev enumerates the keys plugged here, with the sysfs entries the
kernel gives a USB HID device (usb_device parent with idVendor/idProduct/manufacturer/product, hid parent with
HID_ID, HID_NAME and report_descriptor, hidraw device with its dev_t and its `device` link), hears their add and
remove uevents, and opening /dev/hidrawN opens a pseudo-terminal whose other end is this process. This process runs
under the preload too (umockdev-wrapper), so that umockdev finds the devices its uevents announce. What umockdev
cannot do alone is done here:
- the node is a symlink to a pty slave (umockdev makes a pty only for SUBSYSTEM=tty), because libfido2 checks with
  fstat(), which umockdev's preload does not wrap, that the node is a character device; the pty also gives poll()
  and read() a report's semantics: raw mode, VMIN=64, so the node is readable once a whole 64-byte input report is
  there and read() returns exactly one;
- the hidraw ioctls libfido2 and python-fido2 make (HIDIOCGRDESCSIZE, HIDIOCGRDESC, HIDIOCGRAWINFO, HIDIOCGRAWNAME)
  are answered by an umockdev ioctl handler (umockdev_testbed_attach_ioctl); reads and writes it leaves to the pty.
Each key's reports go to `webauthn-bridge token ctaphid FILE` (the SoftToken's CTAPHID on a pipe): an output report
written to the node (report id 0 + 64 bytes) becomes 64 bytes on the token's stdin, and each 64 bytes the token
writes becomes one input report.

The machine's own /dev and /sys are never touched: the testbed is a directory of its own, and the ptys are ordinary
pseudo-terminals that end with this process. Each pty is the controlling terminal of a small process of its own
(CONTROLLING_TERMINAL_HOLDER), so that no program opening the node takes it as its own and gets SIGHUP at unplugging.

Commands, one JSON object a line on stdin; one JSON answer a line on stdout (the first line is {"root": TESTBED}):
  {"op": "plug", "name": N, "token": FILE, "host": BINARY, "vendor": 0x1050, "product": 0x0407,
   "manufacturer": "Yubico", "productName": "YubiKey OTP+FIDO+CCID"}  → {"node": "/dev/hidrawK"}
  {"op": "unplug", "name": N}    the node, its sysfs devices and the token go (uevent "remove")
  {"op": "deny", "name": N}      the node becomes one this user may not open (mode 000), as without a udev rule
  {"op": "allow", "name": N}     the node is the key again
"""

import errno
import json
import os
import select
import shutil
import subprocess
import sys
import termios
import threading
import tty

import gi

gi.require_version("UMockdev", "1.0")
from gi.repository import GLib, UMockdev  # noqa: E402

REPORT = 64
# The report descriptor of a FIDO HID interface (CTAP 2.1 §11.2.8.1): usage page 0xF1D0, usage CTAPHID (1),
# a 64-byte input report (usage 0x20) and a 64-byte output report (usage 0x21), no report ids.
FIDO_REPORT_DESCRIPTOR = bytes.fromhex(
    "06d0f1" "0901" "a101"
    "0920" "1500" "26ff00" "7508" "9540" "8102"
    "0921" "1500" "26ff00" "7508" "9540" "9102"
    "c0")
HIDRAW_MAJOR = 245
BUS_USB = 3

# <linux/hidraw.h>: _IOR('H', nr, size) = 2 << 30 | size << 16 | ord('H') << 8 | nr
def _ior(nr: int, size: int) -> int:
    return 2 << 30 | size << 16 | ord("H") << 8 | nr


HIDIOCGRDESCSIZE = _ior(0x01, 4)
HIDIOCGRDESC = _ior(0x02, 4 + 4096)
HIDIOCGRAWINFO = _ior(0x03, 8)
HIDIOCGRAWNAME_NR = 0x04


# SIGHUP's default action first: a test run started with it ignored (nohup, some CI runners) would hand that on, and
# the holder would outlive the hangup that stands for the key pulled out.
CONTROLLING_TERMINAL_HOLDER = (
    "import fcntl, signal, termios\n"
    "signal.signal(signal.SIGHUP, signal.SIG_DFL)\n"
    "fcntl.ioctl(0, termios.TIOCSCTTY, 0)\n"
    "print('held', flush=True)\n"
    "signal.pause()\n")


class HidrawIoctls(UMockdev.IoctlBase):
    """Answers the hidraw ioctls for one key, as the kernel's hidraw driver would."""

    def __init__(self):
        super().__init__()
        self.info = b""
        self.name = b"\0"

    def answer_as(self, vendor: int, product: int, name: str):
        """The key now behind the node (a node name is used again for the next key plugged in)."""
        self.info = BUS_USB.to_bytes(4, "little") + vendor.to_bytes(2, "little") + product.to_bytes(2, "little")
        self.name = name.encode() + b"\0"

    def do_handle_ioctl(self, client):
        request = client.get_request()
        argument = client.get_arg()
        if request == HIDIOCGRDESCSIZE:
            argument.resolve(0, 4).update(0, len(FIDO_REPORT_DESCRIPTOR).to_bytes(4, "little"))
        elif request == HIDIOCGRDESC:
            argument.resolve(0, 4 + 4096).update(4, FIDO_REPORT_DESCRIPTOR)
        elif request == HIDIOCGRAWINFO:
            argument.resolve(0, len(self.info)).update(0, self.info)
        elif request & 0xFFFF == ord("H") << 8 | HIDIOCGRAWNAME_NR and request >> 30 == 2:
            size = request >> 16 & 0x3FFF
            name = self.name[:size]
            argument.resolve(0, size).update(0, name)
            client.complete(len(name), 0)
            return True
        else:
            client.complete(-1, errno.EINVAL)
            return True
        client.complete(0, 0)
        return True

    def do_handle_read(self, client):
        return False  # the pty's own read

    def do_handle_write(self, client):
        return False


class Key:
    """One plugged-in key: its sysfs devices, its node (a pty), and the token process behind it."""

    def __init__(self, testbed, root: str, index: int, ioctls: HidrawIoctls, command: dict):
        self.testbed = testbed
        self.root = root
        self.node = f"/dev/hidraw{index}"
        vendor, product = command["vendor"], command["product"]
        name = f"{command['manufacturer']} {command['productName']}"
        usb = f"/devices/pci0000:00/0000:00:14.0/usb1/1-{index + 1}"
        interface = f"{usb}/1-{index + 1}:1.0"
        hid = f"{interface}/0003:{vendor:04X}:{product:04X}.{index + 1:04X}"
        self.syspaths = [f"/sys{hid}/hidraw/hidraw{index}", f"/sys{hid}", f"/sys{interface}", f"/sys{usb}"]
        testbed.add_from_string(
            f"P: {usb}\nE: SUBSYSTEM=usb\nE: DEVTYPE=usb_device\nE: PRODUCT={vendor:x}/{product:x}/0\n"
            f"A: idVendor={vendor:04x}\nA: idProduct={product:04x}\nA: manufacturer={command['manufacturer']}\n"
            f"A: product={command['productName']}\nA: busnum=1\nA: devnum={index + 2}\n\n"
            f"P: {interface}\nE: SUBSYSTEM=usb\nE: DEVTYPE=usb_interface\nA: bInterfaceClass=03\n\n"
            f"P: {hid}\nE: SUBSYSTEM=hid\nE: HID_ID=0003:{vendor:08X}:{product:08X}\nE: HID_NAME={name}\n"
            f"E: HID_PHYS=usb-0000:00:14.0-{index + 1}/input0\nE: HID_UNIQ=\n"
            f"H: report_descriptor={FIDO_REPORT_DESCRIPTOR.hex().upper()}\n\n"
            f"P: {hid}/hidraw/hidraw{index}\nE: SUBSYSTEM=hidraw\nE: DEVNAME={self.node}\n"
            f"E: MAJOR={HIDRAW_MAJOR}\nE: MINOR={index}\nA: dev={HIDRAW_MAJOR}:{index}\n"
            f"L: device=../../../{hid.rsplit('/', 1)[1]}\n")
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        attributes = termios.tcgetattr(self.slave)
        attributes[6][termios.VMIN], attributes[6][termios.VTIME] = REPORT, 0
        termios.tcsetattr(self.slave, termios.TCSANOW, attributes)
        self.pty = os.ttyname(self.slave)
        # A pty that is no session's controlling terminal becomes the one of the first session leader that opens it
        # without O_NOCTTY (libfido2 does not pass it; a host started by a browser may lead its session), and
        # hanging it up at unplugging would then send that program SIGHUP. A process of its own holds it as its
        # controlling terminal instead, so no program that opens the node can take it (the hangup ends only it).
        self.holder = subprocess.Popen([sys.executable, "-c", CONTROLLING_TERMINAL_HOLDER], stdin=self.slave,
                                       stdout=subprocess.PIPE, start_new_session=True)
        assert self.holder.stdout.readline() == b"held\n"
        self.link = os.path.join(root, self.node.lstrip("/"))
        os.symlink(self.pty, self.link)
        self.stop = os.pipe()
        ioctls.answer_as(vendor, product, name)
        self.token = subprocess.Popen([command["host"], "token", "ctaphid", command["token"]],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.reader = threading.Thread(target=self._to_token, daemon=True)
        self.reader.start()
        threading.Thread(target=self._from_token, daemon=True).start()
        testbed.uevent(self.syspaths[0], "add")  # for programs that follow hotplug through libudev's monitor

    def _to_token(self):
        pending = b""
        while True:
            ready, _, _ = select.select([self.master, self.stop[0]], [], [])
            if self.stop[0] in ready:
                return
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                return
            if not chunk:
                return
            pending += chunk
            while len(pending) >= REPORT + 1:
                report, pending = pending[1:REPORT + 1], pending[REPORT + 1:]  # the report id (0) is dropped
                try:
                    self.token.stdin.write(report)
                    self.token.stdin.flush()
                except (BrokenPipeError, ValueError):
                    return

    def _from_token(self):
        while True:
            report = self.token.stdout.read(REPORT)
            if len(report) != REPORT:
                return
            try:
                os.write(self.master, report)
            except OSError:
                return

    def deny(self):
        os.unlink(self.link)
        with open(self.link, "wb"):
            pass
        os.chmod(self.link, 0)

    def allow(self):
        os.unlink(self.link)
        os.symlink(self.pty, self.link)

    def unplug(self):
        # The node goes first, so no program opens it meanwhile. Its ioctl handler stays attached: a program that
        # opens a node whose handler is gone is ended by umockdev's preload, and one may be in the middle of it.
        os.unlink(self.link)
        self.testbed.uevent(self.syspaths[0], "remove")
        for syspath in self.syspaths:
            self.testbed.remove_device(syspath)
        # What a pulled key does to a program that has it open: its reads and writes fail (the pty hangs up once
        # its master is closed, which needs the thread reading it gone first).
        os.write(self.stop[1], b"x")
        self.reader.join()
        os.close(self.master)
        os.close(self.slave)
        self.holder.wait(timeout=10)  # ended by the hangup
        self.token.stdin.close()
        self.token.wait(timeout=10)


def serve(testbed, root: str):
    keys: dict[str, Key] = {}
    used: set[int] = set()
    handlers: dict[int, HidrawIoctls] = {}  # by node number, attached once and kept (Key.unplug says why)
    for line in sys.stdin:
        command = json.loads(line)
        op, name = command["op"], command.get("name")
        answer: dict = {"ok": True}
        try:
            if op == "plug":
                index = min(set(range(len(used) + 1)) - used)
                used.add(index)
                if index not in handlers:
                    handlers[index] = HidrawIoctls()
                    testbed.attach_ioctl(f"/dev/hidraw{index}", handlers[index])
                keys[name] = Key(testbed, root, index, handlers[index], command)
                answer["node"] = keys[name].node
            elif op == "unplug":
                key = keys.pop(name)
                key.unplug()
                used.discard(int(key.node.removeprefix("/dev/hidraw")))
            elif op == "deny":
                keys[name].deny()
            elif op == "allow":
                keys[name].allow()
            else:
                raise ValueError(f"unknown op {op}")
        except Exception as error:  # answered, so the test fails with the reason
            answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)
    for key in keys.values():
        key.unplug()


def main():
    testbed = UMockdev.Testbed.new()
    root = testbed.get_root_dir()
    os.chmod(root, 0o755)  # readable by a program run without root's privileges (the permission tests)
    loop = GLib.MainLoop()  # the ioctl handlers run here
    threading.Thread(target=loop.run, daemon=True).start()
    print(json.dumps({"root": root}), flush=True)
    try:
        serve(testbed, root)
    finally:
        loop.quit()
        shutil.rmtree(root, ignore_errors=True)  # umockdev leaves it when the process ends under its preload


if __name__ == "__main__":
    main()
