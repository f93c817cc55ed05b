"""The conversion matrix: hundreds of create()/get() requests, each a valid one with one member changed to an
unusual value of some JavaScript type (site/matrix.js), run through the bridge and against the browser's own
WebAuthn in the same kind of browser: Chromium without the extension (DevTools virtual authenticator), Firefox
ESR over Marionette (its WebDriver virtual authenticator). For each variant the test compares what the page
sees: resolved, rejected (the exception's name, or the page getter's own exception) or still pending, and for a
ceremony what it used: clientDataJSON's type, challenge, origin and crossOrigin, the rpIdHash, the UP/AT/ED flags
and the credential's algorithm in authenticatorData; a TypeError's text too. Other messages are counted, not
compared (the host words DOMExceptions as Chromium does, also in Firefox).

The bridge follows the browser it runs in; the differences it keeps are listed below with their reason, and the
test fails on any other difference and on a listed one that went away.
"""
PROXY_PATH = True   # also in Chromium through the proxy path (conftest.py)
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from harness.marionette import MarionetteFirefox
from harness.session import BrowserSession

PAGE = "/matrix.html"
BATCH = 80          # variants per page call: one round trip each, short enough for the call's timeout
_OWN: dict[str, dict] = {}   # browser kind → the browser's own answers, measured once per run


def run_matrix(evaluate) -> dict:
    count = evaluate("matrix.count()")
    results = {}
    for start in range(0, count, BATCH):
        results.update(evaluate(f"matrix.run({json.dumps({'start': start, 'end': start + BATCH})})"))
    return results


def own_answers(kind: str, host, origin: str) -> dict:
    if kind in _OWN:
        return _OWN[kind]
    if kind == "chromium":
        # The extensions the bridge's key (SoftToken) answers, so that the flags compared are the client's doing.
        session = BrowserSession("chromium", host, origin, install=False, own_webauthn=True, virtual_authenticator=False)
        try:
            session.browser.add_virtual_authenticator(ctap2Version="ctap2_1", hasPrf=True, hasCredBlob=True,
                                                      hasLargeBlob=True)
            session.open(PAGE)
            _OWN[kind] = run_matrix(lambda js: session.call(js, timeout=600))
        finally:
            session.close()
    else:
        firefox = MarionetteFirefox()
        try:
            firefox.open(origin + PAGE)
            _OWN[kind] = run_matrix(lambda js: firefox.evaluate(js, timeout=600))
        finally:
            firefox.close()
            shutil.rmtree(firefox.workdir, ignore_errors=True)
    return _OWN[kind]


def seen(result: dict) -> dict:
    """What the comparison looks at."""
    out = {"outcome": result["outcome"]}
    if result["outcome"] in ("rejected", "threw"):
        out["error"] = result.get("thrown") or result.get("name")
    if result["outcome"] == "resolved":
        out["used"] = result.get("used")
    if "reads" in result:   # the variants read through a logging Proxy: each member once, in the browser's order
        out["reads"] = result["reads"]
    return out


@pytest.fixture(scope="module")
def answers(browser, host, rp_server):
    own = own_answers(browser.kind, host, rp_server.origin)
    browser.open(PAGE)
    bridge = run_matrix(lambda js: browser.call(js, timeout=600))
    if os.environ.get("WEBAUTHN_BRIDGE_MATRIX_DUMP"):   # a directory: both sides' raw answers, for study
        where = Path(os.environ["WEBAUTHN_BRIDGE_MATRIX_DUMP"])
        where.mkdir(parents=True, exist_ok=True)
        (where / f"{browser.kind}-own.json").write_text(json.dumps(own, indent=1))
        (where / f"{browser.kind}-{browser.path}-bridge.json").write_text(json.dumps(bridge, indent=1))
    return own, bridge


# The differences the bridge keeps: (sessions, variant ids matched from the start, why). Each must still occur.
TIMEOUT_ZERO = r"(create|get) publicKey\.timeout = (true|fraction|null|zero|NaN|emptyString|emptyArray|sparseArray|emptyObject|toStringObject|stringObject|function|proxy|set|arrayBuffer|dataView|detachedBuffer|resizableBuffer|sharedBuffer|sharedView)$"
KNOWN = [
    ({"chromium", "firefox", "chromium-proxy"}, r"create publicKey\.user\.id = (empty|detachedBuffer)$",
     "an empty user.id: both browsers register it (L3 says TypeError); libfido2 cannot send an empty byte string "
     "(fido_cred_set_user leaves the id out), so the host says TypeError"),
    ({"chromium", "chromium-proxy"}, r"create publicKey\.extensions\.credBlob = detachedBuffer$",
     "an empty credBlob: Chromium sends it and the key stores it; libfido2 cannot send an empty byte string, so the "
     "host leaves the extension out"),
    ({"chromium", "chromium-proxy"}, r"create publicKey\.extensions\.(hmacCreateSecret|prf) = ",
     "hmac-secret at create: Chromium's virtual authenticator leaves it out of authenticatorData (ED unset); a "
     "security key, as SoftToken, reports it there (CTAP 2.1 §12.5)"),
    ({"firefox"}, r"create publicKey\.extensions\.minPinLength = ",
     "minPinLength: Firefox's virtual authenticator reports it to every RP; a security key, as SoftToken, only to "
     "the RP IDs it was configured for (CTAP 2.1 §12.4)"),
    ({"firefox"}, r"get publicKey\.extensions\.appid = (null|emptyString|emptyArray|toStringObject|stringObject)$",
     "an appid that is empty, \"null\" or the caller's origin is the origin: Firefox accepts an http://localhost "
     "one, the host (as Chromium) only https"),
    ({"chromium", "chromium-proxy"}, TIMEOUT_ZERO,
     "a timeout that converts to 0 or 1 ms: with a DevTools virtual authenticator Chromium applies it unclamped and "
     "fails at once (1 ms: when it runs out first); the bridge clamps it to 30 s as the host does every timeout"),
    ({"chromium", "chromium-proxy"}, r"create publicKey\.authenticatorSelection\.authenticatorAttachment = platform$",
     "Chromium waits for a platform authenticator until its timeout (NotAllowedError then); the host refuses at once"),
    ({"chromium", "chromium-proxy"}, r"get mediation = conditional$",
     "the browser's own answers it on both sides, but only the oracle's tab has an authenticator; on the proxy path "
     "the bridge keeps it waiting, where Chromium's own refuses every conditional get at once while the proxy is "
     "attached (docs/extension.md, \"Chromium's proxy path\")"),
    ({"chromium", "chromium-proxy"}, r"create mediation = conditional$",
     "Chromium's own refuses it at once (NotAllowedError) in a tab without a DevTools virtual authenticator, as on "
     "the bridge's side (which leaves it to Chromium's own, and refuses it so itself when Chromium proxies it), and "
     "leaves it pending in the oracle's tab, which has one"),
    ({"chromium", "chromium-proxy"},
     r"create publicKey\.rp\.id = otherSite, publicKey\.extensions\.enforceCredentialProtectionPolicy = true$",
     "a credProtect request that contradicts the rest: Chromium refuses it after the rp.id check (in its browser "
     "process), the page world before the host checks the rp.id (the host cannot make a refusal only Chromium makes)"),
    ({"firefox"}, r"create publicKey\.user\.id = 65bytes, publicKey\.extensions\.largeBlob = read$",
     "Firefox refuses a user.id over 64 bytes before the extension inputs; the host follows Chromium, whose Blink "
     "refuses the inputs first"),
    ({"firefox"}, r"(get publicKey\.allowCredentials|create publicKey\.excludeCredentials) = 65entries, ",
     "more than 64 credential ids: the host refuses them as Chromium does (RangeError, before the extension inputs); "
     "Firefox refuses more than 20 allowed ids with SecurityError and caps no exclude list (docs/errors.md)"),
    ({"firefox"}, r"get publicKey\.rpId = otherSite, publicKey\.extensions\.largeBlob = readAndWrite$",
     "Firefox refuses largeBlob's read with write before the rp.id; the host follows Chromium, whose browser process "
     "refuses it after the rp.id check"),
    ({"firefox"}, r"(create mediation = (conditional|silent)|get mediation = silent)$",
     "the browser's own answers it on both sides, but headless Firefox's own refuses a document without focus "
     "first (\"CredentialsContainer request is not allowed.\"); the oracle's Marionette session has focus"),
]


# Rejections alike whose texts differ, the same way.
KNOWN_WORDING = [
    ({"chromium"}, r"(create publicKey\.rp\.id|get publicKey\.rpId) = ",
     "an rp.id that is not the origin's: Chromium's own first fetches the claimed RP ID's .well-known/webauthn "
     "(related origin requests) and says so when that fails; the bridge supports no related origins"),
]


def known(session: str, variant: str) -> str | None:
    return next((why for sessions, pattern, why in KNOWN if session in sessions and re.match(pattern, variant)), None)


def test_the_bridge_answers_as_the_browsers_own(browser, answers):
    own, bridge = answers
    session = browser.kind + ("-proxy" if browser.path == "proxy" else "")
    assert len(own) >= 150 and set(own) == set(bridge)
    differ = {v: (seen(own[v]), seen(bridge[v])) for v in own if seen(own[v]) != seen(bridge[v])}
    alike = [v for v in own if v not in differ and own[v]["outcome"] == "rejected"]
    worded = sum(own[v].get("message") == bridge[v].get("message") for v in alike)
    print(f"\n{session}: of {len(alike)} rejections alike, {worded} carry the browser's own message")
    print(f"\n{session}: {len(own) - len(differ)} of {len(own)} variants agree, {len(differ)} differ")
    if browser.kind == "chromium":   # Chromium's own answer without a virtual authenticator, on both paths
        conditional = bridge["create mediation = conditional"]
        assert (conditional["outcome"], conditional.get("name")) == ("rejected", "NotAllowedError"), conditional
    unexpected = {v: d for v, d in differ.items() if not known(session, v)}
    report = "\n".join(f"  {v}\n    own    {json.dumps(a)} {own[v].get('message', '')!r:.160}"
                       f"\n    bridge {json.dumps(b)} {bridge[v].get('message', '')!r:.160}"
                       for v, (a, b) in sorted(unexpected.items()))
    assert not unexpected, f"{len(unexpected)} variants differ from the browser's own:\n{report}"
    # A rejection alike carries the browser's own text too (the page world words the host's for Firefox).
    worded_apart = [v for v in alike if own[v].get("message") != bridge[v].get("message")
                    and not any(session in sessions and re.match(pattern, v) for sessions, pattern, _ in KNOWN_WORDING)]
    assert not worded_apart, "rejections worded otherwise than the browser's own:\n" + "\n".join(
        f"  {v}\n    own    {own[v]['message']}\n    bridge {bridge[v]['message']}" for v in worded_apart)
    stale = [pattern for sessions, pattern, _ in KNOWN
             if session in sessions and not any(re.match(pattern, v) for v in differ)]
    stale += [pattern for sessions, pattern, _ in KNOWN_WORDING
              if session in sessions and not any(re.match(pattern, v) and own[v].get("message") != bridge[v].get("message")
                                                 for v in alike)]
    assert not stale, f"listed differences that no longer occur (remove them): {stale}"
