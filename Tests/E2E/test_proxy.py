"""Chromium's proxy path (issue 17, docs/extension.md "Chromium's proxy path"): what only this path has.

- Which path served shows on the options page (and in the host log: proxied ids end in -proxy, checked by every
  BrowserSession.rp() ceremony of the suite).
- A call the page script never saw (an about:blank frame's navigator.credentials, which no content script
  patches), made while the proxy is attached for another tab's request, is proxied: served as the focused tab's
  document when its origin is that tab's, refused with Chromium's focus message when the focused tab shows another
  origin, and nothing reaches the host then. (While nothing needs the proxy, Chromium's own takes such a call.)
- The options page's switch detaches the proxy (the page path serves again) and attaches it back; listing a
  site for the browser's own WebAuthn detaches it too, and that site's request lands in Chromium's own
  authenticator (a DevTools virtual one), not at the host.
"""
import json
import re
from contextlib import contextmanager

import pytest

from harness.paths import extension_dir
from harness.session import BrowserSession

NO_FOCUS = ("NotAllowedError", "The operation is not allowed at this time because the page does not have focus.")

# get() from a fresh about:blank frame: its navigator.credentials is Chromium's own (no content script there).
UNPATCHED_SIGN_IN = """(async (options) => {
  const decode = (t) => Uint8Array.from(atob(t.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  const frame = document.createElement('iframe');
  document.body.append(frame);
  const creds = frame.contentWindow.navigator.credentials;
  const patched = creds.get.__webauthnBridge === true;
  const publicKey = { ...options, challenge: decode(options.challenge),
                      allowCredentials: options.allowCredentials.map((c) => ({ ...c, id: decode(c.id) })) };
  try {
    const credential = await creds.get({ publicKey });
    return { ok: true, patched, credential: credential.toJSON() };
  } catch (error) {
    return { ok: false, patched, name: error.name, message: error.message };
  } finally {
    frame.remove();
  }
})"""


@pytest.fixture(scope="module")
def proxied(host, rp_server):
    session = BrowserSession("chromium", host, rp_server.origin, path="proxy")
    session.timed = False   # switches paths and authenticators: not for the timing summary
    yield session
    session.close()


def registered_user(session, rp_server, name: str) -> tuple[str, dict]:
    user = session.new_user(name)
    made = session.rp("register", username=user)
    assert made.get("ok") and made["verdict"]["verified"], made
    return user, rp_server.rp.authentication_options({"username": user})


def options_page_line(session) -> str:
    ext_id = (extension_dir() / "chromium-id.txt").read_text().strip()
    session.browser.open(f"chrome-extension://{ext_id}/options/options.html")
    assert session.browser.wait_for("document.getElementById('path').textContent.includes('so far')", timeout=10)
    return session.call("document.getElementById('path').textContent + ' | ' + document.getElementById('proxy').checked")


def test_the_options_page_says_which_path_serves(proxied, rp_server):
    registered_user(proxied, rp_server, "shown")
    line = options_page_line(proxied)
    assert line.startswith("Requests are served through Chromium's WebAuthn proxy."), line
    assert line.endswith("| true"), line
    served = int(line.split("so far: ")[1].split(".")[0])
    assert served >= 1, line
    proxied.open("/index.html")


@contextmanager
def attached_for_a_held_request(session, user: str):
    """Chromium's proxy attached for the while: a sign-in in a background tab, proxied and held for its tab (the
    proxy is attached only while a request needs it). Closing the tab ends it."""
    tab = session.browser.new_tab(background=True)
    try:
        with session.browser.in_tab(tab):
            session.open("/index.html")
            session.call(f"(window.held = rp.signIn({json.dumps({'username': user})}), true)")
        assert proxy_attached_now(session, True), "the held request has the proxy attached"
        yield
    finally:
        session.browser.close_tab(tab)
        session.browser.activate(session.front_tab)
    assert proxy_attached_now(session, False), "detached once nothing needs it"


def proxy_attached_now(session, attached: bool) -> bool:
    """Waits until the background says Chromium's proxy is attached now (or not)."""
    return session.status_in_background_tab(until=f"s.proxy.attachedNow === {json.dumps(attached)}")


def test_a_call_the_page_script_never_saw_is_served_as_the_focused_tab(proxied, rp_server):
    """While the proxy is attached (for another tab's request); while nothing needs it, Chromium's own takes such a
    call (test_proxy_autofill.py)."""
    user, options = registered_user(proxied, rp_server, "blank")
    seen = len(proxied.ceremonies())
    with attached_for_a_held_request(proxied, user):
        result = proxied.call(f"{UNPATCHED_SIGN_IN}({json.dumps(options)})")
    assert result["patched"] is False, "the about:blank frame must be one no content script reached"
    assert result.get("ok"), result
    verdict = rp_server.rp.verify_authentication(result["credential"], proxied.site_origin)
    assert verdict["verified"] and verdict["username"] == user
    new = [c for c in proxied.ceremonies()[seen:] if c["type"] == "get"]
    assert len(new) == 1 and new[0]["id"].endswith("-proxy"), new


def test_an_unannounced_call_from_a_tab_of_another_origin_than_the_focused_one_reaches_nothing(proxied, rp_server):
    """The proxy event names no tab: an unannounced call is the focused tab's only if that tab shows its origin
    (a background tab of the same origin cannot be told apart: docs/extension.md)."""
    user, options = registered_user(proxied, rp_server, "hidden")
    seen = len(proxied.ceremonies())
    with attached_for_a_held_request(proxied, user):
        proxied.browser.open(rp_server.frame_origin + "/index.html")   # the focused tab: another origin
        with proxied.second_tab("/index.html", background=True):
            result = proxied.call(f"{UNPATCHED_SIGN_IN}({json.dumps(options)})")
    proxied.open("/index.html")
    assert result["patched"] is False
    assert (result.get("name"), result.get("message")) == NO_FOCUS, result
    assert proxied.ceremonies()[seen:] == []


def test_the_switch_detaches_the_proxy_and_a_listed_site_leaves_it_attached(proxied, rp_server):
    proxied.choose_path("page", expect_attached=False)
    proxied.open("/index.html")
    registered_user(proxied, rp_server, "switched")
    assert proxied.ceremonies()[-1]["id"].endswith("-proxy") is False, proxied.ceremonies()[-1]["line"]
    proxied.choose_path("proxy", expect_attached=True)

    # A listed site: the proxy stays attached for every other site (the listed site's calls are handed back to
    # Chromium's own one by one, proxy.js), and the listed site's request lands in Chromium's own authenticator.
    ext_id = (extension_dir() / "chromium-id.txt").read_text().strip()
    proxied.browser.open(f"chrome-extension://{ext_id}/options/options.html")
    proxied.call("chrome.storage.local.set({browserSites: ['localhost']})")
    assert proxied.browser.wait_for("chrome.runtime.sendMessage({kind: 'bridge-status'}).then((s) => "
                                    "s.proxy.state === 'attached')", timeout=20)
    proxied.browser.add_virtual_authenticator()
    proxied.open("/index.html")
    seen = len(proxied.ceremonies())
    made = proxied.call(f"rp.register({json.dumps({'username': proxied.new_user('listed')})})")
    assert made.get("ok") and made["verdict"]["verified"], made
    assert proxied.ceremonies()[seen:] == [], "a listed site's request must not reach the host"

    proxied.browser.open(f"chrome-extension://{ext_id}/options/options.html")
    proxied.call("chrome.storage.local.set({browserSites: []})")
    proxied.choose_path("proxy", expect_attached=True)


def test_the_options_page_says_one_thing_about_the_host_in_the_popups_words(proxied):
    """The host line is the popup's (popup/view.js hostSummary) and follows the host while the page is open; no line
    lower down says the host is not connected beside it; a SoftToken is not called a software token twice."""
    ext_id = (extension_dir() / "chromium-id.txt").read_text().strip()
    proxied.browser.open(f"chrome-extension://{ext_id}/options/options.html")
    assert proxied.browser.wait_for("document.getElementById('host').dataset.state === 'connected'", timeout=10)
    host = proxied.call("document.getElementById('host').textContent")
    assert re.match(r"On: Host \d+\.\d+\.\d+ · libfido2 1\.", host), host
    page = proxied.call("document.body.innerText")
    assert "not connected" not in page, page
    keys = proxied.call("[...document.querySelectorAll('#details li')].map((li) => li.textContent)")
    key_line = next(line for line in keys if line.startswith("Keys: "))
    assert key_line.lower().count("software token") == 1, key_line
