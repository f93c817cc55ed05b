"""Host missing (no host manifest anywhere): the extension hands the page's call to the browser's own WebAuthn.

Chromium: a CDP virtual authenticator stands in for a platform key, so the fallback is proved positively —
the credential lands in that authenticator and the RP verifies it.
Firefox: there is no virtual authenticator without WebDriver classic, and a headless document never has
focus, so Firefox's own CredentialsContainer refuses at once with its own message (below). Getting that
message, with no host ever started, is the proof that the call reached the native implementation
(harness/paths.py says why the bridge's own focus refusal, worded alike, cannot be what answered).
"""
import base64
from pathlib import Path

import pytest

from harness.paths import FIREFOX_NATIVE_REFUSAL

INSTALL_HOST = False
SYSTEM_MANIFESTS = ("/usr/lib/mozilla/native-messaging-hosts/webauthn_bridge.json",
                    "/etc/chromium/native-messaging-hosts/webauthn_bridge.json")


@pytest.fixture(autouse=True)
def no_system_wide_host():
    # A system-wide install (install.sh --system) would be found and make this module test nothing.
    present = [m for m in SYSTEM_MANIFESTS if Path(m).exists()]
    assert not present, f"remove the system-wide host manifest(s) first: {present}"


def b64url_of_b64(text: str) -> str:
    return base64.urlsafe_b64encode(base64.b64decode(text)).rstrip(b"=").decode()


def test_without_host_the_browsers_own_webauthn_is_called(browser):
    if browser.kind == "chromium":
        chromium_virtual_authenticator_gets_the_credential(browser)
    else:
        firefox_native_implementation_refuses(browser)
    assert not browser.host_log.exists(), "a host ran although none is installed"


def chromium_virtual_authenticator_gets_the_credential(browser):
    cdp = browser.browser
    authenticator = cdp.add_virtual_authenticator()
    try:
        user = browser.new_user("nohost")
        registered = browser.rp("register", username=user)
        assert registered.get("ok"), f"the fallback create failed: {registered}"
        assert registered["verdict"]["verified"] is True, registered
        stored = cdp.call("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
        assert registered["verdict"]["credentialId"] in [b64url_of_b64(c["credentialId"]) for c in stored]

        signed_in = browser.rp("signIn", username=user)
        assert signed_in.get("ok") and signed_in["verdict"]["verified"] is True, signed_in
    finally:
        cdp.call("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator})


def firefox_native_implementation_refuses(browser):
    result = browser.rp("register", username=browser.new_user("nohost"))
    assert result.get("ok") is False, result
    assert result["name"] == "NotAllowedError", result
    assert result["message"] == FIREFOX_NATIVE_REFUSAL, result
