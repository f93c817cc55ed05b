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
import sys
from pathlib import Path

import pytest

from harness.prompt_window import PromptWindow
from harness.session import BrowserSession
from harness.several_keys import (asking_for_a_key, chosen_keys, closing_gives, held_failure, touch, touching,
                                  try_again_touching, usb)  # noqa: F401 (usb: a fixture)

sys.path.append(str(Path(__file__).resolve().parents[1] / "Integration"))
from bridge import NOT_ALLOWED_TEXT, create_token, extension_data  # noqa: E402
from test_keys_plugging import credentials_on  # noqa: E402

PROXY_PATH = True  # also Chromium's proxy path ("chromium-proxy")
EXCLUDED_TEXT = extension_data("chromium-texts.js")["credentialExcluded"]


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


# Either key holding none, whichever order it says so in (the first after its touch, the second at once).
ORDERS = [("second", "first"), ("first", "second")]


def held_after_touching(browser, keys, holder: str, touched: str, function: str, reason: str) -> tuple[str, dict,
                                                                                                  PromptWindow]:
    """Registers a user on `holder`, then calls rp.<function> for them touching `touched`, which fails at that one
    touch: the window says why (`reason`) and offers Try again (armed) while the page's promise is still pending.
    Returns the user, the registration and the window."""
    (holder, _), (touched, touched_node) = keys[holder], keys[touched]
    user = browser.new_user(function)
    registered, _ = touching(browser, holder, "register", username=user)
    assert registered.get("ok"), registered
    PromptWindow.wait_gone(browser.browser, timeout=30)

    before = len(browser.ended())
    window = asking_for_a_key(browser, function, username=user)
    touch(touched)
    held_failure(browser, window, before, touched_node, reason)
    assert not Path(f"{touched}.touch").exists(), "one touch was all the refusal took"
    return user, registered, window


def touched_the_key_without_the_credential(browser, keys, holder: str, touched: str) -> tuple[str, dict, PromptWindow]:
    """A sign-in touching `touched`, which holds no credential for the user registered on `holder`."""
    return held_after_touching(browser, keys, holder, touched, "signIn", "has no credential for this site")


@pytest.mark.parametrize("holder, touched", ORDERS)
def test_try_again_after_touching_the_key_without_the_credential_signs_in_with_the_other(browser, keys, holder,
                                                                                         touched):
    user, registered, window = touched_the_key_without_the_credential(browser, keys, holder, touched)
    (holder, holder_node) = keys[holder]
    signed_in, ended = try_again_touching(browser, window, holder)   # the other key
    assert signed_in.get("ok") and signed_in["verdict"].get("verified") is True, signed_in
    assert signed_in["verdict"]["credentialId"] == registered["verdict"]["credentialId"]
    assert ended["outcome"] == "ok" and chosen_keys(browser, ended) == [holder_node], ended
    PromptWindow.wait_gone(browser.browser, timeout=30)


@pytest.mark.parametrize("holder, touched", ORDERS)
def test_closing_the_window_after_touching_the_key_without_the_credential_gives_not_allowed(browser, keys, holder,
                                                                                            touched):
    user, registered, window = touched_the_key_without_the_credential(browser, keys, holder, touched)
    (holder, holder_node) = keys[holder]
    closing_gives(browser, window, "NotAllowedError", NOT_ALLOWED_TEXT)

    # The page calls again (the site's button pressed again): this time the user touches the other key.
    signed_in, ended = touching(browser, holder, "signIn", username=user)
    assert signed_in.get("ok") and signed_in["verdict"].get("verified") is True, signed_in
    assert signed_in["verdict"]["credentialId"] == registered["verdict"]["credentialId"]
    assert ended["outcome"] == "ok" and chosen_keys(browser, ended) == [holder_node], ended
    PromptWindow.wait_gone(browser.browser, timeout=30)


def touched_the_key_already_registered(browser, keys, holder: str) -> tuple[str, dict, PromptWindow]:
    """A second registration of the user registered on `holder` (the RP excludes the credential it has), touching
    `holder`."""
    return held_after_touching(browser, keys, holder, holder, "register",
                               "already holds a credential registered with this site")


def test_try_again_after_touching_the_key_already_registered_registers_on_the_other(browser, keys):
    (other, other_node) = keys["second"]
    user, registered, window = touched_the_key_already_registered(browser, keys, "first")
    on_other = credentials_on(other)
    again, ended = try_again_touching(browser, window, other)
    assert again.get("ok") and again["verdict"].get("verified") is True, again
    assert again["verdict"]["credentialId"] != registered["verdict"]["credentialId"], again
    assert ended["outcome"] == "ok" and chosen_keys(browser, ended) == [other_node], ended
    assert len(credentials_on(other)) == len(on_other) + 1, "the retry registered on the key touched"
    PromptWindow.wait_gone(browser.browser, timeout=30)


def test_closing_the_window_after_touching_the_key_already_registered_gives_invalid_state(browser, keys):
    (holder, _) = keys["second"]
    on_holder = credentials_on(holder)
    user, registered, window = touched_the_key_already_registered(browser, keys, "second")
    closing_gives(browser, window, "InvalidStateError", EXCLUDED_TEXT)
    assert len(credentials_on(holder)) == len(on_holder) + 1, "only the first registration made a credential"
