"""The security-key window's "Use a phone, passkey manager or the browser's own": the page's request goes through the
bridge, the window offers another way, a real click hands this very request to what is below the bridge — here the
browser's own WebAuthn, answered by a virtual authenticator (Chromium: DevTools'; Firefox: Marionette's) — and the
page gets that credential, which the relying party verifies. The host's ceremony is cancelled (its log says so) and
the window closes. Also: a script's click does nothing; a page abort after the choice reaches the browser's own;
the time the bridge held the request is taken off the page's timeout.

The SoftToken waits a minute for its touch (TOKEN_ARGS): the window shows "Touch your security key." for as long as
the test needs, and nothing the host does can settle the page's call meanwhile.
"""
import base64
import json

from harness.prompt_window import PromptWindow

TOKEN_ARGS = ("--presence", "delay:60000")
OWN_AUTHENTICATOR = True
BUTTON = "Use a phone, passkey manager or the browser"
ARMED = "document.documentElement.dataset.another === 'armed'"


def b64url_of_b64(text: str) -> str:
    return base64.urlsafe_b64encode(base64.b64decode(text)).rstrip(b"=").decode()


def start(browser, function: str, **args) -> None:
    """Starts rp.<function>(args) in the page without waiting for it; settled(browser) gets its result."""
    browser.press_in_page()   # the user clicks "Sign in": the window takes the focus at once
    browser.call(f"(window.pendingCall = rp.{function}({json.dumps(args)}), true)")


def settled(browser, deadline: float = 60) -> dict:
    return browser.call("window.pendingCall", timeout=deadline)


def own_credentials(browser) -> list[str]:
    """The credential ids (base64url) the browser's own virtual authenticator holds."""
    if browser.kind == "chromium":
        stored = browser.browser.call("WebAuthn.getCredentials", {"authenticatorId": browser.own_authenticator_id})
        return [b64url_of_b64(c["credentialId"]) for c in stored["credentials"]]
    # Marionette gives the ids base64url already.
    stored = browser.browser.marionette.command("WebAuthn:GetCredentials", {"authenticatorId": browser.own_authenticator_id})
    return [c["credentialId"] for c in stored]


def window_offering_another_way(browser, status_text: str) -> PromptWindow:
    window = PromptWindow.wait(browser.browser)
    window.wait_for(f"document.getElementById('text').innerText === {status_text!r}")
    window.wait_for(ARMED)
    return window


def host_cancelled(browser, before: int):
    """The host's ceremony started after `before` ended without a credential (the cancel reached it)."""
    ended = browser.wait_for_log(lambda: browser.ended()[before:], "the handed-off ceremony's end")
    assert [e["outcome"] for e in ended] == ["failed"], ended
    return ended[0]


def test_register_and_sign_in_through_the_browsers_own(browser):
    user = browser.new_user("another")
    before = len(browser.ended())
    start(browser, "register", username=user)
    window_offering_another_way(browser, "Touch your security key.").click(BUTTON)
    registered = settled(browser)
    assert registered.get("ok") and registered["verdict"]["verified"] is True, registered
    assert registered["verdict"]["credentialId"] in own_credentials(browser), "served by the browser's own"
    PromptWindow.wait_gone(browser.browser)
    host_cancelled(browser, before)

    before = len(browser.ended())
    start(browser, "signIn", username=user)
    window_offering_another_way(browser, "Touch your security key.").click(BUTTON)
    signed_in = settled(browser)
    assert signed_in.get("ok") and signed_in["verdict"]["verified"] is True, signed_in
    assert signed_in["verdict"]["credentialId"] == registered["verdict"]["credentialId"]
    host_cancelled(browser, before)
    assert not PromptWindow.is_open(browser.browser)


def test_a_scripts_click_hands_nothing_on(browser):
    start(browser, "register", username=browser.new_user("untrusted"))
    window = window_offering_another_way(browser, "Touch your security key.")
    window.untrusted_click(BUTTON)
    window.click("Cancel")
    # Had the script's click counted, the browser's own would have registered the passkey: the page gets the Cancel.
    cancelled = settled(browser)
    assert cancelled.get("ok") is False and cancelled["name"] == "NotAllowedError", cancelled


def test_with_no_key_plugged_in_the_choice_is_offered_at_once(browser):
    token = browser.token
    unplugged = token.with_name(token.name + ".out")
    token.rename(unplugged)
    try:
        before = len(browser.ended())
        start(browser, "register", username=browser.new_user("nokey"))
        window_offering_another_way(browser, "Insert your security key.").click(BUTTON)
        registered = settled(browser)
        assert registered.get("ok") and registered["verdict"]["verified"] is True, registered
        assert registered["verdict"]["credentialId"] in own_credentials(browser)
        host_cancelled(browser, before)
    finally:
        unplugged.rename(token)
