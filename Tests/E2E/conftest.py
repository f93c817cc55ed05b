"""Fixtures of the end-to-end suite: the host binary (missing → every test fails, never skips), the relying
party, and one BrowserSession per test module and browser.

A module tunes its browser with module-level names: INSTALL_HOST = False (no host manifest: the fallback case),
TOKEN_ARGS = (...) (passed to `webauthn-bridge token create`), FIREFOX_PREFS = {...}, and PROXY_PATH = True to
run its tests a third time, in Chromium through the proxy path ("chromium-proxy"; "chromium" is the page path), and
OWN_AUTHENTICATOR = True to have the browser's own WebAuthn, below the bridge, answered by a virtual authenticator.
"""
import os

import pytest

from harness import timings
from harness.paths import extension_dir, host_binary
from harness.rp_server import RPServer
from harness.session import BrowserSession

BROWSERS = ("chromium", "firefox")


@pytest.fixture(scope="session")
def host():
    path = host_binary()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"webauthn-bridge host binary not found at {path}: build it first "
                    "(swift build --product webauthn-bridge) or set WEBAUTHN_BRIDGE_HOST", pytrace=False)
    manifest = extension_dir() / "manifest.json"
    if not manifest.is_file():
        pytest.fail(f"the extension is missing: {manifest} not found", pytrace=False)
    return path


@pytest.fixture(scope="session")
def rp_server():
    server = RPServer()
    yield server
    server.close()


def pytest_generate_tests(metafunc):
    if "browser" in metafunc.fixturenames:
        kinds = BROWSERS + (("chromium-proxy",) if getattr(metafunc.module, "PROXY_PATH", False) else ())
        metafunc.parametrize("browser", kinds, indirect=True, scope="module")


@pytest.fixture(scope="module")
def browser(request, host, rp_server):
    module = request.module
    session = BrowserSession.for_param(request.param, host, rp_server.origin,
                             install=getattr(module, "INSTALL_HOST", True),
                             token_args=tuple(getattr(module, "TOKEN_ARGS", ())),
                             firefox_prefs=getattr(module, "FIREFOX_PREFS", None),
                             own_authenticator=getattr(module, "OWN_AUTHENTICATOR", False))
    yield session
    session.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    session = item.funcargs.get("browser") if hasattr(item, "funcargs") else None
    if report.failed and isinstance(session, BrowserSession):
        report.sections.append(("webauthn-bridge diagnostics", session.diagnostics()))
    return report


def pytest_terminal_summary(terminalreporter):
    lines = timings.summary()
    if lines:
        terminalreporter.section("in-page create()/get() time (recorded, not asserted)")
        for line in lines:
            terminalreporter.write_line(line)
