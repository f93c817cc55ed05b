"""A password manager's page script torn down while the page stays (docs/extension.md, "Beside password managers"):
Bitwarden's, when its content script's port disconnects (its extension reloaded or updated, its passkeys switched
off, the site excluded, its user logged out), assigns back on navigator.credentials the bound create/get it found.
The stand-in does the same on a window message (Tests/E2E/standin-passkey-manager/teardown.js).

With the stand-in's script first, the bridge is on top of it: the put-back functions go below the bridge, which stays
on top and keeps serving every site on the session's path. With the bridge's first, what is put back is the bridge's
own, bound: it serves again. Either way conditional requests never reach the host, and a site's bound copy of the
bridge's own assigned back (read as a put-back) hands on to the browser's own, no loop (docs/security.md).
"""
import pytest

from test_coexistence import STANDIN_AAGUID, open_site, page_rp, verified, with_standin

# The bridge on top on each path; the bridge's first once (the put-back is then the bridge's own, in both browsers).
CASES = [("chromium", "page", True), ("chromium", "proxy", True), ("firefox", "page", True), ("firefox", "page", False)]
TEAR_DOWN_JS = "window.postMessage({channel: 'standin-passkey-manager', dir: 'teardown'}, window.origin), true"
STANDIN_GONE_JS = ("!navigator.credentials.create.__standinPasskeyManager"
                   " && !navigator.credentials.get.__standinPasskeyManager")
BRIDGE_ON_TOP_JS = ("navigator.credentials.create.__webauthnBridge === true"
                    " && navigator.credentials.get.__webauthnBridge === true")


@pytest.fixture(scope="module", params=CASES,
                ids=[f"{k}{'-proxy' if p == 'proxy' else ''}-{'standin' if f else 'bridge'}-first" for k, p, f in CASES])
def pair(request, host, rp_server):
    kind, path, standin_first = request.param
    yield from with_standin(kind, path, standin_first, host, rp_server)


def tear_down(session) -> None:
    """The stand-in's teardown in the open page, once its functions are off navigator.credentials."""
    session.call(TEAR_DOWN_JS)
    assert session.browser.wait_for(STANDIN_GONE_JS, timeout=10), "the stand-in's functions are still in place"


def test_once_the_password_manager_is_torn_down_the_bridge_serves_every_site(pair, rp_server):
    for origin in (pair.site_origin, rp_server.frame_origin):   # the bridge's site, then the stand-in's
        open_site(pair, origin)
        tear_down(pair)
        if pair.standin_first:
            assert pair.call(BRIDGE_ON_TOP_JS) is True, "the bridge's functions are no longer what the page calls"
        user = pair.new_user("torn")
        made = verified(pair.rp("register", username=user), f"registration on {origin} after the teardown")
        assert made["aaguid"] != STANDIN_AAGUID, made
        verified(pair.rp("signIn", username=user), f"sign-in on {origin} after the teardown")


def test_once_the_password_manager_is_torn_down_conditional_requests_stay_off_the_host(pair):
    open_site(pair, pair.site_origin)
    tear_down(pair)
    seen = len(pair.ceremonies())
    result = page_rp(pair, "signIn", mediation="conditional", abortAfterMs=500)
    # The browser's own keeps it waiting until the page aborts; Chromium's refuses it at once while the proxy is
    # attached (the put-back function is the browser's own, which the bridge calls as it is).
    assert result.get("name") in ("AbortError", "NotAllowedError"), result
    assert pair.ceremonies()[seen:] == [], "a conditional request reached the host"


# A site that binds what it finds and assigns it back (a bound copy of the bridge's own, which reads as the browser's
# own put back), then asks for something the bridge hands on: the browser's own answer, not a loop (before: a
# RangeError in Chromium, "too much recursion" in Firefox).
REBIND_JS = """(async () => {
  const c = navigator.credentials;
  c.get = c.get.bind(c);
  try { return String(await c.get({password: true, mediation: 'silent'})); }
  catch (e) { return `${e.name}: ${e.message}`; }
})()"""
BROWSERS_OWN_PASSWORD_GET = {"chromium": "null",
                             "firefox": "NotSupportedError: CredentialsContainer request is not supported."}


def test_the_bridges_own_bound_and_assigned_back_hands_on_to_the_browsers_own(pair):
    open_site(pair, pair.site_origin)
    assert pair.call(REBIND_JS) == BROWSERS_OWN_PASSWORD_GET[pair.kind]
