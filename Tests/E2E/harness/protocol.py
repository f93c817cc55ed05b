"""One JSON-over-websocket client for both remote protocols: Chrome DevTools (CDP) and WebDriver BiDi.

Both send {"id", "method", "params"} and answer with the same id; CDP adds "sessionId" for a target, BiDi puts
errors in {"type": "error"}. Calls are synchronous and every one has a deadline; events that arrive while
waiting are kept in order for wait_event().

A CDP call on a target's session fails at once (TargetClosed) when that target goes away before it answers:
Chromium then sends Target.detachedFromTarget and never the reply (seen with a key press that closes the
window it was sent to), so waiting on would only end at the deadline.
"""
import json
import time

import websocket


class ProtocolError(RuntimeError):
    pass


class TargetClosed(ProtocolError):
    """The CDP session's target closed (or was gone already) before the call answered."""


SESSION_NOT_FOUND = -32001   # CDP's error code for a sessionId it no longer knows


class Connection:
    def __init__(self, url: str, suppress_origin: bool = False, timeout: float = 15):
        # Firefox's Remote Agent refuses a handshake with an Origin header (HTTP 400); CDP does not care.
        self.ws = websocket.create_connection(url, timeout=timeout, suppress_origin=suppress_origin,
                                              enable_multithread=True)
        self.next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        deadline = time.monotonic() + timeout
        while True:
            reply = self._receive(deadline, f"{method} (no answer in {timeout} s)")
            if reply.get("id") != self.next_id:
                if "method" in reply:
                    self.events.append(reply)
                    if session and self._detached(reply, session):
                        raise TargetClosed(f"{method}: the target closed before it answered (session {session})")
                continue
            if "error" in reply:
                error = reply["error"]
                closed = session and isinstance(error, dict) and error.get("code") == SESSION_NOT_FOUND
                raise (TargetClosed if closed else ProtocolError)(f"{method}: {error} {reply.get('message', '')}".strip())
            return reply.get("result", {})

    def wait_event(self, method: str, timeout: float = 30, predicate=lambda params: True) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and predicate(event.get("params", {})):
                    return self.events.pop(i)["params"]
            reply = self._receive(deadline, f"event {method} (not seen in {timeout} s)")
            if "method" in reply:
                self.events.append(reply)

    @staticmethod
    def _detached(event: dict, session: str) -> bool:
        return (event["method"] == "Target.detachedFromTarget"
                and event.get("params", {}).get("sessionId") == session)

    def _receive(self, deadline: float, what: str) -> dict:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(what)
        self.ws.settimeout(left)
        try:
            return json.loads(self.ws.recv())
        except websocket.WebSocketTimeoutException:
            raise TimeoutError(what) from None

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass
