"""Hostile pages (issue 12): documents the browser's own WebAuthn refuses must not get a ceremony through the
bridge either, whatever they do to their own JavaScript world — and nothing may reach the key (the host log).

Each scenario also runs against Chromium's own WebAuthn (no extension, DevTools virtual authenticator), and the
bridge's answer must be Chromium's: same DOMException name and message. Firefox runs every scenario too; where
the bridge leaves a frame to Firefox's own WebAuthn (cross-origin frames: Firefox does not expose a frame's
permissions policy), Firefox's answer is asserted by name.

A get() from a background tab is the one case that differs on purpose: Chromium serves it (its dialog waits
inside the tab); the bridge's PIN prompt is a desktop-wide window, so the request waits, without reaching the
host, until its tab is active in a focused window.
"""
PROXY_PATH = True   # also in Chromium through the proxy path (conftest.py)
import json

import pytest

from harness.session import BrowserSession

OPAQUE = ("NotAllowedError",
          "The current origin is an opaque origin and hence not allowed to access 'PublicKeyCredential' objects.")
NO_FOCUS = ("NotAllowedError", "The operation is not allowed at this time because the page does not have focus.")
FIREFOX_NOT_ALLOWED = ("NotAllowedError", "CredentialsContainer request is not allowed.")


def policy_refusal(kind: str) -> tuple[str, str]:
    feature = "publickey-credentials-create" if kind == "create" else "publickey-credentials-get"
    return ("NotAllowedError", f"The '{feature}' feature is not enabled in this document. Permissions Policy may "
                               "be used to delegate Web Authentication capabilities to cross-origin child frames.")


@pytest.fixture(scope="module")
def chromium_own(host, rp_server):
    session = BrowserSession("chromium", host, rp_server.origin, install=False, own_webauthn=True)
    yield session
    session.close()


@pytest.fixture(scope="module")
def firefox_own(host, rp_server):
    """Firefox's own WebAuthn (Marionette, virtual authenticator): the reference where Firefox and Chromium differ."""
    session = BrowserSession("firefox", host, rp_server.origin, install=False, own_webauthn=True)
    yield session
    session.close()


def json_of(value) -> str:
    return json.dumps(value)


def answer(result: dict) -> tuple[str, str]:
    assert result.get("ok") is False and result.get("stage") != "deadline", f"expected a prompt refusal: {result}"
    return result["name"], result["message"]


def options_for(browser, rp_server, kind: str) -> dict:
    """Real options of this RP: for get, naming a credential the session's key holds (it would sign at once),
    so a ceremony that reached the key would succeed and show in the host log as "get ok"."""
    browser.open("/index.html")
    if kind == "get":
        user = browser.new_user("victim")
        registered = browser.rp("register", username=user)
        assert registered.get("ok") and registered["verdict"]["verified"], registered
        return rp_server.rp.authentication_options({"username": user, "timeout": 120000})
    return rp_server.rp.registration_options({"username": browser.new_user("victim"), "timeout": 120000})


def reached_nothing_since(browser, seen: int):
    """Proves nothing new reached the host: a legitimate sign-in in the top tab goes through it (one ceremony at
    a time, in order), and it is the only ceremony logged since `seen`."""
    browser.open("/index.html")
    user = browser.new_user("barrier")
    assert browser.rp("register", username=user)["verdict"]["verified"]
    signed_in = browser.rp("signIn", username=user)
    assert signed_in.get("ok") and signed_in["verdict"]["verified"], signed_in
    new = browser.ceremonies()[seen:]
    browser.wait_for_log(lambda: [c for c in browser.ended() if c["id"] == new[-1]["id"]], "the barrier sign-in's end")
    assert [c["type"] for c in new] == ["create", "get"], "\n".join(c["line"] for c in new)
    assert all("-f0-" in c["id"] for c in new), "\n".join(c["line"] for c in new)


@pytest.mark.parametrize("kind", ["get", "create"])
def test_csp_sandboxed_page_is_refused_at_once_as_the_browsers_own_refuse_it(browser, chromium_own, rp_server, kind,
                                                                             request):
    options = options_for(browser, rp_server, kind)
    seen = len(browser.ceremonies())
    browser.open("/hostile.html?csp=sandbox")
    assert browser.call("window.origin") == "null"
    ours = browser.call(f"hostile.call({{kind: '{kind}', options: {json_of(options)}}})")
    own = chromium_own if browser.kind == "chromium" else request.getfixturevalue("firefox_own")
    own.open("/hostile.html?csp=sandbox")
    theirs = own.call(f"hostile.call({{kind: '{kind}', options: {json_of(options)}}})")
    assert answer(theirs) == (OPAQUE if browser.kind == "chromium" else ("SecurityError", "The operation is insecure."))
    assert answer(ours) == answer(theirs)
    assert browser.call(f"hostile.forge({{kind: '{kind}', options: {json_of(options)}}}).origin") == "null"
    reached_nothing_since(browser, seen)


def frame_results(session, top_path: str, spec: dict) -> list:
    """Opens top_path (a page with hostile.js), frames spec["src"] in it and runs spec["calls"] there."""
    session.open(top_path)
    outcome = session.call(f"hostile.frameCalls({json_of(spec)})")
    assert "error" not in outcome, outcome
    return outcome["results"]


def assert_answered_as_chromium(browser, ours: list, theirs: list, expected: list):
    """Chromium's own gave `expected`, and so must the bridge in Chromium. In Firefox these frames are not
    same-origin with their ancestors, so the bridge hands them to Firefox's own WebAuthn, which refuses too."""
    assert [answer(r) for r in theirs] == expected
    if browser.kind == "chromium":
        assert [answer(r) for r in ours] == expected
    else:
        assert [answer(r)[0] for r in ours] == ["NotAllowedError"] * len(expected), ours


def test_sandboxed_iframe_is_refused(browser, chromium_own, rp_server):
    options = options_for(browser, rp_server, "get")
    calls = [{"action": "call", "args": {"kind": "get", "options": options}},
             {"action": "forge", "args": {"kind": "get", "options": options}},
             {"action": "call", "args": {"kind": "create", "options": options_for(browser, rp_server, "create")}}]
    seen = len(browser.ceremonies())
    spec = {"src": f"{browser.site_origin}/hostile.html", "sandbox": "allow-scripts", "calls": calls}
    ours = frame_results(browser, "/hostile.html", spec)
    theirs = frame_results(chromium_own, "/hostile.html", spec)
    assert ours[1]["origin"] == "null" and theirs[1]["origin"] == "null"
    assert_answered_as_chromium(browser, [ours[0], ours[2]], [theirs[0], theirs[2]],
                                [policy_refusal("get"), policy_refusal("create")])
    reached_nothing_since(browser, seen)


def test_cross_origin_iframe_without_allow_that_subverts_its_world_is_refused(browser, chromium_own, rp_server):
    get_options = options_for(browser, rp_server, "get")
    create_options = options_for(browser, rp_server, "create")
    seen = len(browser.ceremonies())
    calls = [{"action": "subvert", "args": {}},
             {"action": "forge", "args": {"kind": "get", "options": get_options}},
             {"action": "forge", "args": {"kind": "create", "options": create_options}},
             {"action": "call", "args": {"kind": "get", "options": get_options}},
             {"action": "call", "args": {"kind": "create", "options": create_options}}]
    spec = {"src": f"{rp_server.frame_origin}/hostile.html", "calls": calls}
    ours = frame_results(browser, "/hostile.html", spec)
    theirs = frame_results(chromium_own, "/hostile.html", spec)
    assert ours[0] is True and ours[1]["origin"] == rp_server.frame_origin
    assert_answered_as_chromium(browser, ours[3:], theirs[3:], [policy_refusal("get"), policy_refusal("create")])
    reached_nothing_since(browser, seen)


def test_a_same_origin_frame_its_embedder_denied_is_refused_as_the_browsers_own_refuse_it(browser, chromium_own,
                                                                                          rp_server, request):
    # The embedder turns WebAuthn off for a frame of its own origin (user content, a widget it does not trust).
    # Firefox exposes no permissions policy to the frame, so the frame's own world cannot tell; Firefox's own
    # refuses it, as Chromium's does.
    options = {kind: options_for(browser, rp_server, kind) for kind in ("get", "create")}
    seen = len(browser.ceremonies())
    spec = {"src": f"{browser.site_origin}/hostile.html",
            "allow": "publickey-credentials-get 'none'; publickey-credentials-create 'none'",
            "calls": [{"action": "call", "args": {"kind": kind, "options": options[kind]}} for kind in options]}
    ours = frame_results(browser, "/hostile.html", spec)
    if browser.kind == "chromium":
        theirs = frame_results(chromium_own, "/hostile.html", spec)
        assert [answer(r) for r in theirs] == [policy_refusal("get"), policy_refusal("create")]
    else:
        theirs = frame_results(request.getfixturevalue("firefox_own"), "/hostile.html", spec)
        assert [answer(r) for r in theirs] == [FIREFOX_NOT_ALLOWED] * 2
    assert [answer(r) for r in ours] == [answer(r) for r in theirs]
    reached_nothing_since(browser, seen)


def test_frame_under_a_csp_sandboxed_top_page_is_refused_not_given_the_top_urls_origin(browser, chromium_own,
                                                                                        rp_server):
    # A sandboxed upload framing the real login page of another origin, with allow=: the frame's topOrigin would
    # be the upload's URL origin, but the top-level document has none.
    options = options_for(browser, rp_server, "get")
    seen = len(browser.ceremonies())
    spec = {"src": f"{rp_server.frame_origin}/hostile.html", "allow": "publickey-credentials-get *",
            "calls": [{"action": "call", "args": {"kind": "get", "options": options}}]}
    ours = frame_results(browser, "/hostile.html?csp=sandbox", spec)
    theirs = frame_results(chromium_own, "/hostile.html?csp=sandbox", spec)
    assert_answered_as_chromium(browser, ours, theirs, [OPAQUE])
    reached_nothing_since(browser, seen)


def test_create_from_a_background_tab_is_refused_as_chromium_refuses_it(browser, chromium_own):
    browser.open("/index.html")
    seen = len(browser.ceremonies())
    with browser.second_tab("/index.html"):
        assert browser.call("document.visibilityState") == "hidden"
        ours = browser.rp("register", username=browser.new_user("bgcreate"))
    with chromium_own.second_tab("/index.html"):
        theirs = chromium_own.rp("register", username=chromium_own.new_user("bgcreate"))
    assert answer(theirs) == NO_FOCUS
    # Firefox's own refuses a document outside the active tab in its own words (as in the frame test above).
    assert answer(ours) == (NO_FOCUS if browser.kind == "chromium" else FIREFOX_NOT_ALLOWED)
    assert browser.ceremonies()[seen:] == []


def test_get_from_a_background_tab_waits_for_its_tab_without_reaching_the_key(browser, chromium_own):
    browser.open("/index.html")
    user = browser.new_user("bgget")
    assert browser.rp("register", username=user)["verdict"]["verified"]
    seen = len(browser.ceremonies())
    with browser.second_tab("/index.html") as background:
        browser.call(f"(window.heldState = 'pending', window.held = rp.signIn({{username: {json_of(user)}, "
                     "timeout: 120000, deadlineMs: 120000}).then((r) => { window.heldState = 'settled'; return r; }),"
                     " true)")
        with browser.browser.in_tab(browser.front_tab):
            # The focused tab is served meanwhile: the held request neither reached the host nor blocks it.
            signed_in = browser.rp("signIn", username=user)
            assert signed_in.get("ok") and signed_in["verdict"]["verified"], signed_in
        assert browser.call("window.heldState") == "pending"
        assert len(browser.ceremonies()[seen:]) == 1, "only the focused tab's get reached the host"
        browser.browser.activate(background)
        held = browser.call("window.held", timeout=60)
        assert held.get("ok") and held["verdict"]["verified"], held
    assert len(browser.ceremonies()[seen:]) == 2

    # Chromium's own serves it at once: its dialog would wait inside the tab, where the user is not.
    with chromium_own.second_tab("/index.html") as background:
        chromium_own.browser.activate(background)
        # Chromium's own refuses a page without the focus at once; the page has it a moment after activateTarget.
        assert chromium_own.browser.wait_for("document.visibilityState === 'visible' && document.hasFocus()")
        own_user = chromium_own.new_user("bgget")
        assert chromium_own.rp("register", username=own_user)["verdict"]["verified"]
        chromium_own.browser.activate(chromium_own.front_tab)
        assert chromium_own.browser.wait_for("document.visibilityState === 'hidden'"), "the tab is in the background"
        served = chromium_own.rp("signIn", username=own_user)
        assert served.get("ok") and served["verdict"]["verified"], served
