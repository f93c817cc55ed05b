"""Keys plugged in on the USB path (Tests/Integration/usb_keys.py), each taking a touch only when the test gives it
one (`--presence signal`), and the security-key window that asks the user to choose among them: the steps the tests
of several keys share (test_several_keys.py, test_pin_lock.py). Every wait is on an event: the window's text, the
page's result, a line of the host's log."""
import json
import sys
from pathlib import Path

import pytest

from .prompt_window import PromptWindow

CHOOSE_A_KEY = "Touch the security key you want to use."
# The window offers Try again and takes its click (prompt/view.js marks it so once the button is armed).
RETRY_ARMED = "document.documentElement.dataset.retry === 'armed'"
ASKS_FOR_A_KEY = f"document.getElementById('text').innerText === {json.dumps(CHOOSE_A_KEY)}"


@pytest.fixture(scope="module")
def usb(tmp_path_factory):
    """The umockdev testbed the module's keys are plugged into (a test module imports this fixture)."""
    sys.path.append(str(Path(__file__).resolve().parents[2] / "Integration"))
    from usb_keys import USBKeys
    keys = USBKeys(tmp_path_factory.mktemp("usb"))
    yield keys
    keys.close()


def touch(token: Path) -> None:
    """The user touches the key: its next wait for presence takes this touch (and removes the file)."""
    Path(f"{token}.touch").touch()


def asking_for_a_key(browser, function: str, **args) -> PromptWindow:
    """The user clicks in the page, which calls rp.<function>(args) (its promise in window.pendingCall, and
    window.answered true once it settles); returns the window once it asks which key to use."""
    browser.press_in_page()
    browser.call(f"(window.pendingCall = rp.{function}({json.dumps(args)}), window.answered = false,"
                 " window.pendingCall.then(() => { window.answered = true; }), true)")
    window = PromptWindow.wait(browser.browser, timeout=30)
    window.wait_for(ASKS_FOR_A_KEY, timeout=30)
    return window


def ended_after(browser, before: int, what: str) -> dict:
    """The host's log entry for the one ceremony that ended since `before` (a count of browser.ended()), served by
    the session's path whatever the outcome: proxied ids end in -proxy (background/router.js)."""
    (ended,) = browser.wait_for_log(lambda: browser.ended()[before:], what, timeout=30)
    assert ended["id"].endswith("-proxy") == (browser.path == "proxy"), (browser.kind, ended["line"])
    return ended


def touching(browser, token: Path, function: str, **args) -> tuple[dict, dict]:
    """The user clicks in the page, which calls rp.<function>(args); once the security-key window asks which key to
    use, the user touches `token`. Returns the page's result and the host's log entry for the ceremony's end (the
    host logs it just after its answer, so the page may have the answer first)."""
    before = len(browser.ended())
    asking_for_a_key(browser, function, **args)
    touch(token)
    result = browser.call("window.pendingCall", timeout=60)
    return result, ended_after(browser, before, "the ceremony's end")


def try_again_touching(browser, window: PromptWindow, token: Path) -> tuple[dict, dict]:
    """The user presses Try again in the window of a held failure: the same request again (Chromium's StartOver), so
    the window asks for a key once more, and the user touches `token`. Returns the page's result and the host's log
    entry for the retry's end."""
    before = len(browser.ended())
    window.click("Try again")
    window.wait_for(ASKS_FOR_A_KEY, timeout=30)
    touch(token)
    result = browser.call("window.pendingCall", timeout=60)
    return result, ended_after(browser, before, "the retry's end")


def closing_gives(browser, window: PromptWindow, name: str, chromium_text: str) -> None:
    """The user closes the window of a held failure: the page gets that failure's error, `name`, in Chromium with
    Chromium's `chromium_text` (Firefox words its own), and the window goes."""
    window.click("Close")
    refused = browser.call("window.pendingCall", timeout=60)
    assert refused.get("ok") is False and refused["name"] == name, refused
    if browser.kind == "chromium":
        assert refused["message"] == chromium_text, refused
    PromptWindow.wait_gone(browser.browser, timeout=30)


def held_failure(browser, window: PromptWindow, before: int, node: str, reason: str) -> dict:
    """The attempt that started after `before` (a count of browser.ended()) failed on the key at `node`, and is held:
    the window says why (`reason`) and offers Try again while the page's promise is still pending. Returns the
    host's log entry for the failed attempt."""
    ended = ended_after(browser, before, "the failure's end")
    assert ended["outcome"] == "failed" and chosen_keys(browser, ended) == [node], ended
    window.wait_for(RETRY_ARMED, timeout=30)
    assert reason in window.text(), window.text()
    assert browser.call("window.answered") is False, "the page waits while the window offers Try again"
    return ended


def chosen_keys(browser, ended: dict) -> list[str]:
    """The keys the host's log says were chosen (touched first; the other cancelled) in the ceremony `ended`."""
    prefix = f"[{ended['id']}] "
    return [line.split(prefix)[1].split(" ")[0] for line in browser.host_log.read_text().splitlines()
            if prefix in line and "was chosen; the other keys are cancelled" in line]
