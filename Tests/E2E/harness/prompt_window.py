"""The extension's security-key window (extension/prompt/), seen and used from outside the browser as a person
would: found among the browser's windows, read, clicked with real (trusted) input, closed.

Chromium: the window's page is a CDP target of type "page" at chrome-extension://<id>/prompt/prompt.html; the
test attaches to it, reads it with Runtime.evaluate and clicks with Input.dispatchMouseEvent (trusted input).
Firefox: WebDriver BiDi lists the window's page among the top-level browsing contexts (moz-extension://…); the
test reads it with script.evaluate and clicks with input.performActions (trusted input). Both close it the way
the window manager would: the window goes away (windows.onRemoved in the extension).
"""
import json
import time

from .protocol import TargetClosed

PAGE_PATH = "/prompt/prompt.html"
# How long a window may take to open: a tab's new window without a press of the user's waits until COOLDOWN_MS (10 s,
# background/window-rate.js) after its last one, which an "at once" SoftToken opens too on a loaded machine (its
# ceremony outlasting the host's 50 ms before announcing the touch). Only a failing wait lasts this long.
WAIT_SECONDS = 30


def _wrap(expression: str) -> str:
    return f"(() => JSON.stringify({expression}))()"


class PromptWindow:
    """One open security-key window of a browser session."""

    def __init__(self, browser, handle: str, url: str):
        self.browser = browser
        self.handle = handle   # CDP session id / BiDi context id
        self.url = url
        self.follows = False   # found as "the" security-key window (find()): wait_for() follows its successor

    @staticmethod
    def kind(browser):
        return ChromiumPromptWindow if browser.name == "chromium" else FirefoxPromptWindow

    @staticmethod
    def find(browser) -> "PromptWindow | None":
        return PromptWindow.kind(browser).find(browser)

    @staticmethod
    def is_open(browser) -> bool:
        return PromptWindow.kind(browser).locate(browser) is not None

    @classmethod
    def wait(cls, browser, timeout: float = WAIT_SECONDS) -> "PromptWindow":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            window = cls.find(browser)
            if window:
                return window
            time.sleep(0.05)
        raise AssertionError(f"no security-key window within {timeout} s")

    @classmethod
    def wait_gone(cls, browser, timeout: float = WAIT_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not cls.is_open(browser):
                return
            time.sleep(0.05)
        raise AssertionError(f"the security-key window was still open after {timeout} s")

    @classmethod
    def close_if_final(cls, browser, timeout: float = WAIT_SECONDS) -> None:
        """Closes, with a click on Close, a window still showing how a request ended; returns once no window is
        left. A window the tab's next request took over closes by itself with that request's answer, possibly while
        the click is on its way: that counts as gone too."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            window = cls.find(browser)
            if window is None:
                return
            try:
                if window.evaluate("document.getElementById('close').textContent") == "Close":
                    window.click("Close")
                    cls.wait_gone(browser, max(0.1, deadline - time.monotonic()))
                    return
            except (RuntimeError, AssertionError):   # the window went while it was read or clicked
                continue
            time.sleep(0.05)
        raise AssertionError(f"the security-key window was still open after {timeout} s")

    def wait_for(self, expression: str, timeout: float = WAIT_SECONDS):
        """Polls an expression in the window's page until it is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except RuntimeError as error:   # the window's first document is about:blank, for a moment; or it is gone
                value = error
                self.follow_successor()
            if value and not isinstance(value, RuntimeError):
                return value
            time.sleep(0.05)
        raise AssertionError(f"not true in the security-key window within {timeout} s: {expression} "
                             f"(last: {value!r}; text: {self.text()!r})")

    def follow_successor(self) -> None:
        """The window found may be one closing with the request before (its page answered before the window went),
        or one that opened a moment after its request ended and closes at once (prompt-window.js removes it when
        windows.create answers): gone when read. The window open now, if another, is the request's a test waits for."""
        kind = type(self)
        if not self.follows or self.identity in [kind.identity_of(w) for w in kind.locate_all(self.browser)]:
            return   # still open: an error of the moment
        successor = kind.find(self.browser)
        if successor is not None:
            self.__dict__.update(successor.__dict__)

    def text(self) -> str:
        return self.evaluate("document.body.innerText")

    def button_center(self, label: str) -> tuple[float, float]:
        """Where the button is once the window has its size: prompt.js marks the document while it resizes the
        window (data-layout="fitting"), and a button moves with the window's height (it sits at the bottom)."""
        box = self.wait_for(
            "document.documentElement.dataset.layout !== 'fitting' && (() => {"
            f" const b = [...document.querySelectorAll('button')].find((b) => b.innerText.includes({json.dumps(label)}));"
            " if (!b) return null; b.scrollIntoView({ block: 'nearest' }); const r = b.getBoundingClientRect();"
            " const x = r.x + r.width / 2, y = r.y + r.height / 2;"
            " return b.contains(document.elementFromPoint(x, y)) ? [x, y] : null; })()")
        return box[0], box[1]

    def click(self, label: str) -> None:
        self.click_at(*self.button_center(label))

    def untrusted_click(self, label: str) -> None:
        """What a script could do: element.click() and a synthetic MouseEvent (isTrusted false)."""
        self.evaluate(
            f"(() => {{ const b = [...document.querySelectorAll('button')].find((b) => b.innerText.includes({json.dumps(label)}));"
            " b.click(); b.dispatchEvent(new MouseEvent('click', { bubbles: true })); return true; })()")


class ChromiumPromptWindow(PromptWindow):
    @staticmethod
    def locate_all(browser) -> list[dict]:
        return [target for target in browser.conn.call("Target.getTargets")["targetInfos"]
                if target["type"] == "page" and target["url"].startswith("chrome-extension://") and PAGE_PATH in target["url"]]

    @staticmethod
    def locate(browser):
        return next(iter(ChromiumPromptWindow.locate_all(browser)), None)

    @staticmethod
    def find(browser):
        target = ChromiumPromptWindow.locate(browser)
        if not target:
            return None
        session = browser.conn.call("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        window = ChromiumPromptWindow(browser, session["sessionId"], target["url"])
        window.target_id = target["targetId"]
        window.follows = True
        return window

    @staticmethod
    def identity_of(target) -> str:
        return target["targetId"]

    @property
    def identity(self) -> str:
        """Which window (its target): the same window found twice has two sessions (handles)."""
        return self.target_id

    def evaluate(self, expression: str):
        result = self.browser.conn.call("Runtime.evaluate", {"expression": _wrap(expression), "returnByValue": True},
                                        session=self.handle)
        if "exceptionDetails" in result:
            raise RuntimeError(f"security-key window threw: {result['exceptionDetails']}")
        value = result["result"].get("value")
        return None if value is None else json.loads(value)

    def click_at(self, x: float, y: float) -> None:
        """A click that may close the window (Close, Cancel, an account): as with press(), Chromium may then never
        answer the button's release (TargetClosed); what the click did shows in the ceremony's outcome."""
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            try:
                self.browser.conn.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                                                    "clickCount": 1}, session=self.handle)
            except TargetClosed:
                if kind != "mouseReleased":
                    raise AssertionError(f"the security-key window closed at {kind}, before the click") from None

    # key name → (code, Windows virtual key code, text it types)
    KEYS = {"Tab": ("Tab", 9, ""), "Enter": ("Enter", 13, "\r"), "Escape": ("Escape", 27, ""),
            "ArrowUp": ("ArrowUp", 38, ""), "ArrowDown": ("ArrowDown", 40, ""), " ": ("Space", 32, " ")}

    def hold(self, key: str, seconds: float) -> None:
        """Holds `key` down for `seconds`: one key-down, the keyboard's auto-repeated ones every 50 ms, one key-up."""
        code, vk, text = self.KEYS[key]
        event = {"key": key, "code": code, "windowsVirtualKeyCode": vk}
        down = {**event, "type": "keyDown" if text else "rawKeyDown", **({"text": text} if text else {})}
        try:
            self.browser.conn.call("Input.dispatchKeyEvent", down, session=self.handle)
            for _ in range(round(seconds / 0.05)):
                time.sleep(0.05)
                self.browser.conn.call("Input.dispatchKeyEvent", {**down, "autoRepeat": True}, session=self.handle)
            self.browser.conn.call("Input.dispatchKeyEvent", {**event, "type": "keyUp"}, session=self.handle)
        except TargetClosed:
            raise AssertionError(f"the security-key window closed while {key!r} was held") from None

    def press(self, *keys: str) -> None:
        """Presses and releases each key in turn. The last one may close the window (Escape, or Enter choosing an
        account): Chromium then answers neither its key-down nor its key-up (TargetClosed), and the test learns
        what the key did from the ceremony's outcome. An earlier key closing it is an error."""
        for index, key in enumerate(keys):
            code, vk, text = self.KEYS[key]
            down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk}
            if text:
                down["text"] = text
            up = {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk}
            try:
                for event in (down, up):
                    self.browser.conn.call("Input.dispatchKeyEvent", event, session=self.handle)
            except TargetClosed:
                if index < len(keys) - 1:
                    raise AssertionError(f"the security-key window closed at {key}, before {keys[index + 1:]}") from None
                return

    def window_id(self):
        return self.browser.conn.call("Browser.getWindowForTarget", {"targetId": self.target_id})["windowId"]

    def page_window_id(self):
        return self.browser.conn.call("Browser.getWindowForTarget", {}, session=self.browser.session)["windowId"]

    def close(self) -> None:
        self.browser.conn.call("Target.closeTarget", {"targetId": self.target_id})


class FirefoxPromptWindow(PromptWindow):
    @staticmethod
    def locate_all(browser) -> list[dict]:
        return [context for context in browser.conn.call("browsingContext.getTree", {"maxDepth": 0})["contexts"]
                if context["url"].startswith("moz-extension://") and PAGE_PATH in context["url"]]

    @staticmethod
    def locate(browser):
        return next(iter(FirefoxPromptWindow.locate_all(browser)), None)

    @staticmethod
    def find(browser):
        context = FirefoxPromptWindow.locate(browser)
        if not context:
            return None
        window = FirefoxPromptWindow(browser, context["context"], context["url"])
        window.client_window = context.get("clientWindow")
        window.follows = True
        return window

    @staticmethod
    def identity_of(context) -> str:
        return context["context"]

    @property
    def identity(self) -> str:
        return self.handle

    def evaluate(self, expression: str):
        result = self.browser.conn.call("script.evaluate", {
            "expression": _wrap(expression), "target": {"context": self.handle}, "awaitPromise": False,
            "resultOwnership": "none"})
        if result.get("type") == "exception":
            raise RuntimeError(f"security-key window threw: {result.get('exceptionDetails')}")
        value = result["result"].get("value")
        return None if value is None else json.loads(value)

    def click(self, label: str) -> None:
        """WebDriver aims at the element itself (its in-view centre when the action runs), so no layout change between
        finding the button and pressing it can make the click land elsewhere."""
        self.button_center(label)   # the window has its size and the button is there, uncovered
        found = self.browser.conn.call("script.evaluate", {
            "expression": f"[...document.querySelectorAll('button')].find((b) => b.innerText.includes({json.dumps(label)}))",
            "target": {"context": self.handle}, "awaitPromise": False, "resultOwnership": "root"})
        element = found.get("result", {})
        assert element.get("type") == "node" and element.get("sharedId"), f"no button {label!r}: {found}"
        self.browser.conn.call("input.performActions", {"context": self.handle, "actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
                {"type": "pointerMove", "x": 0, "y": 0, "origin": {"type": "element",
                                                                 "element": {"sharedId": element["sharedId"]}}},
                {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})

    def click_at(self, x: float, y: float) -> None:
        self.browser.conn.call("input.performActions", {"context": self.handle, "actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
                {"type": "pointerMove", "x": round(x), "y": round(y), "origin": "viewport"},
                {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})

    KEYS = {"Tab": "\ue004", "Enter": "\ue007", "Escape": "\ue00c", "ArrowUp": "\ue013", "ArrowDown": "\ue015",
            " ": "\ue00d"}   # WebDriver's

    def hold(self, key: str, seconds: float) -> None:
        """Holds `key` down for `seconds`: WebDriver marks a key-down of a key already down as a repeat."""
        value = self.KEYS[key]
        repeats = [{"type": "pause", "duration": 50}, {"type": "keyDown", "value": value}] * round(seconds / 0.05)
        self.browser.conn.call("input.performActions", {"context": self.handle, "actions": [
            {"type": "key", "id": "keyboard", "actions": [{"type": "keyDown", "value": value}, *repeats,
                                                           {"type": "keyUp", "value": value}]}]}, timeout=seconds + 30)

    def press(self, *keys: str) -> None:
        actions = []
        for key in keys:
            actions += [{"type": "keyDown", "value": self.KEYS[key]}, {"type": "keyUp", "value": self.KEYS[key]}]
        self.browser.conn.call("input.performActions", {"context": self.handle, "actions": [
            {"type": "key", "id": "keyboard", "actions": actions}]})

    def window_id(self):
        return self.client_window

    def page_window_id(self):
        tree = self.browser.conn.call("browsingContext.getTree", {"root": self.browser.context, "maxDepth": 0})
        return tree["contexts"][0].get("clientWindow")

    def close(self) -> None:
        self.browser.conn.call("browsingContext.close", {"context": self.handle})


def windows_opened_during(browser, action) -> list[str]:
    """Runs action() and returns what the browser reported as new top-level pages meanwhile (CDP targetCreated /
    BiDi contextCreated events): events, not polling, so a window open for an instant is counted too."""
    conn = browser.conn
    if browser.name == "chromium":
        conn.call("Target.setDiscoverTargets", {"discover": True})   # reports every existing target once …
        conn.call("Target.getTargets")                                # … before this answer
        event = "Target.targetCreated"
    else:
        conn.call("session.subscribe", {"events": ["browsingContext.contextCreated"]})
        event = "browsingContext.contextCreated"
    conn.events = [e for e in conn.events if e.get("method") != event]
    action()
    conn.call("Target.getTargets" if browser.name == "chromium" else "browsingContext.getTree", {})  # flush events
    created = [e["params"] for e in conn.events if e.get("method") == event]
    conn.events = [e for e in conn.events if e.get("method") != event]
    if browser.name == "chromium":
        return [p["targetInfo"]["url"] for p in created if p["targetInfo"]["type"] == "page"]
    return [p.get("url", "") for p in created if not p.get("parent")]
