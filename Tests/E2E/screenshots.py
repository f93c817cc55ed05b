#!/usr/bin/env python3
"""Screenshots of the security-key window's states in headless Chromium and Firefox ESR, for docs/ui.md.

Not a test (scripts/test.sh does not run it): a tool to run after changing extension/prompt/. Usage, from the
repository: `WEBAUTHN_BRIDGE_HOST=.build/debug/webauthn-bridge python3 Tests/E2E/screenshots.py [docs/ui]`
(the Python packages of Tests/E2E/run.sh must be installed).

Faithful by construction: the window is the extension's own, opened the way a user meets it — a registration the
RP refuses (the key already holds the credential) leaves it open to say why — at the size the background gives
it. Each state is then drawn by the window's own view.js, given a stand-in view (what the background would send,
for the site example.com), the window fitted to it as its page does (window-size.js), and its viewport captured:
CDP Page.captureScreenshot (Chromium), WebDriver BiDi browsingContext.captureScreenshot (Firefox).
"""
import base64
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import extension_page  # noqa: E402
from harness.paths import REPO, extension_dir, host_binary  # noqa: E402
from harness.prompt_window import PromptWindow  # noqa: E402
from harness.rp_server import RPServer  # noqa: E402
from harness.session import BrowserSession  # noqa: E402

SIGN_IN = {"type": "get", "origin": "https://example.com", "topOrigin": "", "rpId": "example.com"}
REGISTER = {**SIGN_IN, "type": "create"}
ACCOUNTS = [{"name": "alice@example.com", "displayName": "Alice Martin"},
            {"name": "alice.work@example.com", "displayName": "Alice Martin (work)"},
            {"name": "bob@example.com", "displayName": "Bob Martin"}]

# file name → the view the background sends (background/prompt-window.js, view()).
STATES = {
    # anotherWay: the background offers "Use a phone, passkey manager or the browser's own" in these states.
    "insert-key": {"site": SIGN_IN, "status": "insert-key", "anotherWay": True},
    "touch": {"site": SIGN_IN, "status": "touch", "anotherWay": True},
    "register-touch": {"site": REGISTER, "status": "touch", "anotherWay": True},
    "pin": {"site": SIGN_IN, "status": "pin", "anotherWay": True},
    "pin-wrong": {"site": SIGN_IN, "status": "pin", "attemptsLeft": 2, "anotherWay": True},
    "set-pin": {"site": REGISTER, "status": "set-pin", "anotherWay": True},
    "uv": {"site": SIGN_IN, "status": "uv", "anotherWay": True},
    "select-key": {"site": SIGN_IN, "status": "select-key", "anotherWay": True},
    "key-unusable": {"site": SIGN_IN, "status": "key-unusable", "anotherWay": True,
                     "detail": "Your security key Yubico YubiKey OTP+FIDO+CCID is plugged in but cannot be used: "
                               "this account may not open /dev/hidraw3: the udev rule that gives your session "
                               "access to security keys is missing. Run `webauthn-bridge doctor` to find out how "
                               "to fix it."},
    "processing": {"site": SIGN_IN, "status": "processing"},
    "error": {"site": REGISTER, "status": "error", "final": True,
              "detail": "The security key already holds a credential registered with this site"},
    # A failure the user may try again (background/try-again.js): the page waits while the window offers Try again.
    "retry": {"site": SIGN_IN, "status": "error", "retry": True,
              "detail": "The security key has no credential for this site."},
    "select-account": {"site": SIGN_IN, "status": "select-account", "accounts": ACCOUNTS},
    # The key's refusal for want of room (protocol-constants.js errorDetails.keyStoreFull): the window offers the
    # Security keys page.
    "key-full": {"site": REGISTER, "status": "error", "final": True,
                 "detail": json.loads((REPO / "extension/common/protocol-constants.js").read_text()
                                      .split("export default ", 1)[1].rstrip().removesuffix(";"))
                 ["errorDetails"]["keyStoreFull"]},
}

# Draws one view with the page's own view.js, fits the window as prompt.js does, resolves after layout.
RENDER = """(async (view) => {
  const ext = globalThis.browser ?? globalThis.chrome;
  const { createPromptView } = await import('./view.js');
  const { contentHeight, fitToContent } = await import('./window-size.js');
  globalThis.galleryView ??= createPromptView(document, { postMessage() {} }, { now: () => performance.now() });
  const blank = { kind: 'view', detail: '', attemptsLeft: null, accounts: null, retry: false, final: false };
  globalThis.galleryView.render({ ...blank, ...view });
  await fitToContent(document, window, ext);   // as prompt.js does after each view
  await new Promise((done) => setTimeout(done, 300));   // the window's new size, and the next frames
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return [innerWidth, innerHeight, contentHeight(document)];
})(%s)"""


def evaluate_awaited(window, expression: str):
    browser = window.browser
    if browser.name == "chromium":
        result = browser.conn.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                        "returnByValue": True}, session=window.handle)
        assert "exceptionDetails" not in result, result
        return result["result"]["value"]
    result = browser.conn.call("script.evaluate", {"expression": expression, "target": {"context": window.handle},
                                                   "awaitPromise": True, "resultOwnership": "none"})
    assert result.get("type") == "success", result
    return [item["value"] for item in result["result"]["value"]]


def capture(window) -> bytes:
    browser = window.browser
    if browser.name == "chromium":
        data = browser.conn.call("Page.captureScreenshot", {"format": "png"}, session=window.handle)["data"]
    else:
        data = browser.conn.call("browsingContext.captureScreenshot", {"context": window.handle})["data"]
    return base64.b64decode(data)


def shoot(kind: str, host: Path, rp: RPServer, out: Path) -> None:
    session = BrowserSession(kind, host, rp.origin)
    try:
        user = session.new_user("gallery")
        made = session.rp("register", username=user)
        assert made.get("ok"), made
        refused = session.rp("register", username=user, excludeRegistered=True)
        assert refused.get("name") == "InvalidStateError", refused
        window = PromptWindow.wait(session.browser)
        window.wait_for("document.body.className === 'error'")
        for name, view in STATES.items():
            width, height, content = evaluate_awaited(window, RENDER % json.dumps(view))
            path = out / f"{kind}-{name}.png"
            path.write_bytes(capture(window))
            print(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: viewport {width}×{height}, "
                  f"content {content} px high, {path.stat().st_size // 1024} KB")
        shoot_keys_page(session, window, out / f"{kind}-keys-page.png")
    finally:
        session.close()


def shoot_keys_page(session, window, path: Path) -> None:
    """The Security keys page in a tab, as it first shows the session's SoftToken (no PIN yet: Create PIN)."""
    if session.kind == "chromium":
        ext_id = (extension_dir() / "chromium-id.txt").read_text().strip()
        session.browser.conn.call("Target.createTarget", {"url": f"chrome-extension://{ext_id}/keys/keys.html"})
    else:
        window.evaluate("(browser.tabs.create({url: browser.runtime.getURL('keys/keys.html')}), true)")
    page = extension_page.find(session.browser, "/keys/keys.html")
    page.wait_for("document.documentElement.dataset.state === 'ready' && document.getElementById('facts').children.length > 0",
                  timeout=20)
    path.write_bytes(capture(page))
    print(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: {path.stat().st_size // 1024} KB")


def main() -> None:
    out = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else REPO / "docs/ui"
    out.mkdir(parents=True, exist_ok=True)
    rp = RPServer()
    try:
        for kind in ("chromium", "firefox"):
            shoot(kind, host_binary(), rp, out)
    finally:
        rp.close()


if __name__ == "__main__":
    main()
