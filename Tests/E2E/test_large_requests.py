"""Requests the native-messaging path cannot carry (docs/protocol.md, "Framing"): a 700 KB challenge, whose answer
could pass the 1 MiB a browser accepts from a native host, and a 5 MB one, whose frame passes the host's 4 MiB. The
browsers' own WebAuthn serve both (measurements.md); with the bridge the page must get what the browser's own gives,
promptly, and nothing may reach the host.

Page path (both browsers): the browser's own below the bridge is answered by a virtual authenticator
(OWN_AUTHENTICATOR); the oracle is the same call in the browser's own without the bridge (Chromium: a tab on an origin
no content script matches, with a virtual authenticator of its own; Firefox: a Firefox over Marionette with one).
Had the host been asked, it would have refused at once (700 KB) or never answered (5 MB: the extension's watchdog, the
time plus 30 s, outlasts the waits below).
Chromium's proxy path: headless Chromium's own never settles a call no authenticator answers (measured), and a tab with
a DevTools authenticator is served by it, never proxied. So the bridge's tab has one here too, and what shows that the
bridge handed the call over is that the proxy was not attached for it (it stays attached for an announced call that
never comes for ANNOUNCED_TTL_MS, 10 s) and that nothing reached the host; the hand-back of such a call while attached
for another request is node-tested (proxy.test.mjs).
"""
import json
import shutil

import pytest

from harness.marionette import MarionetteFirefox
from harness.paths import OVERRIDE_ACTIVE_JS

OWN_AUTHENTICATOR = True
PROXY_PATH = True
NATIVE_HOST = "parity.localhost"   # a secure context no content script of the extension matches (test_parity.py)
SIZES = (700_000, 5_000_000)
PAGE_TIMEOUT_MS = 60_000

# create() or get() with a challenge of `bytes` bytes, as a page makes it: what the promise settled with, and for a
# credential whether its clientDataJSON holds the challenge and the page's origin. get() asks for the credential the
# page's last create() made (none: any).
CALL = """(async ({type, bytes, timeout}) => {
  const challenge = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) challenge[i] = (i * 31 + 7) & 255;
  const b64url = (u8) => { let s = ''; for (let i = 0; i < u8.length; i += 32768) s += String.fromCharCode(...u8.subarray(i, i + 32768));
    return btoa(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, ''); };
  const publicKey = type === 'create'
    ? {challenge, rp: {name: 'large'}, user: {id: new Uint8Array([1, 2, 3, 4]), name: 'large', displayName: 'large'},
       pubKeyCredParams: [{type: 'public-key', alg: -7}], timeout}
    : {challenge, timeout, allowCredentials: window.largeId ? [{type: 'public-key', id: window.largeId}] : []};
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const credential = await navigator.credentials[type]({publicKey});
    if (type === 'create') window.largeId = credential.rawId;
    const clientData = JSON.parse(new TextDecoder().decode(credential.response.clientDataJSON));
    return {ok: true, type: clientData.type, ownOrigin: clientData.origin === location.origin,
            challengeEchoed: clientData.challenge === b64url(challenge), ms: elapsed()};
  } catch (error) {
    return {ok: false, name: error.name, ms: elapsed()};
  }
})"""


def outcome(result: dict) -> dict:
    """What must be the same with and without the bridge: all but the time taken."""
    return {k: v for k, v in result.items() if k != "ms"}


@pytest.fixture(scope="module")
def own(browser, rp_server):
    """call(type, bytes) in the browser's own WebAuthn without the bridge."""
    timeout = PAGE_TIMEOUT_MS
    if browser.kind == "firefox":
        firefox = MarionetteFirefox()
        try:
            firefox.open(rp_server.origin + "/index.html")
            yield lambda type, bytes: firefox.evaluate(f"({CALL})({json.dumps({'type': type, 'bytes': bytes, 'timeout': timeout})})",
                                                       timeout=timeout / 1000 + 30)
        finally:
            firefox.close()
            shutil.rmtree(firefox.workdir, ignore_errors=True)
        return
    driver = browser.browser
    tab = driver.new_tab(background=True)
    try:
        with driver.in_tab(tab):
            driver.add_virtual_authenticator()
            driver.open(browser.site_origin.replace("//localhost:", f"//{NATIVE_HOST}:") + "/index.html")
            assert browser.call(f"!({OVERRIDE_ACTIVE_JS}) && isSecureContext") is True

        def call(type, bytes):
            driver.activate(tab)
            try:
                with driver.in_tab(tab):
                    return browser.call(f"({CALL})({json.dumps({'type': type, 'bytes': bytes, 'timeout': timeout})})",
                                        timeout=timeout / 1000 + 30)
            finally:
                driver.activate(browser.front_tab)
        yield call
    finally:
        driver.close_tab(tab)
        driver.activate(browser.front_tab)


def test_what_the_host_cannot_carry_gets_the_browsers_own_answer(browser, own):
    timeout = PAGE_TIMEOUT_MS
    browser.open("/index.html")
    reached = len(browser.ceremonies())
    authenticator = browser.add_own_authenticator() if browser.path == "proxy" else None
    try:
        for type in ("create", "get"):
            for size in SIZES:
                expected = own(type, size)
                # Within the time plus 25 s: the watchdog's answer, had the host never answered, would come later.
                got = browser.call(f"({CALL})({json.dumps({'type': type, 'bytes': size, 'timeout': timeout})})",
                                   timeout=timeout / 1000 + 25)
                print(f"{browser.kind}-{browser.path} {type} {size} bytes: own {expected}, with the bridge {got}")
                assert outcome(got) == outcome(expected), f"{type} with a {size}-byte challenge"
                assert got == {**got, "ok": True, "ownOrigin": True, "challengeEchoed": True}, got
                if authenticator:
                    assert browser.status_in_background_tab()["proxy"]["attachedNow"] is False, \
                        "the proxy was attached for a call the bridge cannot carry"
    finally:
        if authenticator:
            # Removed, and DevTools' WebAuthn environment with it: while enabled, the tab is Chromium's own.
            browser.browser.call("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator})
            browser.browser.call("WebAuthn.disable")
    assert browser.ceremonies()[reached:] == [], "a request too large reached the host"
    # The bridge still serves what it can carry (on the session's path: rp() checks).
    registered = browser.rp("register", username=browser.new_user("after-large"))
    assert registered.get("ok") and registered["verdict"]["verified"] is True, registered
