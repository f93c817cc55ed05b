"""The whole path with a USB key: the browser starts the host (the manifest names a wrapper that gives the host
umockdev's preload, Tests/Integration/usb_keys.py), no SoftToken variable is set, and the host finds a YubiKey 5
(the SoftToken profile) behind /dev/hidraw0 through libudev and libfido2's hidraw code; the RP verifies what the
page gets."""
import sys
from pathlib import Path

import pytest

from harness.session import BrowserSession

sys.path.append(str(Path(__file__).resolve().parents[1] / "Integration"))
from bridge import create_token  # noqa: E402
from usb_keys import USBKeys  # noqa: E402


@pytest.fixture(scope="module")
def usb(tmp_path_factory):
    directory = tmp_path_factory.mktemp("usb")
    keys = USBKeys(directory)
    keys.plug(create_token(directory / "yubikey.state", "--profile", "yubikey5"))
    yield keys
    keys.close()


@pytest.fixture(scope="module")
def browser(request, host, rp_server, usb):
    session = BrowserSession.for_param(request.param, host, rp_server.origin, host_env=usb.env)
    yield session
    session.close()


def test_register_then_sign_in_with_a_usb_key(browser):
    user = browser.new_user("usb")
    registered = browser.rp("register", username=user)
    assert registered.get("ok") and registered["verdict"].get("verified") is True, registered
    signed_in = browser.rp("signIn", username=user)
    assert signed_in.get("ok") and signed_in["verdict"].get("verified") is True, signed_in
    assert signed_in["verdict"]["credentialId"] == registered["verdict"]["credentialId"]
    log = browser.host_log.read_text()
    assert log.count("phase key-ready: /dev/hidraw0") == 2, log
    assert "SoftToken" not in log
