"""Another extension beside the bridge, and pages, trying to reach what only the bridge's own parts may
(docs/security.md): the stand-in `standin-intruder/` holds the "nativeMessaging" and "tabs" permissions and runs its
probes from a page of its own (`probe.js`); with "scripting" and `<all_urls>` it may script and capture what it can.

- The host: its manifest names only the bridge's id (`allowed_origins` / `allowed_extensions`), so the browser
  refuses another extension's `connectNative`, before any host starts for it.
- The background: it listens to no other extension (no onMessageExternal/onConnectExternal), so a message or a port
  to the bridge's id, under the security-key window's port name too, finds no one.
- The security-key window: "tabs" lets the stand-in read the window's URL, token included, and both browsers let it
  open that URL in a window of its own; the copy is refused (prompt-window.js takes the page's port only from the
  window it opened), a real click in it does nothing, and the real window still serves the request.
- The security-key window navigated by the stand-in to a page of its own (a look-alike that could ask for the PIN)
  goes at once, and its request ends as cancelled.
- The Security keys page: a page can neither frame nor open it (not web-accessible), so it opens no key-management
  connection; the one the stand-in opens in a window (both browsers allow it) is the only one the host serves; it
  can run no script in that page; Firefox lets it capture it (`tabs.captureVisibleTab`), Chromium does not.

The SoftToken takes a touch only when the test gives one (`--presence signal`): the window waits while the test acts.
"""
import json
import time
from pathlib import Path

import pytest

from harness import extension_page
from harness.paths import extension_dir
from harness.prompt_window import PAGE_PATH, PromptWindow
from harness.session import BrowserSession

BROWSERS = ("chromium", "firefox")
INTRUDER = Path(__file__).resolve().parent / "standin-intruder"
INTRUDER_IDS = {"chromium": "cibdpboagpgcjmjebfndhfjbbppplhcg",   # from the `key` in its manifest
                "firefox": "standin-intruder@webauthn-bridge.test"}
KEYS_PATH = "/keys/keys.html"
KEY_MANAGEMENT_LINE = "this connection serves key management"


@pytest.fixture(scope="module", params=BROWSERS)
def beside(request, host, rp_server):
    session = BrowserSession(request.param, host, rp_server.origin, token_args=("--presence", "signal"),
                             others=(INTRUDER,))
    session.timed = False
    probe = extension_page.find(session.browser, "/probe.html", timeout=30)
    session.browser.activate(session.front_tab)
    yield session, probe
    session.close()


def bridge_id(session) -> str:
    return ((extension_dir() / "chromium-id.txt").read_text().strip() if session.kind == "chromium"
            else "webauthn-bridge@webauthn-bridge")


def run(probe, call: str, timeout: float = 20):
    """The value of probes.<call> in the stand-in's page, once its promise settles."""
    probe.evaluate(f"(window.answer = undefined, probes.{call}.then((v) => {{ window.answer = v; }}), true)")
    return probe.wait_for("window.answer", timeout=timeout)


def touch(session) -> None:
    Path(f"{session.token}.touch").touch()


def key_management_lines(session) -> list[str]:
    text = session.host_log.read_text(errors="replace") if session.host_log.exists() else ""
    return [line for line in text.splitlines() if KEY_MANAGEMENT_LINE in line]


def test_another_extension_reaches_neither_the_host_nor_the_background(beside):
    session, probe = beside
    ours = bridge_id(session)
    native = run(probe, "native({id: 'k1', type: 'manage'})")
    assert native.get("disconnected") and "message" not in native, native
    # The browser refused before starting a host: none was started (or refused) for the stand-in's id.
    assert INTRUDER_IDS[session.kind] not in session.host_log.read_text(errors="replace"), session.diagnostics()
    message = run(probe, f"message({json.dumps(ours)}, {{kind: 'bridge-status', refresh: true}})")
    assert "error" in message and "response" not in message, message
    for name, first in (("webauthn-bridge-prompt", {"kind": "select", "index": 0}),
                        ("webauthn-bridge", {"kind": "request", "rid": "a", "type": "get", "options": {}})):
        port = run(probe, f"connect({json.dumps(ours)}, {json.dumps(name)}, {json.dumps(first)})")
        assert port.get("disconnected") and "message" not in port, (name, port)


def other_prompt_page(session, window: PromptWindow, timeout: float = 15) -> PromptWindow:
    """A page at the security-key window's URL other than `window`'s own."""
    browser = session.browser
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if browser.name == "chromium":
            for target in browser.conn.call("Target.getTargets")["targetInfos"]:
                if target["type"] == "page" and PAGE_PATH in target["url"] and target["targetId"] != window.target_id:
                    attached = browser.conn.call("Target.attachToTarget",
                                                 {"targetId": target["targetId"], "flatten": True})
                    copy = type(window)(browser, attached["sessionId"], target["url"])
                    copy.target_id = target["targetId"]
                    return copy
        else:
            for context in browser.conn.call("browsingContext.getTree", {"maxDepth": 0})["contexts"]:
                if PAGE_PATH in context["url"] and context["context"] != window.handle:
                    return type(window)(browser, context["context"], context["url"])
        time.sleep(0.05)
    raise AssertionError(f"no copy of the security-key window's page within {timeout} s\n{session.diagnostics()}")


def register_until_touch(session, name):
    """A registration the user pressed for, held at "touch your key"; its result lands in `window.made`."""
    session.press_in_page()
    session.call(f"(window.made = undefined, rp.register({json.dumps({'username': session.new_user(name)})})"
                 ".then((r) => { window.made = r; }), true)")
    window = PromptWindow.wait(session.browser)
    window.wait_for("document.getElementById('text').textContent === 'Touch your security key.'")
    return window


def test_a_copy_of_the_security_key_window_another_extension_opens_gets_nothing_and_its_click_does_nothing(beside):
    session, probe = beside
    window = register_until_touch(session, 'copied')
    stolen = [t["url"] for t in run(probe, "tabs()") if PAGE_PATH in t["url"]]
    assert len(stolen) == 1 and "?w=" in stolen[0], stolen   # "tabs" reads the window's URL, token and all
    opened = run(probe, f"open({json.dumps(stolen[0])}, true)")
    assert "windowId" in opened, opened   # the browser let the stand-in open it in a window of its own
    copy = other_prompt_page(session, window)
    copy.wait_for("document.documentElement.dataset.port === 'closed'")
    assert "localhost" not in copy.text(), copy.text()   # no view reached it
    copy.click("Cancel")   # the user's real click in the copy
    copy.close()
    # The real window still has the request: the touch registers, verified by the RP.
    window.wait_for("document.getElementById('text').textContent === 'Touch your security key.'")
    touch(session)
    assert session.browser.wait_for("window.made !== undefined", timeout=30), session.diagnostics()
    made = session.call("window.made")
    assert made.get("ok") and made["verdict"]["verified"], (made, session.diagnostics())
    PromptWindow.wait_gone(session.browser)


def test_a_security_key_window_another_extension_navigates_away_goes_and_its_request_is_cancelled(beside):
    session, probe = beside
    window = register_until_touch(session, 'navigated')
    tab = next(t for t in run(probe, "tabs()") if PAGE_PATH in t["url"])
    # A look-alike of the stand-in's in the window the user expects the bridge's in (tabs.update needs no permission).
    navigated = run(probe, f"navigate({tab['id']}, {json.dumps(session.site_origin + '/index.html?look-alike')})")
    assert "error" not in navigated, navigated
    assert session.browser.wait_for("window.made !== undefined", timeout=30), session.diagnostics()
    assert session.call("window.made.name") == "NotAllowedError", session.call("window.made")
    deadline = time.monotonic() + 10
    while "error" not in (left := run(probe, f"tab({tab['id']})")):   # tabs.get fails once the window is gone
        assert time.monotonic() < deadline, f"the navigated window stayed: {left}"
        time.sleep(0.05)


def extension_base(session) -> str:
    """The bridge's base URL (chrome-extension://ID/ or moz-extension://UUID/). Firefox's UUID is random per profile:
    read from the security-key window of a registration."""
    if session.kind == "chromium":
        return f"chrome-extension://{bridge_id(session)}/"
    session.press_in_page()
    session.call(f"(window.made = undefined, rp.register({json.dumps({'username': session.new_user('base')})})"
                 ".then((r) => { window.made = r; }), true)")
    window = PromptWindow.wait(session.browser)
    base = window.url.split(PAGE_PATH[1:])[0]
    window.wait_for("document.getElementById('text').textContent === 'Touch your security key.'")
    touch(session)
    assert session.browser.wait_for("window.made !== undefined", timeout=30), session.diagnostics()
    assert session.call("window.made.ok"), (session.call("window.made"), session.diagnostics())
    PromptWindow.wait_gone(session.browser)
    return base


def frame_urls_once_loaded(session, timeout: float = 10) -> list[str]:
    """Chromium: the URLs of the front tab's frames, once the frame the page added has committed a document."""
    deadline = time.monotonic() + timeout
    while True:
        tree = session.browser.call("Page.getFrameTree")["frameTree"]
        urls = [f["frame"]["url"] for f in tree.get("childFrames", [])]
        if urls and all(url not in ("", "about:blank") for url in urls) or time.monotonic() > deadline:
            return urls
        time.sleep(0.05)


def test_a_page_can_neither_frame_nor_open_the_security_keys_page(beside):
    session, probe = beside
    base = extension_base(session)
    keys = base + KEYS_PATH[1:]
    assert key_management_lines(session) == []
    opened = session.call(f"""(() => {{
      const frame = document.createElement('iframe');
      frame.src = {json.dumps(keys)};
      document.body.append(frame);
      try {{ return window.open({json.dumps(keys)}, '_blank') ? 'a window' : 'null'; }}
      catch (e) {{ return String(e); }}
    }})()""")
    if session.kind == "firefox":
        assert "denied" in opened, opened
    else:
        # Chromium opens the window, on its error page (ERR_BLOCKED_BY_CLIENT), and puts one in the frame too.
        assert frame_urls_once_loaded(session) == ["chrome-error://chromewebdata/"]
    # The stand-in opens the page in a window of its own, as both browsers let it (as Chromium lets it open its own
    # chrome://settings/securityKeys): the one key-management connection the host sees (a page of ours the page had
    # framed or opened would have opened its own before).
    opened = run(probe, f"open({json.dumps(keys)}, true)")
    session.wait_for_log(lambda: key_management_lines(session), "the Security keys page's connection")
    assert len(key_management_lines(session)) == 1, key_management_lines(session)
    # It can run no script in the page; Chromium refuses it a screenshot too, Firefox gives one to an extension
    # holding <all_urls> (docs/security.md, "What the bridge cannot defend").
    assert "error" in run(probe, f"script({opened['tabId']})")
    captured = run(probe, f"capture({opened['windowId']})")
    assert ("error" in captured) == (session.kind == "chromium"), captured
