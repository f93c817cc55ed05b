"""Where the things under test are, and the one page-side expression that says the bridge is in place."""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SITE = Path(__file__).resolve().parents[1] / "site"
INSTALL_SH = REPO / "install.sh"

# The extension's documented test flag (extension/page/interceptor.js): the patched create/get carry it.
# Kept in this one place so a change of flag is a one-line change.
OVERRIDE_ACTIVE_JS = (
    "navigator.credentials.create.__webauthnBridge === true"
    " && navigator.credentials.get.__webauthnBridge === true"
)


def host_binary() -> Path:
    """The host to install: $WEBAUTHN_BRIDGE_HOST, else the debug build. Missing → the caller fails the run."""
    return Path(os.environ.get("WEBAUTHN_BRIDGE_HOST") or REPO / ".build/debug/webauthn-bridge")


def extension_dir() -> Path:
    """The unpacked extension; $WEBAUTHN_BRIDGE_EXTENSION points elsewhere only when trying a work in progress."""
    return Path(os.environ.get("WEBAUTHN_BRIDGE_EXTENSION") or REPO / "extension").resolve()

# Firefox's own CredentialsContainer refuses a document without focus (every headless one) with this message.
# The bridge words its own focus refusal so in Firefox too (page/codec.js), but its rule is about the tab, which
# holds for the tabs the tests use (they run ceremonies through the bridge): there, seeing it proves a call reached
# Firefox's native WebAuthn.
FIREFOX_NATIVE_REFUSAL = "CredentialsContainer request is not allowed."
