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

import pytest

from harness.prompt_window import PromptWindow

TOKEN_ARGS = ("--presence", "delay:60000")
OWN_AUTHENTICATOR = True
PROXY_PATH = True   # also in Chromium through the proxy path: only the test written for it runs there
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


@pytest.fixture(autouse=True)
def page_path_only(request, browser):
    """Chromium's proxy path has a test of its own (below): a tab with a DevTools authenticator is never proxied."""
    if browser.path == "proxy" and "proxy_path" not in request.node.name:
        pytest.skip("page path (Chromium's proxy path: test_proxy_path_hands_the_request_back)")


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
    PromptWindow.wait_gone(browser.browser)   # the window closes as the hand-over begins; its removal takes a moment


def test_a_scripts_click_hands_nothing_on(browser):
    start(browser, "register", username=browser.new_user("untrusted"))
    window = window_offering_another_way(browser, "Touch your security key.")
    # Where it is not offered, the block is not drawn (the page's own stylesheet must not undo `hidden`).
    assert window.evaluate("(() => { const block = document.getElementById('another'); block.hidden = true;"
                           " const gone = getComputedStyle(block).display === 'none'; block.hidden = false;"
                           " return gone; })()") is True
    window.untrusted_click(BUTTON)
    window.click("Cancel")
    # Had the script's click counted, the browser's own would have registered the passkey: the page gets the Cancel.
    cancelled = settled(browser)
    assert cancelled.get("ok") is False and cancelled["name"] == "NotAllowedError", cancelled
    # The page has its answer before the window is gone: the next test's request must not find this one.
    PromptWindow.wait_gone(browser.browser)


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


def own_waits_for_presence(browser, waits: bool) -> None:
    """Whether Chromium's own authenticator waits for a touch that never comes (else it answers at once). Firefox's
    (Marionette's) always consents, and with no credential for a request it refuses at once (NotAllowedError,
    measured): nothing there waits, so what needs the browser's own to wait runs in Chromium only."""
    if browser.kind != "chromium":
        pytest.skip("Firefox's virtual authenticator never waits for a touch")
    browser.browser.call("WebAuthn.setAutomaticPresenceSimulation",
                         {"authenticatorId": browser.own_authenticator_id, "enabled": not waits})


# A sign-in the page makes itself, so the test can abort it and read its timing: options from the RP, a signal.
PAGE_CALL = """(async () => {
  const json = await (await fetch('/login/options', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({username: %(user)s, timeout: %(timeout)d})})).json();
  const decode = (t) => Uint8Array.from(atob(t.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  window.controller = new AbortController();
  window.startedAt = performance.now();
  window.pendingCall = navigator.credentials.get({signal: window.controller.signal, publicKey: {...json,
    challenge: decode(json.challenge), allowCredentials: json.allowCredentials.map((c) => ({...c, id: decode(c.id)}))}})
    .then(() => ({ok: true}), (e) => ({ok: false, name: e.name, message: e.message,
                                        elapsedMs: performance.now() - window.startedAt}));
  return true;
})()"""


def registered_user(browser) -> str:
    """A user with a passkey in the browser's own authenticator (handed on there)."""
    user = browser.new_user("own")
    start(browser, "register", username=user)
    window_offering_another_way(browser, "Touch your security key.").click(BUTTON)
    assert settled(browser).get("ok"), "registration through the browser's own"
    PromptWindow.wait_gone(browser.browser)
    return user


def test_an_abort_after_the_choice_reaches_the_browsers_own(browser):
    own_waits_for_presence(browser, False)   # Chromium only (skips Firefox)
    user = registered_user(browser)
    own_waits_for_presence(browser, True)
    try:
        before = len(browser.ended())
        browser.press_in_page()
        browser.call(PAGE_CALL % {"user": json.dumps(user), "timeout": 60000})
        window_offering_another_way(browser, "Touch your security key.").click(BUTTON)
        host_cancelled(browser, before)
        PromptWindow.wait_gone(browser.browser)
        browser.call("(window.controller.abort(new DOMException('the page gave up', 'AbortError')), true)")
        aborted = settled(browser)
        assert aborted == {"ok": False, "name": "AbortError", "message": "the page gave up",
                           "elapsedMs": aborted.get("elapsedMs")}, aborted
    finally:
        own_waits_for_presence(browser, False)
    # Nothing is left pending anywhere: the next request goes through the bridge's window again.
    start(browser, "signIn", username=user)
    window_offering_another_way(browser, "Touch your security key.").click(BUTTON)
    assert settled(browser).get("ok")


def test_the_browsers_own_gets_the_time_the_page_has_left(browser):
    """The page allows 25 s; the bridge holds the request 10 s before the user hands it on. The browser's own then
    gives up when the page's 25 s are over, not 25 s after the hand-over."""
    own_waits_for_presence(browser, False)
    user = registered_user(browser)
    own_waits_for_presence(browser, True)
    try:
        browser.press_in_page()
        browser.call(PAGE_CALL % {"user": json.dumps(user), "timeout": 25000})
        window = window_offering_another_way(browser, "Touch your security key.")
        # The page's own clock says when 10 s of its time are gone.
        assert browser.browser.wait_for("performance.now() - window.startedAt >= 10000", timeout=30), "the page's clock"
        window.click(BUTTON)
        timed_out = settled(browser, deadline=60)
        assert timed_out["ok"] is False and timed_out["name"] == "NotAllowedError", timed_out
        assert 24000 <= timed_out["elapsedMs"] < 30000, f"the browser's own gave up after {timed_out['elapsedMs']} ms"
    finally:
        own_waits_for_presence(browser, False)


def test_proxy_path_hands_the_request_back(browser):
    """Chromium's proxy path: nothing reaches Chromium's own UI while the proxy is attached, so the bridge completes the
    proxied call "handed back", detaches, and the page's script calls Chromium's own again; the proxy is attached again
    once that call settled, and the next request is proxied to the host as before."""
    if browser.path != "proxy":
        pytest.skip("Chromium's proxy path only")
    before = len(browser.ended())
    start(browser, "register", username=browser.new_user("proxied"))
    window = window_offering_another_way(browser, "Touch your security key.")
    assert browser.ceremonies()[-1]["id"].endswith("-proxy"), "the request came through the proxy"
    authenticator = browser.add_own_authenticator()   # only now: a tab with one is never proxied
    try:
        window.click(BUTTON)
        registered = settled(browser)
        assert registered.get("ok") and registered["verdict"]["verified"] is True, registered
        assert registered["verdict"]["credentialId"] in own_credentials(browser), "served by Chromium's own"
        host_cancelled(browser, before)
    finally:
        # Removed, and DevTools' WebAuthn environment with it: while enabled, the tab is Chromium's own, not proxied.
        browser.browser.call("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator})
        browser.browser.call("WebAuthn.disable")
    assert proxy_attached_again(browser), f"the proxy was not attached again\n{browser.diagnostics()}"
    # The next request reaches the host through the proxy again (the token waits for its touch: Cancel ends it).
    reached = len(browser.ceremonies())
    start(browser, "register", username=browser.new_user("after"))
    window = window_offering_another_way(browser, "Touch your security key.")
    assert [c["id"].endswith("-proxy") for c in browser.ceremonies()[reached:]] == [True], browser.ceremonies()[reached:]
    window.click("Cancel")
    assert settled(browser)["name"] == "NotAllowedError"


def proxy_attached_again(browser) -> bool:
    """Waits until the background reports the proxy path serving again."""
    return browser.status_in_background_tab(until="s.proxy.state === 'attached'")


def test_always_for_this_site_lists_it_and_its_next_request_goes_below_at_once(browser):
    """Last in this module: the site stays listed for the rest of the session."""
    user = browser.new_user("always")
    start(browser, "register", username=user)
    window = window_offering_another_way(browser, "Touch your security key.")
    box = window.evaluate("(() => { const r = document.getElementById('always').getBoundingClientRect();"
                          " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    window.click_at(*box)
    window.wait_for("document.getElementById('always').checked === true")
    window.click(BUTTON)
    assert settled(browser).get("ok")
    PromptWindow.wait_gone(browser.browser)
    # The site is on the per-site list now: no window, nothing at the host, the browser's own answers at once.
    reached = len(browser.ceremonies())
    signed_in = browser.call(f"rp.signIn({json.dumps({'username': user})})")
    assert signed_in.get("ok") and signed_in["verdict"]["verified"] is True, signed_in
    assert browser.ceremonies()[reached:] == [], "a listed site's request reached the host"
    assert not PromptWindow.is_open(browser.browser)
