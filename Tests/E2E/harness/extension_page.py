"""An extension page open in a tab (the popup's page, the Security keys page), found among the browser's pages by
its path and driven as harness/prompt_window.py drives the security-key window: read with evaluate(), waited on
with wait_for(), clicked with real (trusted) input. Chromium: a CDP target attached by id; Firefox: a BiDi browsing
context (BiDi may not navigate to a moz-extension:// URL, so the extension itself opens the page in a tab)."""
import json
import time

from .prompt_window import ChromiumPromptWindow, FirefoxPromptWindow


def find(browser, path: str, timeout: float = 10):
    """The page at `path` (e.g. "/keys/keys.html") once the browser lists it."""
    deadline = time.monotonic() + timeout
    while True:
        if browser.name == "chromium":
            targets = [t for t in browser.conn.call("Target.getTargets")["targetInfos"]
                       if t["type"] == "page" and t["url"].startswith("chrome-extension://") and path in t["url"]]
            if targets:
                session = browser.conn.call("Target.attachToTarget", {"targetId": targets[0]["targetId"], "flatten": True})
                page = ChromiumPromptWindow(browser, session["sessionId"], targets[0]["url"])
                page.target_id = targets[0]["targetId"]
                return page
        else:
            contexts = [c for c in browser.conn.call("browsingContext.getTree", {"maxDepth": 0})["contexts"]
                        if c["url"].startswith("moz-extension://") and path in c["url"]]
            if contexts:
                return FirefoxPromptWindow(browser, contexts[0]["context"], contexts[0]["url"])
        assert time.monotonic() < deadline, f"no extension page {path} within {timeout} s"
        time.sleep(0.05)


def center(page, selector: str) -> tuple[float, float]:
    """The middle of the element `selector` names, in the viewport (scrolled into view first)."""
    box = page.evaluate(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
        " e.scrollIntoView({ block: 'nearest' }); const r = e.getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    assert box, f"no element {selector!r} in {page.url}: {page.text()!r}"
    return tuple(box)


def click(page, selector: str) -> None:
    """A real click at the middle of the element `selector` names."""
    page.click_at(*center(page, selector))
