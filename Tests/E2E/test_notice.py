"""The in-page notice and account chooser, in Chromium, as a user meets them: "Touch your security key." while the
key waits for a touch, gone once the ceremony ends, and a chooser listing every discoverable account whose button,
clicked with the mouse, signs in that account.

They live in a closed shadow root, which page scripts cannot reach; DevTools can (DOM.getDocument with pierce),
and the click is a real mouse event at the button's position. Firefox is left out: WebDriver BiDi does not see
into closed shadow roots.
"""
import json
import time

import pytest

from harness.session import BrowserSession

NOTICE = "WEBAUTHN-BRIDGE-NOTICE"


@pytest.fixture(scope="module")
def chromium(host, rp_server):
    # The key waits 1.5 s for its "touch": long enough to see the notice.
    session = BrowserSession("chromium", host, rp_server.origin, token_args=("--presence", "delay:1500"))
    yield session
    session.close()


@pytest.fixture(scope="module")
def chromium_uv(host, rp_server):
    # A key with built-in UV: CTAP 2.1 lets a key return account names only after user verification; without
    # it the chooser can only say "Unnamed account" (Chromium says "Unknown account").
    session = BrowserSession("chromium", host, rp_server.origin, token_args=("--uv",))
    yield session
    session.close()


def notice_nodes(session) -> list[dict]:
    """Every node inside the notice's shadow root (empty when there is no notice)."""
    document = session.browser.call("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
    found: list[dict] = []

    def walk(node, inside):
        if inside:
            found.append(node)
        for shadow in node.get("shadowRoots", []):
            walk(shadow, inside or node.get("nodeName") == NOTICE)
        for child in node.get("children", []):
            walk(child, inside)

    walk(document, False)
    return found


def text_of(node) -> str:
    if node.get("nodeType") == 3:
        return node.get("nodeValue", "")
    return "".join(text_of(child) for child in node.get("children", []))


def notice_text(session) -> str:
    return " ".join(text_of(n) for n in notice_nodes(session) if n.get("nodeName") == "P")


def wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not seen in {timeout} s: {what}")


def start(session, function: str, **args) -> None:
    """Starts window.rp.<function>(args) without waiting; its result lands in window.__e2eResult."""
    session.call(f"(window.__e2eResult = undefined, rp.{function}({json.dumps(args)}).then((r) => {{ window.__e2eResult = r; }}), true)")


def result(session, timeout: float = 20) -> dict:
    assert session.browser.wait_for("window.__e2eResult !== undefined", timeout=timeout), "the ceremony did not settle"
    return session.call("window.__e2eResult")


def click(session, node: dict) -> None:
    quad = session.browser.call("DOM.getBoxModel", {"nodeId": node["nodeId"]})["model"]["content"]
    x, y = sum(quad[0::2]) / 4, sum(quad[1::2]) / 4
    for kind in ("mousePressed", "mouseReleased"):
        session.browser.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})


def test_touch_notice_shows_while_the_key_waits_and_goes_after(chromium):
    start(chromium, "register", username=chromium.new_user("notice"))
    text = wait_until(lambda: notice_text(chromium), 10, "the notice")
    assert "Touch your security key." in text, text
    assert chromium.site_origin.split("//")[1] in text, "the notice names the site"
    registered = result(chromium)
    assert registered.get("ok") and registered["verdict"]["verified"], registered
    wait_until(lambda: not notice_nodes(chromium), 5, "the notice gone after the ceremony")


def test_account_chooser_lists_every_account_and_the_clicked_one_signs_in(chromium_uv):
    chromium = chromium_uv
    users = [chromium.new_user("chooser") for _ in range(2)]
    for user in users:
        registered = chromium.rp("register", username=user, residentKey="required")
        assert registered.get("ok") and registered["verdict"]["verified"], registered
    # No username: discoverable credentials, so the key offers both accounts; UV preferred, so it names them.
    start(chromium, "signIn", userVerification="preferred")

    def buttons():
        return [n for n in notice_nodes(chromium) if n.get("nodeName") == "BUTTON" and any(u in text_of(n) for u in users)]

    try:
        wait_until(lambda: len(buttons()) == 2, 15, "a chooser with both accounts")
    except AssertionError as error:
        raise AssertionError(f"{error}; notice: {notice_text(chromium)!r}; buttons: "
                             f"{[text_of(n) for n in notice_nodes(chromium) if n.get('nodeName') == 'BUTTON']}") from None
    assert "Choose an account to sign in with." in notice_text(chromium)
    # Node ids last until the next DOM.getDocument: look the buttons up again right before the click.
    chosen = next(b for b in buttons() if users[1] in text_of(b))
    click(chromium, chosen)
    signed_in = result(chromium)
    assert signed_in.get("ok") and signed_in["verdict"]["verified"], signed_in
    assert signed_in["verdict"]["username"] == users[1]
    wait_until(lambda: not notice_nodes(chromium), 5, "the chooser gone after the ceremony")
