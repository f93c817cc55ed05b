"""Chromium's own WebAuthn path, timed in the same run as the bridge (issue 8): Chromium without the extension,
its DevTools virtual authenticator answering at once. The same register + sign-in pairs as test_repeated.py run
here, every one verified by the RP, and the timing summary prints the bridge's medians against these."""
import pytest

from harness.session import BrowserSession
from test_repeated import run_verified_pairs


@pytest.fixture(scope="module")
def chromium_own(host, rp_server):
    session = BrowserSession("chromium", host, rp_server.origin, install=False, own_webauthn=True)
    yield session
    session.close()


def test_chromium_own_path_with_its_virtual_authenticator(chromium_own):
    run_verified_pairs(chromium_own, "baseline")
    assert not chromium_own.host_log.exists(), "the baseline must not go through the bridge"
