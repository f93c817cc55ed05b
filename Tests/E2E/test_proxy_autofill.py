"""Passkey autofill on Chromium's proxy path (docs/extension.md, "Chromium's proxy path"): while the proxy is attached,
Chromium refuses every conditional get of the profile at once, so the bridge attaches it only while a request needs
it. Then:

- Chromium's own conditional get works on the proxy path: unpatched (a fresh about:blank frame, which no content
  script reaches) it waits for the user's choice instead of being refused (through the bridge's page script it
  reaches Chromium's own, which answers from a DevTools virtual authenticator's passkey: test_coexistence.py);
- while the bridge serves a modal request the proxy is attached, and Chromium refuses a conditional get then at once:
  one the bridge's page script sees waits until the proxy is detached, then goes to Chromium's own;
- a password manager that races its own conditional answer against the browser's function (Bitwarden's way) wins
  in both orders of the page scripts: before, with its script first, Chromium's refusal came first;
- a service worker started anew leaves the proxy detached at rest and serves through it.
"""
import json

import pytest

from harness.session import BrowserSession
from test_proxy import attached_for_a_held_request, registered_user
from test_coexistence import BROWSERS_OWN_CREATE, open_site, page_rp, standin_passkey, verified, with_standin

# A conditional get from a fresh about:blank frame (Chromium's own functions), then the frame's own
# isConditionalMediationAvailable() (a later call on the same pipe to the browser: an at-once refusal of the get
# has reached the frame by its answer), then an abort: what the get ended with.
UNPATCHED_CONDITIONAL = """(async () => {
  const frame = document.createElement('iframe');
  document.body.append(frame);
  const win = frame.contentWindow;
  const controller = new win.AbortController();
  let outcome = 'pending';
  const settled = win.navigator.credentials.get({ mediation: 'conditional', signal: controller.signal,
                                                  publicKey: { challenge: new Uint8Array(32), rpId: location.hostname } })
    .then(() => 'resolved', (e) => e.name);
  settled.then((name) => { outcome = name; });
  const available = await win.PublicKeyCredential.isConditionalMediationAvailable();
  const before = outcome;
  controller.abort();
  const after = await settled;
  frame.remove();
  return { available, before, after };
})()"""


@pytest.fixture(scope="module")
def proxied(host, rp_server):
    session = BrowserSession("chromium", host, rp_server.origin, path="proxy")
    session.timed = False
    yield session
    session.close()


# A conditional get through the bridge's page script, then getClientCapabilities(), whose question to the background
# follows the get's on the same port: once it is answered, the get has been told whether the proxy is attached.
CONDITIONAL_THROUGH_THE_BRIDGE = """(async (options) => {
  const decode = (t) => Uint8Array.from(atob(t.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  window.conditional = navigator.credentials.get({ mediation: 'conditional',
    publicKey: { ...options, challenge: decode(options.challenge), allowCredentials: [] } }).then((c) => c.toJSON());
  await PublicKeyCredential.getClientCapabilities();
  return true;
})"""


def test_a_conditional_get_made_while_a_request_is_served_goes_to_chromiums_own_once_it_is_not(proxied, rp_server):
    user, _ = registered_user(proxied, rp_server, "held-for-autofill")   # through the bridge: before the tab's own
    authenticator = proxied.browser.add_virtual_authenticator()
    try:
        own_user = proxied.new_user("own-autofill")
        options = rp_server.rp.registration_options({"username": own_user, "residentKey": "required"})
        own = proxied.call(f"{BROWSERS_OWN_CREATE}({json.dumps(options)})")
        rp_server.rp.verify_registration(own, proxied.site_origin)
        with attached_for_a_held_request(proxied, user):
            proxied.call(f"{CONDITIONAL_THROUGH_THE_BRIDGE}({json.dumps(rp_server.rp.authentication_options({}))})")
        # The held request's tab closed: the proxy detached, and the get went to Chromium's own, whose passkey answers.
        signed = proxied.call("window.conditional", timeout=30)
        verdict = rp_server.rp.verify_authentication(signed, proxied.site_origin)
        assert verdict["verified"] and verdict["username"] == own_user, verdict
    finally:
        proxied.browser.call("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator})
        proxied.browser.call("WebAuthn.disable")


def test_a_worker_started_anew_leaves_the_proxy_detached_at_rest_and_serves_through_it(proxied, rp_server):
    """Chromium keeps the proxy attached to the extension, not to its service worker: a worker started anew detaches
    what it may find, and attaches again for the next request."""
    conn = proxied.browser.conn
    workers = [t for t in conn.call("Target.getTargets")["targetInfos"] if t["type"] == "service_worker"]
    assert len(workers) == 1, workers
    conn.call("Target.closeTarget", {"targetId": workers[0]["targetId"]})
    proxied.open("/index.html")
    assert proxied.status_in_background_tab(until="s.proxy.served === 0 && s.proxy.state === 'attached'"), \
        "a worker started anew, the proxy path serving"
    idle = proxied.call(UNPATCHED_CONDITIONAL)
    assert idle == {"available": True, "before": "pending", "after": "AbortError"}, idle
    user = proxied.new_user("restarted")
    verified(proxied.rp("register", username=user), "registration after the worker started anew")   # through the proxy
    verified(proxied.rp("signIn", username=user), "sign-in after the worker started anew")


@pytest.fixture(scope="module", params=[True, False], ids=["standin-first", "bridge-first"])
def racing(request, host, rp_server):
    """The stand-in racing its conditional answers against the function it found (Bitwarden's way), its page script
    first or second, beside the bridge on the proxy path."""
    yield from with_standin("chromium", "proxy", request.param, host, rp_server, races=True)


def test_chromiums_own_conditional_get_waits_while_nothing_is_served_and_is_refused_while_a_request_is(proxied, rp_server):
    idle = proxied.call(UNPATCHED_CONDITIONAL)
    assert idle == {"available": True, "before": "pending", "after": "AbortError"}, idle
    status = proxied.status_in_background_tab()["proxy"]
    assert status["state"] == "attached" and status["attachedNow"] is False, status

    # A sign-in through the bridge, held for its background tab: the proxy is attached for it.
    user, _ = registered_user(proxied, rp_server, "held")
    with attached_for_a_held_request(proxied, user):
        serving = proxied.call(UNPATCHED_CONDITIONAL)
    assert serving == {"available": False, "before": "NotAllowedError", "after": "NotAllowedError"}, serving
    again = proxied.call(UNPATCHED_CONDITIONAL)
    assert again == {"available": True, "before": "pending", "after": "AbortError"}, f"detached once answered: {again}"


def test_a_password_manager_racing_the_browsers_own_wins_its_autofill(racing, rp_server):
    open_site(racing, rp_server.frame_origin)
    seen = len(racing.ceremonies())
    made = standin_passkey(racing, "raced")
    signed = verified(page_rp(racing, "signIn", mediation="conditional"), "conditional sign-in raced by the stand-in")
    assert signed["credentialId"] == made["credentialId"], signed
    assert racing.ceremonies()[seen:] == [], "a request the stand-in served reached the host"
    # The bridge still serves every other site's modal requests, through the proxy.
    open_site(racing, racing.site_origin)
    user = racing.new_user("key")
    verified(racing.rp("register", username=user), "registration on the bridge's site")
    verified(racing.rp("signIn", username=user), "sign-in on the bridge's site")
