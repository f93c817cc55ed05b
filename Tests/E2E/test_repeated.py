"""Twenty register + sign-in pairs in a row: every one verified, sign counts move forward, and the in-page
times feed the timing summary (medians need ~20 calls on this noisy VM)."""
PROXY_PATH = True   # also in Chromium through the proxy path (conftest.py)
PAIRS = 20


def run_verified_pairs(session, name: str, pairs: int = PAIRS) -> None:
    """Registers a new user and signs it in, `pairs` times; the RP verifies every ceremony."""
    for i in range(pairs):
        user = session.new_user(name)
        registered = session.rp("register", username=user)
        assert registered.get("ok") and registered["verdict"]["verified"], f"pair {i}: {registered}"
        signed_in = session.rp("signIn", username=user)
        assert signed_in.get("ok") and signed_in["verdict"]["verified"], f"pair {i}: {signed_in}"
        # A counter of 0 means "no counter" (allowed); otherwise it must move past the registration's.
        if signed_in["verdict"]["signCount"] != 0:
            assert signed_in["verdict"]["signCount"] > registered["verdict"]["signCount"], signed_in


def test_twenty_ceremonies_in_a_row_are_all_verified(browser):
    run_verified_pairs(browser, "bench")
