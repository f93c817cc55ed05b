"""The toolbar popup (extension/popup/): after real ceremonies it shows the host serving, the SoftToken the host
sees with what it can do, and the requests with their outcomes, newest first.

A headless browser has no toolbar to click: the popup's page is opened in a tab. Chromium: the test navigates to
chrome-extension://<id>/popup/popup.html (the id follows from the manifest's key). Firefox: WebDriver BiDi may not
navigate a tab to a moz-extension:// URL ("not allowed in this context"), so the extension opens it: the
security-key window, an extension page that stays open to say why a registration failed, runs tabs.create, and
the test reads the new tab's context.
"""
import json
import re
import time

from harness.paths import extension_dir
from harness.prompt_window import FirefoxPromptWindow, PromptWindow

POPUP_PATH = "popup/popup.html"
READ_POPUP = """({
  state: document.getElementById('state').dataset.state,
  host: document.getElementById('host').textContent,
  keys: [...document.querySelectorAll('#keys li')].map((li) => ({
    name: li.querySelector('.primary') ? li.querySelector('.primary').textContent : li.textContent,
    what: li.querySelector('.secondary') ? li.querySelector('.secondary').textContent : '',
    can: li.querySelector('.note') ? li.querySelector('.note').textContent : '' })),
  requests: [...document.querySelectorAll('#requests li')].map((li) => ({
    what: li.querySelector('.primary') ? li.querySelector('.primary').textContent : li.textContent,
    outcome: li.querySelector('.outcome') ? li.querySelector('.outcome').textContent : '',
    tone: li.querySelector('.outcome') ? li.querySelector('.outcome').dataset.outcome : '',
    time: li.querySelector('.time') ? li.querySelector('.time').textContent : '' })),
  options: document.getElementById('options').href,
})"""


class FrontTab:
    """The session's own tab, read like a window of harness/prompt_window.py."""

    def __init__(self, session):
        self.session = session

    def evaluate(self, expression: str):
        return self.session.call(expression)

    def wait_for(self, expression: str, timeout: float):
        return self.session.browser.wait_for(expression, timeout=timeout)


def firefox_popup_context(browser, timeout: float = 10) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        contexts = browser.conn.call("browsingContext.getTree", {"maxDepth": 0})["contexts"]
        found = [c for c in contexts if c["url"].startswith("moz-extension://") and c["url"].endswith(POPUP_PATH)]
        if found:
            return found[0]
        assert time.monotonic() < deadline, f"the popup's tab did not open: {[c['url'] for c in contexts]}"
        time.sleep(0.05)


def open_popup(session, window: PromptWindow):
    """The popup's page in a tab, read through evaluate() and wait_for()."""
    if session.kind == "chromium":
        ext_id = (extension_dir() / "chromium-id.txt").read_text().strip()
        session.browser.open(f"chrome-extension://{ext_id}/{POPUP_PATH}")
        return FrontTab(session)
    window.evaluate(f"(browser.tabs.create({{url: browser.runtime.getURL({json.dumps(POPUP_PATH)})}}), true)")
    context = firefox_popup_context(session.browser)
    return FirefoxPromptWindow(session.browser, context["context"], context["url"])


def read_popup(page) -> dict:
    # "fresh": the popup has shown the host's answer to a new `info` request, not only the background's state.
    assert page.wait_for("document.documentElement.dataset.view === 'fresh'", timeout=20), \
        "the popup never showed the host's fresh info"
    return page.evaluate(READ_POPUP)


def test_the_popup_lists_the_softtoken_and_each_request_with_its_outcome(browser, rp_server):
    site = rp_server.origin.split("://", 1)[1]
    user = browser.new_user("popup")
    made = browser.rp("register", username=user)
    assert made.get("ok") and made["verdict"]["verified"], made
    signed = browser.rp("signIn", username=user)
    assert signed.get("ok") and signed["verdict"]["verified"], signed
    refused = browser.rp("register", username=browser.new_user("popup-refused"), rpId="example.com")
    assert refused.get("name") == "SecurityError", refused

    # The same user again: the RP excludes the credential it has, InvalidStateError; the security-key window
    # opens to say why and stays until closed (an extension page: Firefox opens the popup's tab from it).
    excluded = browser.rp("register", username=user, excludeRegistered=True)
    assert excluded.get("name") == "InvalidStateError", excluded
    window = PromptWindow.wait(browser.browser)
    window.wait_for("document.body.className === 'error'")

    popup = read_popup(open_popup(browser, window))
    window.close()
    PromptWindow.wait_gone(browser.browser)
    browser.open("/index.html")

    assert popup["state"] == "connected", popup
    assert re.match(r"Host \d+\.\d+\.\d+ · libfido2 \d", popup["host"]), popup["host"]
    assert len(popup["keys"]) == 1, popup["keys"]
    assert popup["keys"][0]["name"].startswith("SoftToken"), popup["keys"]
    assert "software token" in popup["keys"][0]["name"], popup["keys"]    # the host's name for it says so
    # The ceremonies opened it: the host's capability line, as `webauthn-bridge devices` words it.
    assert re.fullmatch(r"CTAP 2\.1, passkeys, PIN (not )?set, PRF, largeBlob, ES256/EdDSA", popup["keys"][0]["can"]), \
        popup["keys"]

    # Newest first; only what the bridge decided: the trusted origin, the type, the outcome.
    newest = popup["requests"][:4]
    assert [(r["what"], r["tone"]) for r in newest] == [
        (f"Register · {site}", "error"), (f"Register · {site}", "error"), (f"Sign in · {site}", "ok"),
        (f"Register · {site}", "ok")], popup["requests"]
    # The bridge's own reason (the host's detail), which the page never got, not only the error's name.
    assert newest[0]["outcome"] == (
        "The security key already holds a credential registered with this site (InvalidStateError)"), newest[0]
    assert newest[1]["outcome"].endswith("(SecurityError)"), newest[1]
    assert [r["outcome"] for r in newest[2:]] == ["Signed in", "Registered"], newest
    assert all(re.fullmatch(r"\d\d:\d\d:\d\d", r["time"]) for r in newest), newest
    assert popup["options"].endswith("/options/options.html"), popup["options"]
