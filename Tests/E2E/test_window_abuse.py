"""What a hostile page can do to the security-key window from outside it (test_notice.py covers what it cannot
see): put its own words in it, pop it up again and again, and have a key the user holds down answer its chooser.

Chromium's own dialog shows only what the browser knows (the rp.id and the origin), is tab-modal and never takes
the focus from another application, and drops repeated key events and input that comes too soon after it shows;
the bridge's window must hold the same line, in both browsers and on Chromium's proxy path.
"""
import json
import time

import pytest

from harness.prompt_window import PromptWindow, windows_opened_during
from harness.protocol import ProtocolError
# The sessions (a key that waits for its touch; one with built-in UV, for the chooser) and the helpers that start
# a ceremony and wait for its result, as test_notice.py has them.
from test_notice import chooser, result, start, waiting  # noqa: F401 (fixtures)

LOOP_SECONDS = 12
# What a page titled with a right-to-left override shows: "Asked by https://accounts.google.com".
SPOOF_TITLE = "\u202e" + "Asked by https://accounts.google.com"[::-1]
# Bidirectional and invisible format characters: none may reach the window from a page.
FORMAT_CHARACTERS = "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"


def test_the_window_shows_no_text_the_page_chose(waiting):
    session = waiting
    session.open("/index.html")
    session.call(f"(document.title = {json.dumps(SPOOF_TITLE)}, true)")
    start(session, "register", username=session.new_user("title"))
    window = PromptWindow.wait(session.browser)
    window.wait_for("document.getElementById('text').textContent === 'Touch your security key.'")
    text = window.text() + window.evaluate("document.title")
    assert f"Asked by {session.site_origin}" in text, text
    assert not set(text) & set(FORMAT_CHARACTERS), f"format characters from the page in the window: {text!r}"
    assert "accounts.google.com" not in text and "moc.elgoog" not in text, f"the page's title is in the window: {text!r}"
    window.close()
    outcome = result(session)
    assert outcome.get("name") == "NotAllowedError", outcome


LOOP_JS = """(window.__loop = (async () => {
  // A page that asks, aborts and asks again, for LOOP_SECONDS, as fast as the bridge answers.
  const end = performance.now() + %d * 1000;
  let requests = 0;
  while (performance.now() < end) {
    const controller = new AbortController();
    const challenge = crypto.getRandomValues(new Uint8Array(32));
    const asked = navigator.credentials.get({ publicKey: { challenge, timeout: 60000 }, signal: controller.signal });
    requests++;
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    await asked.catch(() => {});
  }
  return { requests };
})(), true)""" % LOOP_SECONDS


def test_a_page_looping_get_and_abort_gets_at_most_two_windows_and_takes_no_focus(waiting):
    session = waiting
    session.open("/index.html")
    focused = {}   # window URL → whether its document had the focus when seen

    def loop():
        session.call(LOOP_JS)
        deadline = time.monotonic() + LOOP_SECONDS + 30
        while session.call("Promise.race([window.__loop, new Promise((r) => setTimeout(() => r(null), 100))])") is None:
            assert time.monotonic() < deadline, "the page's loop did not end"
            try:
                window = PromptWindow.find(session.browser)
                focused[window.url] = focused.get(window.url, False) or window.evaluate("document.hasFocus()")
            except (AttributeError, RuntimeError, ProtocolError):
                pass   # no window, or it closed while being read

    opened = windows_opened_during(session.browser, loop)
    requests = session.call("window.__loop")["requests"]
    PromptWindow.wait_gone(session.browser, timeout=15)
    assert requests >= 20, requests
    prompts = [url for url in opened if "/prompt/prompt.html" in url]
    assert len(prompts) <= 2, f"{len(prompts)} security-key windows for {requests} requests of one page"
    assert not any(focused.values()), f"a security-key window took the focus: {focused}"


def hold_on_a_new_chooser(session, key: str) -> PromptWindow:
    """Starts a discoverable sign-in and holds `key` down from before its chooser takes input until well after:
    the keyboard repeats it meanwhile. Returns the window, chooser still open unless the key chose."""
    for _ in range(3):
        start(session, "signIn", userVerification="preferred")
        window = PromptWindow.wait(session.browser)
        # The sign-in's own window: not one closing with a registration above (wait_for follows it to this one).
        window.wait_for("document.body !== null && document.body.innerText.includes('Sign in to')")
        if window.evaluate("document.documentElement && document.documentElement.dataset.chooser || ''") != "armed":
            window.hold(key, seconds=1.5)
            return window
        window.press("Escape")   # found too late to press before the guard: again
        assert result(session).get("name") == "NotAllowedError"
        PromptWindow.wait_gone(session.browser)
    raise AssertionError("the chooser always took input before the test could press a key")


@pytest.mark.parametrize("key", ["Enter", " "])
def test_a_key_held_down_before_the_chooser_showed_chooses_nothing(chooser, key):
    session = chooser
    users = [session.new_user("held") for _ in range(2)]
    for user in users:
        registered = session.rp("register", username=user, residentKey="required")
        assert registered.get("ok") and registered["verdict"]["verified"], registered
    PromptWindow.wait_gone(session.browser)   # see test_notice.py's chooser test

    window = hold_on_a_new_chooser(session, key)
    window.wait_for("document.documentElement.dataset.chooser === 'armed'")
    assert session.call("window.__e2eResult === undefined"), f"the held {key!r} chose: {session.call('window.__e2eResult')}"
    assert window.evaluate("document.querySelectorAll('#accounts button').length") >= 2, window.text()
    # A fresh press, after the guard, is the user's choice.
    window.press("Enter")
    signed_in = result(session)
    assert signed_in.get("ok") and signed_in["verdict"]["verified"], signed_in
    PromptWindow.wait_gone(session.browser)
