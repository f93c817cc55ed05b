"""Beside a password manager that wraps navigator.credentials as Proton Pass does (docs/extension.md, "Beside password
managers"): Tests/E2E/standin-isolated-manager/, in Firefox an isolated content script defining the page's
create/get with exportFunction and answering with cloneInto copies, in Chromium the same script in the page's world.
It keeps passkeys for the RP's second origin and hands everything else to what it found. Each browser and path runs
with its script first and with the bridge's first (the order follows the extensions' ids: harness/standin.py).

The checks are test_coexistence.py's, imported, on this stand-in's sessions: its site served by it with nothing at
the host (but on Firefox's page path with its script first, where its exported functions read as native code and the
bridge, on top, serves that site too), every other site served by the bridge on the session's path, conditional
requests never at the host; and, in Firefox, where the bridge is on top, "another way" hands the request to it
through its exported functions.
"""
import pytest

from harness.prompt_window import PromptWindow
from harness.standin import STANDIN_AAGUID
from harness.standin_isolated import isolated_standin_extension
from test_another_way import BUTTON, host_cancelled, settled, start, window_offering_another_way
from test_coexistence import (  # noqa: F401 (the tests, collected here again with this module's fixtures)
    open_site, test_conditional_mediation_elsewhere_goes_to_the_browsers_own,
    test_conditional_mediation_on_its_site_goes_to_the_password_manager,
    test_every_other_site_is_served_by_the_bridge,
    test_the_password_managers_site_is_served_by_it_and_never_reaches_the_host, verified, with_standin)

CASES = [(kind, path, first) for kind, path in (("chromium", "page"), ("chromium", "proxy"), ("firefox", "page"))
         for first in (True, False)]


def with_isolated_standin(kind: str, path: str, standin_first: bool, host, rp_server, **session_args):
    """A BrowserSession beside the isolated stand-in serving the RP's second origin, its script first or second."""
    yield from with_standin(kind, path, standin_first, host, rp_server, make_standin=isolated_standin_extension,
                            native_in=("firefox",), **session_args)


@pytest.fixture(scope="module", params=CASES,
                ids=[f"{k}{'-proxy' if p == 'proxy' else ''}-{'standin' if f else 'bridge'}-first" for k, p, f in CASES])
def pair(request, host, rp_server):
    kind, path, standin_first = request.param
    yield from with_isolated_standin(kind, path, standin_first, host, rp_server)


@pytest.fixture(scope="module", params=["firefox"])
def bridge_on_top(request, host, rp_server):
    """Firefox's page path with the stand-in's script first: the bridge's window waits for a touch (a minute) and
    offers another way, which hands the request to the stand-in's exported functions (Chromium's page-world case is
    test_coexistence.py's)."""
    yield from with_isolated_standin(request.param, "page", True, host, rp_server,
                                     token_args=("--presence", "delay:60000"), own_authenticator=True)


def test_its_site_is_told_a_passkey_is_available(pair, rp_server):
    """Its isConditionalMediationAvailable and isUserVerifyingPlatformAuthenticatorAvailable (exported in Firefox)
    answer yes on its site in either order."""
    open_site(pair, rp_server.frame_origin)
    assert pair.call("PublicKeyCredential.isConditionalMediationAvailable()") is True
    assert pair.call("PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable()") is True


def test_where_the_bridge_is_on_top_the_password_manager_is_one_click_away(bridge_on_top, rp_server):
    session = bridge_on_top
    open_site(session, rp_server.frame_origin)
    user = session.new_user("handed")
    for function in ("register", "signIn"):
        before = len(session.ended())
        start(session, function, username=user)
        window_offering_another_way(session, "Touch your security key.").click(BUTTON)
        result = verified(settled(session), f"{function} handed to the stand-in")
        if function == "register":
            assert result["aaguid"] == STANDIN_AAGUID, result
        host_cancelled(session, before)
        PromptWindow.wait_gone(session.browser)
