"""Two keys plugged in, one touch (docs/keys.md, "Several keys"): the browser starts the host with two YubiKey 5s
(SoftToken profile) behind /dev/hidraw0 and /dev/hidraw1 of a umockdev testbed, as test_usb_key.py does with one.
The request goes to both keys; the security-key window asks the user to touch the one to use; one touch of the
second key registers on it, and one touch of that key signs in. The RP verifies both, and the host's log names the
key that served. Touching the key that holds none of the allowed credentials fails the sign-in at that one touch
(every key was asked silently first), whether it says "no credentials" after its touch (CTAP 2.0, the first key) or
at once (2.1, the second): the page waits while the window offers Try again, which signs in with the other key, and
Close, which gives the page NotAllowedError (its next call signs in with the other). Run on Chromium's proxy path
too, where the page gets the same results. Each key takes a touch only when the test creates its FILE.touch (`--presence
signal`), so every wait is on an event: the window's text, the page's result."""
import json
import sys
from pathlib import Path

import pytest

from harness.prompt_window import PromptWindow
from harness.session import BrowserSession

sys.path.append(str(Path(__file__).resolve().parents[1] / "Integration"))
from bridge import NOT_ALLOWED_TEXT, create_token  # noqa: E402
from test_keys_plugging import credentials_on  # noqa: E402
from usb_keys import USBKeys  # noqa: E402

PROXY_PATH = True  # also Chromium's proxy path ("chromium-proxy")
CHOOSE_A_KEY = "Touch the security key you want to use."


@pytest.fixture(scope="module")
def usb(tmp_path_factory):
    keys = USBKeys(tmp_path_factory.mktemp("usb"))
    yield keys
    keys.close()


@pytest.fixture(scope="module")
def keys(usb, tmp_path_factory) -> dict[str, tuple[Path, str]]:
    """The two keys, plugged in: each one's state file and node (first: /dev/hidraw0, second: /dev/hidraw1). The
    first says "no credentials" only once touched (CTAP 2.0's order), the second at once (2.1's)."""
    directory = tmp_path_factory.mktemp("keys")
    plugged = {}
    for name, order in (("first", "after-touch"), ("second", "at-once")):
        token = create_token(directory / f"{name}.state", "--profile", "yubikey5", "--presence", "signal",
                             "--no-credentials", order)
        plugged[name] = (token, usb.plug(token))
    return plugged


@pytest.fixture(scope="module")
def browser(request, host, rp_server, usb, keys):
    session = BrowserSession.for_param(request.param, host, rp_server.origin, host_env=usb.env)
    yield session
    session.close()


def touch(token: Path) -> None:
    """The user touches the key: its next wait for presence takes this touch (and removes the file)."""
    Path(f"{token}.touch").touch()


def touching(browser, token: Path, function: str, **args) -> tuple[dict, dict]:
    """The user clicks in the page, which calls rp.<function>(args); once the security-key window asks which key to
    use, the user touches `token`. Returns the page's result and the host's log entry for the ceremony's end (the
    host logs it just after its answer, so the page may have the answer first)."""
    before = len(browser.ended())
    browser.press_in_page()
    browser.call(f"(window.pendingCall = rp.{function}({json.dumps(args)}), true)")
    window = PromptWindow.wait(browser.browser, timeout=30)
    window.wait_for(f"document.getElementById('text').innerText === {json.dumps(CHOOSE_A_KEY)}", timeout=30)
    touch(token)
    result = browser.call("window.pendingCall", timeout=60)
    (ended,) = browser.wait_for_log(lambda: browser.ended()[before:], "the ceremony's end", timeout=30)
    # Served by the session's path, whatever the outcome: proxied ids end in -proxy (background/router.js).
    assert ended["id"].endswith("-proxy") == (browser.path == "proxy"), (browser.kind, ended["line"])
    return result, ended


def chosen_keys(browser, ended: dict) -> list[str]:
    """The keys the host's log says were chosen (touched first; the other cancelled) in the ceremony `ended`."""
    prefix = f"[{ended['id']}] "
    return [line.split(prefix)[1].split(" ")[0] for line in browser.host_log.read_text().splitlines()
            if prefix in line and "was chosen; the other keys are cancelled" in line]


def test_register_on_the_key_touched_then_sign_in_with_it(browser, keys):
    (first, _), (second, second_node) = keys["first"], keys["second"]
    user = browser.new_user("keys")
    on_first = credentials_on(first)  # the keys serve every browser of the module, each test a user of its own

    registered, ended = touching(browser, second, "register", username=user)
    assert registered.get("ok") and registered["verdict"].get("verified") is True, registered
    assert ended["outcome"] == "ok" and chosen_keys(browser, ended) == [second_node], ended
    assert not Path(f"{second}.touch").exists(), "the second key took its one touch"
    assert credentials_on(first) == on_first, "nothing was made on the key not touched"
    PromptWindow.wait_gone(browser.browser, timeout=30)

    signed_in, ended = touching(browser, second, "signIn", username=user)
    assert signed_in.get("ok") and signed_in["verdict"].get("verified") is True, signed_in
    assert signed_in["verdict"]["credentialId"] == registered["verdict"]["credentialId"]
    assert ended["outcome"] == "ok" and chosen_keys(browser, ended) == [second_node], ended
    assert not Path(f"{second}.touch").exists() and not Path(f"{first}.touch").exists()
    PromptWindow.wait_gone(browser.browser, timeout=30)


RETRY_ARMED = "document.documentElement.dataset.retry === 'armed'"
# Either key holding none, whichever order it says so in (the first after its touch, the second at once).
ORDERS = [("second", "first"), ("first", "second")]


def touched_the_key_without_the_credential(browser, keys, holder: str, touched: str) -> tuple[str, dict, PromptWindow]:
    """Registers a user on `holder`, then signs in touching `touched`, which holds no credential for them: it takes
    the one touch, and the window says why and offers Try again (armed) while the page's promise is still pending.
    Returns the user, the registration and the window."""
    (holder, _), (touched, touched_node) = keys[holder], keys[touched]
    user = browser.new_user("wrong-key")
    registered, _ = touching(browser, holder, "register", username=user)
    assert registered.get("ok"), registered
    PromptWindow.wait_gone(browser.browser, timeout=30)

    before = len(browser.ended())
    browser.press_in_page()
    browser.call(f"(window.pendingCall = rp.signIn({json.dumps({'username': user})}), window.answered = false,"
                 " window.pendingCall.then(() => { window.answered = true; }), true)")
    window = PromptWindow.wait(browser.browser, timeout=30)
    window.wait_for(f"document.getElementById('text').innerText === {json.dumps(CHOOSE_A_KEY)}", timeout=30)
    touch(touched)
    (ended,) = browser.wait_for_log(lambda: browser.ended()[before:], "the refusal's end", timeout=30)
    assert ended["id"].endswith("-proxy") == (browser.path == "proxy"), (browser.kind, ended["line"])
    assert ended["outcome"] == "failed" and chosen_keys(browser, ended) == [touched_node], ended
    assert not Path(f"{touched}.touch").exists(), "one touch of the key holding none was all the refusal took"
    window.wait_for(RETRY_ARMED, timeout=30)
    assert "has no credential for this site" in window.text(), window.text()
    assert browser.call("window.answered") is False, "the page waits while the window offers Try again"
    return user, registered, window


@pytest.mark.parametrize("holder, touched", ORDERS)
def test_try_again_after_touching_the_key_without_the_credential_signs_in_with_the_other(browser, keys, holder,
                                                                                         touched):
    user, registered, window = touched_the_key_without_the_credential(browser, keys, holder, touched)
    (holder, holder_node) = keys[holder]
    before = len(browser.ended())
    window.click("Try again")
    # The same request again (Chromium's StartOver): the window asks for a key once more; the user touches the other.
    window.wait_for(f"document.getElementById('text').innerText === {json.dumps(CHOOSE_A_KEY)}", timeout=30)
    touch(holder)
    signed_in = browser.call("window.pendingCall", timeout=60)
    assert signed_in.get("ok") and signed_in["verdict"].get("verified") is True, signed_in
    assert signed_in["verdict"]["credentialId"] == registered["verdict"]["credentialId"]
    (ended,) = browser.wait_for_log(lambda: browser.ended()[before:], "the retry's end", timeout=30)
    assert ended["outcome"] == "ok" and chosen_keys(browser, ended) == [holder_node], ended
    PromptWindow.wait_gone(browser.browser, timeout=30)


@pytest.mark.parametrize("holder, touched", ORDERS)
def test_closing_the_window_after_touching_the_key_without_the_credential_gives_not_allowed(browser, keys, holder,
                                                                                            touched):
    user, registered, window = touched_the_key_without_the_credential(browser, keys, holder, touched)
    (holder, holder_node) = keys[holder]
    window.click("Close")
    refused = browser.call("window.pendingCall", timeout=60)
    assert refused.get("ok") is False and refused["name"] == "NotAllowedError", refused
    if browser.kind == "chromium":
        assert refused["message"] == NOT_ALLOWED_TEXT, refused
    PromptWindow.wait_gone(browser.browser, timeout=30)

    # The page calls again (the site's button pressed again): this time the user touches the other key.
    signed_in, ended = touching(browser, holder, "signIn", username=user)
    assert signed_in.get("ok") and signed_in["verdict"].get("verified") is True, signed_in
    assert signed_in["verdict"]["credentialId"] == registered["verdict"]["credentialId"]
    assert ended["outcome"] == "ok" and chosen_keys(browser, ended) == [holder_node], ended
    PromptWindow.wait_gone(browser.browser, timeout=30)
