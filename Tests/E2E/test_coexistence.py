"""Beside a password manager that wraps navigator.credentials as the bridge does (docs/extension.md, "Beside password
managers"): the stand-in of Tests/E2E/standin-passkey-manager/ keeps passkeys for the RP's second origin and hands
everything else to what it found. Each browser and path runs twice: the stand-in's page script first, and the
bridge's first (harness/standin.py: the order follows the extensions' ids, in both browsers); and twice more with
the stand-in doing as KeePassXC-Browser does: its own object at navigator.credentials, put there after the page
began (so after the bridge), calling the container's functions at call time.

- The stand-in's site: what the stand-in serves (a passkey of its own, AAGUID "standin-passkeys", verified by the
  RP) never reaches the host, in either order: with the stand-in's script first the bridge, on top, hands it each
  modal request first (page/tripwire.js), unless its functions read as native code (test_coexistence_isolated.py's
  Firefox case): the bridge then serves that site too, and its window's "another way" reaches the stand-in.
- Every other site: the bridge serves (a SoftToken credential at the host, on the session's path); with the
  stand-in's script first, once the stand-in handed the request on to the browser's own, which never begins a
  ceremony (its virtual authenticator is never asked), and the page's signal still ends it. What the bridge then
  hands below (the window's "another way") goes to the browser's own, the stand-in having declined it already.
- A stand-in that copies the options before handing them on: the browser's own serves those requests, as beside
  that stand-in alone, and nothing reaches the host.
- Conditional mediation always goes below the bridge: on the stand-in's site to the stand-in, which answers it;
  elsewhere to the browser's own (Chromium: a DevTools virtual authenticator answers it; Firefox: its own keeps
  it waiting until the page aborts), never to the host; on Chromium's proxy path too, the proxy being attached only
  while a request needs it (test_proxy_autofill.py).
- isConditionalMediationAvailable() and getClientCapabilities() on the stand-in's site say what the stand-in says,
  with the host's capabilities merged in by whichever of the two is on top.
- A stand-in that races its conditional answer against the function it found (Bitwarden's way) wins the race with
  the bridge below it, also on Chromium's proxy path (test_proxy_autofill.py: in both orders).
"""
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from harness.prompt_window import PromptWindow
from harness.session import BrowserSession
from harness.standin import (BRIDGE_RAN_FIRST_JS, STANDIN_AAGUID, STANDIN_RAN_FIRST_JS, STANDIN_REPLACED_JS,
                             standin_extension)
from test_another_way import BUTTON, host_cancelled, own_credentials, settled, start, window_offering_another_way

CASES = [(kind, path, first, "assign") for kind, path in (("chromium", "page"), ("chromium", "proxy"), ("firefox", "page"))
         for first in (True, False)]
# KeePassXC-Browser's way (harness/standin.py, style "replace"), which runs once the page began: after the bridge.
CASES += [("chromium", "proxy", False, "replace"), ("firefox", "page", False, "replace")]

# A call of the browser's own create() from a fresh about:blank frame, which no extension's content script reaches.
BROWSERS_OWN_CREATE = """(async (options) => {
  const decode = (t) => Uint8Array.from(atob(t.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  const frame = document.createElement('iframe');
  document.body.append(frame);
  try {
    const publicKey = { ...options, challenge: decode(options.challenge), user: { ...options.user, id: decode(options.user.id) },
                        excludeCredentials: [] };
    return (await frame.contentWindow.navigator.credentials.create({ publicKey })).toJSON();
  } finally {
    frame.remove();
  }
})"""


def with_standin(kind: str, path: str, standin_first: bool, host, rp_server, races: bool = False,
                 style: str = "assign", copies: bool = False, make_standin=standin_extension, native_in=(),
                 **session_args):
    """A BrowserSession beside a stand-in serving the RP's second origin, its page script first or second, its
    conditional answers raced against what it found or not, wrapping navigator.credentials in `style`, handing
    requests on with a copy of their options (`copies`) or the object itself; `make_standin` copies it
    (harness/standin.py's signature; test_coexistence_isolated.py passes another), whose functions read as native
    code in the browsers `native_in`."""
    scratch = Path(tempfile.mkdtemp(prefix="webauthn-bridge-e2e-standin-"))
    session = None
    try:
        copying = {"copies": True} if copies else {}
        standin = make_standin(scratch, [rp_server.frame_origin], kind, standin_first, races, style, **copying)
        ready = (STANDIN_REPLACED_JS if style == "replace"
                 else STANDIN_RAN_FIRST_JS if standin_first else BRIDGE_RAN_FIRST_JS)
        session = BrowserSession(kind, host, rp_server.origin, path=path, others=(standin,),
                                 others_first=standin_first, ready_js=ready, **session_args)
        session.timed = False   # another extension in the way: not for the timing summary
        session.standin_first = standin_first
        session.standin_native = kind in native_in
        yield session
    finally:
        if session:
            session.close()
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.fixture(scope="module", params=CASES,
                ids=[f"{k}{'-proxy' if p == 'proxy' else ''}-{'standin' if f else 'bridge'}-first"
                     f"{'-replacing' if style == 'replace' else ''}" for k, p, f, style in CASES])
def pair(request, host, rp_server):
    kind, path, standin_first, style = request.param
    yield from with_standin(kind, path, standin_first, host, rp_server, style=style)


@pytest.fixture(scope="module", params=["chromium", "firefox"])
def standin_below(request, host, rp_server):
    """The page path with the stand-in's script first, the bridge's functions on top. The SoftToken waits a minute
    for its touch, so the bridge's window stays open for as long as the test needs; the browser's own is answered by
    a virtual authenticator, which says whether it was ever asked (OWN_AUTHENTICATOR in test_another_way.py:
    Firefox's page then has the focus the hand-over waits for)."""
    yield from with_standin(request.param, "page", True, host, rp_server, token_args=("--presence", "delay:60000"),
                            own_authenticator=True)


@pytest.fixture(scope="module", params=["chromium", "firefox"])
def copying_standin_below(request, host, rp_server):
    """As standin_below, with a stand-in that hands requests on with a copy of their options."""
    yield from with_standin(request.param, "page", True, host, rp_server, copies=True, own_authenticator=True)


@pytest.fixture(scope="module", params=["chromium-proxy", "firefox"])
def racing(request, host, rp_server):
    """The bridge's script first, the stand-in's conditional answers raced against the bridge's (Bitwarden's way)."""
    kind, _, path = request.param.partition("-")
    yield from with_standin(kind, path or "page", False, host, rp_server, races=True)


def open_site(session, origin: str) -> None:
    """A page of the RP at `origin`, once both extensions' page scripts are in place in the order asked."""
    session.browser.open(f"{origin}/index.html")
    assert session.browser.wait_for(session.ready_js, timeout=20), \
        f"{session.kind}: the page scripts did not run in the order asked ({session.ready_js})\n{session.diagnostics()}"


def page_rp(session, function: str, **args) -> dict:
    """rp.<function> in the page, without BrowserSession.rp()'s check that the host served it."""
    return session.call(f"rp.{function}({json.dumps(args)})")


def verified(result: dict, what: str) -> dict:
    assert result.get("ok") and result["verdict"].get("verified") is True, f"{what}: {result}"
    return result["verdict"]


def standin_passkey(session, name: str) -> dict:
    """A passkey in the stand-in's vault, made by calling the stand-in's own create() (wherever the bridge's is):
    the RP's verdict."""
    session.call("window.capturedCreate = window.standinPasskeyManager.create, true")
    made = verified(page_rp(session, "register", username=session.new_user(name), via="captured"),
                    "registration by the stand-in")
    assert made["aaguid"] == STANDIN_AAGUID, made
    return made


def bridge_on_top_of_standin(session) -> bool:
    """The page path with the stand-in's script first and its functions reading as native code (an isolated world's,
    in Firefox): the bridge, on top, offers it nothing first (page/tripwire.js), so it serves that site too."""
    return session.standin_first and session.path == "page" and session.standin_native


def test_the_password_managers_site_is_served_by_it_and_never_reaches_the_host(pair, rp_server):
    open_site(pair, rp_server.frame_origin)
    seen = len(pair.ceremonies())
    user = pair.new_user("vault")
    made = verified(page_rp(pair, "register", username=user), "registration on the stand-in's site")
    signed = verified(page_rp(pair, "signIn", username=user), "sign-in on the stand-in's site")
    assert signed["credentialId"] == made["credentialId"]
    reached = pair.ceremonies()[seen:]
    if bridge_on_top_of_standin(pair):
        assert made["aaguid"] != STANDIN_AAGUID, made
        assert [c["type"] for c in reached] == ["create", "get"], reached
    else:
        assert made["aaguid"] == STANDIN_AAGUID, made
        assert reached == [], f"a request the stand-in served reached the host: {reached}"


def test_every_other_site_is_served_by_the_bridge(pair):
    open_site(pair, pair.site_origin)
    user = pair.new_user("key")
    made = verified(pair.rp("register", username=user), "registration on the bridge's site")   # on the session's path
    assert made["aaguid"] != STANDIN_AAGUID, made
    verified(pair.rp("signIn", username=user), "sign-in on the bridge's site")


def test_conditional_mediation_on_its_site_goes_to_the_password_manager(pair, rp_server):
    open_site(pair, rp_server.frame_origin)
    seen = len(pair.ceremonies())
    standin_passkey(pair, "autofill")
    signed = verified(page_rp(pair, "signIn", mediation="conditional"), "conditional sign-in on the stand-in's site")
    assert signed["username"].startswith(("vault-", "autofill-")), signed   # one of the stand-in's passkeys
    assert pair.ceremonies()[seen:] == [], "a request the stand-in served reached the host"


def test_conditional_mediation_elsewhere_goes_to_the_browsers_own(pair, rp_server):
    open_site(pair, pair.site_origin)
    seen = len(pair.ceremonies())
    if pair.kind == "firefox":
        # Firefox's own keeps a conditional request waiting (for its autofill, which a headless page never shows)
        # until the page aborts it. The bridge would have served it at once.
        result = page_rp(pair, "signIn", mediation="conditional", abortAfterMs=500)
        assert result.get("name") == "AbortError", result
    else:
        # Chromium's own answers from a DevTools virtual authenticator holding a passkey it made for the site (a tab
        # with one is served by it, not proxied).
        pair.browser.add_virtual_authenticator()
        try:
            user = pair.new_user("browser")
            options = rp_server.rp.registration_options({"username": user, "residentKey": "required"})
            own = pair.call(f"{BROWSERS_OWN_CREATE}({json.dumps(options)})")
            rp_server.rp.verify_registration(own, pair.site_origin)
            signed = verified(page_rp(pair, "signIn", mediation="conditional"), "conditional sign-in elsewhere")
            assert signed["credentialId"] == own["id"] and signed["username"] == user, signed
        finally:
            # Disabled, not just removed: an enabled WebAuthn domain keeps the tab's requests from the proxy path.
            pair.browser.call("WebAuthn.disable")
    assert pair.ceremonies()[seen:] == [], "a conditional request reached the host"


def test_its_site_is_told_conditional_mediation_is_available(pair, rp_server):
    open_site(pair, rp_server.frame_origin)
    assert pair.call("PublicKeyCredential.isConditionalMediationAvailable()") is True
    capabilities = pair.call("PublicKeyCredential.getClientCapabilities()")
    assert capabilities.get("conditionalGet") is True, capabilities
    assert capabilities.get("hybridTransport") is False, f"the bridge's merge is missing: {capabilities}"


def test_the_bridges_functions_read_as_the_browsers_own(pair):
    """A script that checks for a wrapper through Function.prototype.toString (a password manager's, a site's) reads
    the bridge's create/get as the browser's own, which a fresh about:blank frame (no content script) still has."""
    open_site(pair, pair.site_origin)
    sources = pair.call("""(() => {
      const frame = document.body.appendChild(document.createElement('iframe'));
      const own = frame.contentWindow.CredentialsContainer.prototype;
      const c = navigator.credentials, bridge = c.get.__webauthnBridge ? c : CredentialsContainer.prototype;
      const read = (f) => Function.prototype.toString.call(f);
      const out = [read(bridge.get), read(own.get), read(bridge.create), read(own.create)];
      frame.remove();
      return out;
    })()""")
    assert sources[0] == sources[1] and sources[2] == sources[3], sources
    assert "[native code]" in sources[0], sources


def test_below_the_bridge_its_site_is_its_own_and_the_browsers_own_is_never_asked(standin_below, rp_server):
    session = standin_below
    open_site(session, rp_server.frame_origin)
    seen, own = len(session.ceremonies()), own_credentials(session)
    user = session.new_user("first")
    made = verified(page_rp(session, "register", username=user), "registration on the stand-in's site")
    assert made["aaguid"] == STANDIN_AAGUID, made
    verified(page_rp(session, "signIn", username=user), "sign-in on the stand-in's site")
    assert session.ceremonies()[seen:] == [], "a request the stand-in served reached the host"
    assert own_credentials(session) == own, "the browser's own was asked"


def test_a_request_it_hands_on_is_the_bridges_and_the_pages_signal_still_ends_it(standin_below):
    session = standin_below
    open_site(session, session.site_origin)
    own = own_credentials(session)
    for function in ("register", "signIn"):
        before = len(session.ended())
        user = {"username": session.new_user("handed-on")} if function == "register" else {}
        start(session, function, abortable=True, **user)
        # The bridge's window waits for a touch: the stand-in handed the request on, the bridge has it.
        window_offering_another_way(session, "Touch your security key.")
        session.call("(window.abortCall(), true)")
        aborted = settled(session)
        assert aborted.get("ok") is False and aborted["name"] == "AbortError", aborted
        host_cancelled(session, before)
        PromptWindow.wait_gone(session.browser)
    assert own_credentials(session) == own, "the browser's own began a ceremony"


def test_what_the_bridge_hands_below_then_goes_to_the_browsers_own(standin_below):
    """The stand-in declined the request already: the window's "another way" reaches the browser's own."""
    session = standin_below
    open_site(session, session.site_origin)
    before = len(session.ended())
    start(session, "register", username=session.new_user("another"))
    window_offering_another_way(session, "Touch your security key.").click(BUTTON)
    result = verified(settled(session), "registration handed to the browser's own")
    assert result["aaguid"] != STANDIN_AAGUID, result
    assert result["credentialId"] in own_credentials(session), "not served by the browser's own"
    host_cancelled(session, before)
    PromptWindow.wait_gone(session.browser)


def test_a_stand_in_that_hands_on_a_copy_gets_the_browsers_own(copying_standin_below):
    """The tripwire never sees a copy: the browser's own serves it, as beside that password manager alone."""
    session = copying_standin_below
    open_site(session, session.site_origin)
    seen = len(session.ceremonies())
    result = verified(page_rp(session, "register", username=session.new_user("copied")), "registration of a copy")
    assert result["credentialId"] in own_credentials(session), "not served by the browser's own"
    assert session.ceremonies()[seen:] == [], "a copy handed to the browser's own reached the host"


def test_a_password_manager_racing_the_bridge_for_a_conditional_request_wins_it(racing, rp_server):
    open_site(racing, rp_server.frame_origin)
    seen = len(racing.ceremonies())
    made = standin_passkey(racing, "raced")
    signed = verified(page_rp(racing, "signIn", mediation="conditional"), "conditional sign-in raced by the stand-in")
    assert signed["credentialId"] == made["credentialId"], signed   # its only passkey
    assert racing.ceremonies()[seen:] == [], "a request the stand-in served reached the host"
