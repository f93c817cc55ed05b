"""The DOMExceptions a page sees when the bridge refuses a request, as a browser would raise them."""
PROXY_PATH = True   # also in Chromium through the proxy path (conftest.py)


def test_registering_an_excluded_credential_raises_invalid_state_error(browser):
    user = browser.new_user("erin")
    first = browser.rp("register", username=user)
    assert first.get("ok") and first["verdict"]["verified"], first
    # Same user again: the RP lists the credential just made in excludeCredentials.
    again = browser.rp("register", username=user, excludeRegistered=True)
    assert again.get("ok") is False, again
    assert again["name"] == "InvalidStateError", again
    assert again["isDOMException"] is True, again


def test_create_with_another_sites_rp_id_raises_security_error(browser):
    result = browser.rp("register", username=browser.new_user("mallory"), rpId="example.com")
    assert result.get("ok") is False, result
    assert result["name"] == "SecurityError", result
    assert result["isDOMException"] is True, result


def test_get_with_another_sites_rp_id_raises_security_error(browser):
    result = browser.rp("signIn", rpId="example.com")
    assert result.get("ok") is False, result
    assert result["name"] == "SecurityError", result
    assert result["isDOMException"] is True, result
