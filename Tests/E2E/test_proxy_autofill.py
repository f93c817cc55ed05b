"""Passkey autofill on Chromium's proxy path (docs/extension.md, "Chromium's proxy path"): while the proxy is attached,
Chromium refuses every conditional get of the profile at once, so the bridge attaches it only while a request needs
it. Then:

- Chromium's own conditional get works on the proxy path: unpatched (a fresh about:blank frame, which no content
  script reaches) it waits for the user's choice instead of being refused (through the bridge's page script it
  reaches Chromium's own, which answers from a DevTools virtual authenticator's passkey: test_coexistence.py);
- while the bridge serves a modal request the proxy is attached, and a conditional get then is refused at once;
- a password manager that races its own conditional answer against the browser's function (Bitwarden's way) wins
  in both orders of the page scripts: before, with its script first, Chromium's refusal came first.
"""
import pytest

from harness.session import BrowserSession
from test_proxy import attached_for_a_held_request, registered_user
from test_coexistence import open_site, page_rp, standin_passkey, verified, with_standin

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
