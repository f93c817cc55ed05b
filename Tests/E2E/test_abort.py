"""AbortSignal while the key waits for a touch: the page gets AbortError at once and the bridge is free again."""
PROXY_PATH = True   # also in Chromium through the proxy path (conftest.py)

# This module's SoftToken waits 3 s for "touch" on every request, like a person reaching for the key.
TOKEN_ARGS = ("--presence", "delay:3000")
PRESENCE_DELAY_MS = 3000


def test_abort_while_waiting_for_touch_raises_abort_error(browser):
    result = browser.rp("register", username=browser.new_user("abe"), abortAfterMs=500)
    assert result.get("ok") is False, result
    assert result["name"] == "AbortError", result
    assert result["isDOMException"] is True, result
    assert result["elapsedMs"] < PRESENCE_DELAY_MS, f"the abort waited for the touch: {result}"


def test_already_aborted_signal_rejects_without_asking_the_key(browser):
    result = browser.rp("register", username=browser.new_user("abe"), preAborted=True)
    assert result.get("ok") is False, result
    assert result["name"] == "AbortError", result
    assert result["elapsedMs"] < 500, result


def test_a_request_after_an_abort_is_served(browser):
    aborted = browser.rp("signIn", abortAfterMs=300)
    assert aborted.get("name") == "AbortError", aborted
    # The host was told to cancel; the next ceremony must not find the key busy or the tab still pending.
    registered = browser.rp("register", username=browser.new_user("after-abort"))
    assert registered.get("ok"), registered
    assert registered["verdict"]["verified"] is True, registered
    assert registered["elapsedMs"] >= PRESENCE_DELAY_MS * 0.9, registered
