"""Chromium's proxy path shared by tabs (docs/extension.md, "Chromium's proxy path"): a request handed back in one tab
must not break another tab's proxied request. Handing a request back detaches the proxy, and Chromium's detach()
ends every proxied call still pending with AbortError; the bridge ends the other tabs' calls first with a name only
their page scripts know, and they call again once the proxy is attached again.

The SoftToken takes a touch only when the test gives one (`--presence signal`: FILE.touch is one touch), so every
request waits at the host for as long as the test needs, and every wait is on an event.
"""
import json
import time
from pathlib import Path

import pytest

from harness.prompt_window import PromptWindow
from harness.session import BrowserSession
from test_another_way import ARMED, BUTTON, b64url_of_b64, window_offering_another_way


@pytest.fixture(scope="module")
def proxied(host, rp_server):
    session = BrowserSession("chromium", host, rp_server.origin, path="proxy", token_args=("--presence", "signal"))
    session.timed = False
    yield session
    session.close()


def a_window_other_than(session, window: PromptWindow, timeout: float = 15) -> PromptWindow:
    """The security-key window that opened after `window` (which closes with its request)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = PromptWindow.find(session.browser)
        if found and found.identity != window.identity:   # not the handle: each find() attaches a session of its own
            return found
        time.sleep(0.05)
    raise AssertionError(f"no new security-key window within {timeout} s\n{session.diagnostics()}")


def touch(session) -> None:
    Path(f"{session.token}.touch").touch()


def test_a_request_handed_back_in_one_tab_leaves_another_tabs_request_to_complete(proxied, rp_server):
    session = proxied
    seen = len(session.ceremonies())
    # Tab B (the front tab): a registration at the host, through the proxy, waiting for a touch.
    session.press_in_page()
    session.call(f"(window.bState = 'pending', window.pendingCall = rp.register({json.dumps({'username': session.new_user('tab-b')})})"
                 ".then((r) => { window.bState = JSON.stringify(r); return r; }), true)")
    first = session.wait_for_log(lambda: session.ceremonies()[seen:], "tab B's create at the host")[0]
    assert first["id"].endswith("-proxy"), first
    b_window = window_offering_another_way(session, "Touch your security key.")

    # Tab A: the user opens a tab and registers there; B's request is cancelled at the host and held for its tab.
    tab_a = session.browser.new_tab(background=False)
    authenticator = None
    try:
        with session.browser.in_tab(tab_a):
            session.open("/index.html")
            reached = len(session.ceremonies())
            session.press_in_page()
            session.call(f"(window.pendingCall = rp.register({json.dumps({'username': session.new_user('tab-a')})}), true)")
            session.wait_for_log(lambda: [e for e in session.ended() if e["id"] == first["id"]], "tab B's create let go")
            session.wait_for_log(lambda: session.ceremonies()[reached:], "tab A's create at the host")
            window = a_window_other_than(session, b_window)
            window.wait_for("document.getElementById('text').innerText === 'Touch your security key.'")
            window.wait_for(ARMED)
            # Only now: a tab with a DevTools authenticator is served by it, never proxied.
            authenticator = session.browser.add_virtual_authenticator()
            window.click(BUTTON)
            handed = session.call("window.pendingCall", timeout=60)
            assert handed.get("ok") and handed["verdict"]["verified"] is True, handed
            own = session.browser.call("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
            assert handed["verdict"]["credentialId"] in [b64url_of_b64(c["credentialId"]) for c in own], \
                "tab A was served by Chromium's own"
            with session.browser.in_tab(session.front_tab):
                assert session.call("window.bState") == "pending", "tab B's request must not end with the hand-back"
    finally:
        with session.browser.in_tab(tab_a):
            if authenticator:
                session.browser.call("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator})
                session.browser.call("WebAuthn.disable")
        session.browser.close_tab(tab_a)
        session.browser.activate(session.front_tab)

    # Back in tab B: its request goes to the host again (the first ceremony after A's), through the proxy, and the
    # touch completes it.
    resent = session.wait_for_log(lambda: session.ceremonies()[reached + 1:], "tab B's create at the host again",
                                  timeout=30)[0]
    assert resent["id"].endswith("-proxy") and resent["id"] != first["id"], resent
    touch(session)
    registered = session.call("window.pendingCall", timeout=60)
    assert registered.get("ok") and registered["verdict"]["verified"] is True, registered
    ended = [e for e in session.ended() if e["id"] == resent["id"]]
    assert [e["outcome"] for e in ended] == ["ok"], ended
