"""A page whose certificate the browser rejected, reached anyway: the user clicked through the warning (Chromium's
"Proceed", Firefox's "Accept the Risk and Continue"). Both browsers' own WebAuthn refuse such a page at once, so a
network attacker who gets that click holds no credential for the real origin; the bridge must refuse it too,
with each browser's own error, on every path, and nothing may reach the key.

The page is served over https with a self-signed certificate (harness/tls_site.py) at an ordinary name
(`victim.test`, resolved to loopback by the browsers' own settings); at `localhost` both browsers' own serve it
regardless, and so does the bridge. References: Chromium's own without a virtual authenticator (Chromium skips
its certificate check while one is attached), Firefox's own under Marionette (a BiDi-driven headless page never
has the focus, which Firefox's own checks first).
"""
import json

import pytest

from harness.session import BrowserSession
from harness.tls_site import TLSSite

BROWSERS = ("chromium", "firefox", "chromium-proxy")
CHROMIUM_REFUSAL = ("NotAllowedError", "WebAuthn is not supported on sites with TLS certificate errors.")
FIREFOX_REFUSAL = ("SecurityError", "The operation is insecure.")


@pytest.fixture(scope="module")
def tls_site(rp_server):
    site = TLSSite(rp_server.rp)
    yield site
    site.close()


def settings(site: TLSSite) -> dict:
    return {"chromium_flags": site.chromium_flags(), "firefox_prefs": site.firefox_prefs(),
            "profile_files": site.firefox_override()}


@pytest.fixture(scope="module", params=BROWSERS)
def ours(request, host, rp_server, tls_site):
    session = BrowserSession.for_param(request.param, host, rp_server.origin, **settings(tls_site))
    yield session
    session.close()


@pytest.fixture(scope="module")
def own(host, rp_server, tls_site):
    """Each browser's own WebAuthn, without the bridge: {"chromium": …, "firefox": …}, started when first asked."""
    sessions = {}

    def get(kind: str) -> BrowserSession:
        if kind not in sessions:
            sessions[kind] = BrowserSession(kind, host, rp_server.origin, install=False, own_webauthn=True,
                                            virtual_authenticator=False, **settings(tls_site))
        return sessions[kind]

    yield get
    for session in sessions.values():
        session.close()


def answer(result: dict) -> tuple[str, str]:
    assert result.get("ok") is False and result.get("stage") != "deadline", f"expected a refusal at once: {result}"
    return result["name"], result["message"]


def call(session, kind: str, options: dict) -> dict:
    return session.call(f"hostile.call({{kind: {json.dumps(kind)}, options: {json.dumps(options)}, deadlineMs: 5000}})")


@pytest.mark.parametrize("kind", ["create", "get"])
def test_a_page_past_a_certificate_warning_gets_no_ceremony_as_the_browsers_own_refuses_it(ours, own, tls_site,
                                                                                            rp_server, kind):
    url = tls_site.origin() + "/hostile.html"
    rp_id = tls_site.origin().split("//")[1].split(":")[0]
    options = (rp_server.rp.registration_options({"username": ours.new_user("tls"), "rpId": rp_id}) if kind == "create"
               else rp_server.rp.authentication_options({"rpId": rp_id}))
    reference = own(ours.kind)
    reference.open(url, past_certificate_warning=True)
    theirs = answer(call(reference, kind, options))
    assert theirs == (CHROMIUM_REFUSAL if ours.kind == "chromium" else FIREFOX_REFUSAL), theirs

    seen = len(ours.ceremonies())
    ours.open(url, past_certificate_warning=True)   # the bridge's override is in place there (checked)
    assert ours.call("window.isSecureContext") is True, "the page is a secure context: no page rule can tell"
    assert answer(call(ours, kind, options)) == theirs
    assert ours.ceremonies()[seen:] == [], "nothing reached the host"


def test_the_same_certificate_at_localhost_is_served_as_the_browsers_own_serve_it(ours, own, tls_site):
    # Both browsers exempt localhost from the certificate check, so a developer's self-signed https server works.
    url = tls_site.origin("localhost") + "/index.html"
    reference = own(ours.kind)
    reference.open(url, past_certificate_warning=True)
    user = ours.new_user("tls-localhost")
    theirs = reference.rp("register", username=user, deadlineMs=3000, abortable=True)
    if ours.kind == "firefox":
        assert theirs.get("ok") and theirs["verdict"]["verified"], theirs
    else:   # no authenticator: Chromium's own is still waiting for one, past its certificate check
        assert theirs.get("stage") == "deadline", theirs
        # Ended here, not by the next test's navigation: Chromium lets go of a request only once the old document
        # is gone, and until then the next page's call gets "A request is already pending."
        assert reference.call("(window.abortCall(), window.abortableCallEnd)") == "AbortError"

    ours.open(url, past_certificate_warning=True)
    registered = ours.rp("register", username=ours.new_user("tls-localhost"))
    assert registered.get("ok") and registered["verdict"]["verified"], registered
    assert registered["verdict"]["clientData"]["origin"] == tls_site.origin("localhost")
