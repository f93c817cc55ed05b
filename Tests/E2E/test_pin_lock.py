"""A key locked by wrong PINs, and Try again (docs/extension.md, "Security-key window"): two YubiKey 5s (SoftToken
profile) with a PIN on the USB path, as in test_several_keys.py; the host's PIN dialog is the integration suite's
scripted pinentry, which holds each dialog open until the test answers it. The user touches one key to register a
passkey and gives three wrong PINs in a row: the key refuses every PIN until it is reinserted
(CTAP2_ERR_PIN_AUTH_BLOCKED). As Chromium's sheet for it (kSoftPINBlock), the window says to remove and reinsert the key
and offers Try again while the page waits: Try again asks for a key again under the page's first deadline, and the other
key with the right PIN registers (the RP verifies it with py_webauthn); Close gives the page NotAllowedError with
Chromium's text. Run on Chromium's proxy path too. Every wait is on an event: a PIN dialog opening, the window's text,
the page's result."""
import sys
from pathlib import Path

import pytest

from harness.pinentry import Pinentry
from harness.prompt_window import PromptWindow
from harness.session import BrowserSession
from harness.several_keys import (ASKS_FOR_A_KEY, RETRY_ARMED, asking_for_a_key, chosen_keys, closing_gives,
                                  ended_after, held_failure, touch, usb)  # noqa: F401 (usb: a fixture)

sys.path.append(str(Path(__file__).resolve().parents[1] / "Integration"))
from bridge import NOT_ALLOWED_TEXT, create_token  # noqa: E402
from test_keys_plugging import credentials_on  # noqa: E402

PROXY_PATH = True  # also Chromium's proxy path ("chromium-proxy")
PIN = "135790"
WRONG_PINS = ["000000", "111111", "222222"]   # three in a row: the key's PIN is locked until it is reinserted
LOCKED_REASON = "remove and reinsert the security key"
TOUCH_AGAIN = "document.getElementById('text').innerText === 'Touch your security key.'"
# Three PIN rounds and a retry within the page's one deadline, on a loaded machine.
SLOW = {"residentKey": "required", "timeout": 120000, "deadlineMs": 120000}


@pytest.fixture(scope="module")
def pinentry(tmp_path_factory):
    return Pinentry(tmp_path_factory.mktemp("pinentry"), PIN)


@pytest.fixture(scope="module")
def browser(request, host, rp_server, usb, pinentry):
    session = BrowserSession.for_param(request.param, host, rp_server.origin, host_env=usb.env,
                                       extra_env=pinentry.env())
    yield session
    session.close()


def plugged_key(usb, directory: Path, name: str) -> tuple[Path, str]:
    """A YubiKey 5 with the PIN, plugged in: its state file and node. It takes a touch only when given one."""
    token = create_token(directory / f"{name}.state", "--profile", "yubikey5", "--pin", PIN, "--presence", "signal")
    return token, usb.plug(token, name=directory.name)


@pytest.fixture(scope="module")
def spare(usb, tmp_path_factory) -> tuple[Path, str]:
    """The key the user turns to once the other is locked (it only ever gets the right PIN)."""
    return plugged_key(usb, tmp_path_factory.mktemp("spare"), "spare")


@pytest.fixture
def locking(usb, tmp_path_factory) -> tuple[Path, str]:
    """A key of the test's own that its wrong PINs lock. It stays plugged in: a key pulled out and another plugged
    in may reuse the node and its inode, which the host takes for the same plugging (Device.plugging), still locked."""
    return plugged_key(usb, tmp_path_factory.mktemp("locking"), "locking")


def locked_by_wrong_pins(browser, pinentry, locking) -> PromptWindow:
    """The user registers a passkey, touches `locking` and gives three wrong PINs in its dialogs: the window says the
    key must be reinserted and offers Try again while the page's promise is still pending. Returns the window."""
    (token, node) = locking
    before, asked = len(browser.ended()), pinentry.asked()
    window = asking_for_a_key(browser, "register", username=browser.new_user("locked"), **SLOW)
    pinentry.next = list(WRONG_PINS)
    touch(token)
    pinentry.answer_while(lambda: not window.evaluate(RETRY_ARMED), timeout=60)
    held_failure(browser, window, before, node, LOCKED_REASON)
    assert pinentry.asked() == asked + len(WRONG_PINS), "one PIN dialog for each wrong PIN, none after the lock"
    assert credentials_on(token) == [], "nothing was made on the locked key"
    return window


def test_try_again_after_three_wrong_pins_registers_with_the_other_key(browser, pinentry, locking, spare):
    (token, node) = spare
    on_spare = credentials_on(token)
    window = locked_by_wrong_pins(browser, pinentry, locking)
    before, asked = len(browser.ended()), pinentry.asked()
    window.click("Try again")
    # The same request again: the window asks for a key once more; the user touches the other, gives its PIN in the
    # dialog that opens, and touches it again when the window asks (the registration's own touch).
    window.wait_for(ASKS_FOR_A_KEY, timeout=30)
    touch(token)
    pinentry.answer_while(lambda: not window.evaluate(TOUCH_AGAIN), timeout=60)
    assert pinentry.asked() == asked + 1, "one PIN dialog, given the right PIN"
    touch(token)
    registered = browser.call("window.pendingCall", timeout=60)
    assert registered.get("ok") and registered["verdict"].get("verified") is True, registered
    ended = ended_after(browser, before, "the retry's end")
    assert ended["outcome"] == "ok" and chosen_keys(browser, ended) == [node], ended
    assert len(credentials_on(token)) == len(on_spare) + 1, "the retry registered on the key touched"
    assert credentials_on(locking[0]) == [], "nothing was made on the locked key"
    PromptWindow.wait_gone(browser.browser, timeout=30)


def test_closing_the_window_after_three_wrong_pins_gives_not_allowed(browser, pinentry, locking, spare):
    on_spare = credentials_on(spare[0])
    window = locked_by_wrong_pins(browser, pinentry, locking)
    closing_gives(browser, window, "NotAllowedError", NOT_ALLOWED_TEXT)   # nothing of the key's PIN
    assert credentials_on(spare[0]) == on_spare and credentials_on(locking[0]) == [], "nothing was made"
