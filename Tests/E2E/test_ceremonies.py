"""Register and sign in through the bridge, with every credential verified by py_webauthn on the RP side."""
PROXY_PATH = True   # also in Chromium through the proxy path

def assert_verified(result: dict, what: str):
    assert result.get("ok"), f"{what} failed in the page: {result}"
    assert result["verdict"].get("verified") is True, f"the RP refused the {what}: {result['verdict']}"


def test_register_then_sign_in_with_allow_list_is_verified_by_the_rp(browser):
    user = browser.new_user("alice")
    registered = browser.rp("register", username=user)
    assert_verified(registered, "registration")
    assert registered["verdict"]["clientData"]["origin"] == browser.site_origin
    assert registered["verdict"]["clientData"]["type"] == "webauthn.create"

    signed_in = browser.rp("signIn", username=user)
    assert_verified(signed_in, "assertion")
    assert signed_in["verdict"]["credentialId"] == registered["verdict"]["credentialId"]
    assert signed_in["verdict"]["clientData"]["type"] == "webauthn.get"
    assert signed_in["verdict"]["clientData"].get("crossOrigin", False) is False


def test_returned_objects_behave_like_the_browsers_own(browser):
    registered = browser.rp("register", username=browser.new_user("shape"))
    assert_verified(registered, "registration")
    shape = registered["shape"]
    assert shape["instanceofPublicKeyCredential"] is True
    assert shape["responseInstanceof"] is True
    assert shape["type"] == "public-key"
    assert shape["idMatchesRawId"] is True
    assert shape["hasToJSON"] is True
    assert isinstance(shape["transports"], list), shape
    assert shape["publicKeyAlgorithm"] in (-7, -8, -257), shape
    assert isinstance(shape["publicKeyBytes"], int) and shape["publicKeyBytes"] > 0, shape
    assert isinstance(shape["authenticatorDataBytes"], int) and shape["authenticatorDataBytes"] >= 37, shape
    assert shape["clientExtensionResults"] == {} or isinstance(shape["clientExtensionResults"], dict), shape


def test_discoverable_sign_in_without_allow_list_finds_the_user(browser):
    # The only resident credential this module's SoftToken holds: more would open the account chooser.
    user = browser.new_user("dana")
    registered = browser.rp("register", username=user, residentKey="required")
    assert_verified(registered, "registration")

    signed_in = browser.rp("signIn")  # no username → empty allowCredentials
    assert_verified(signed_in, "discoverable assertion")
    assert signed_in["verdict"]["username"] == user
    assert signed_in["verdict"]["userHandleMatches"] is True


def test_to_json_output_is_accepted_by_the_rp_as_is(browser):
    user = browser.new_user("json")
    registered = browser.rp("register", username=user, useToJSON=True)
    assert_verified(registered, "registration sent as toJSON()")
    signed_in = browser.rp("signIn", username=user, useToJSON=True)
    assert_verified(signed_in, "assertion sent as toJSON()")
