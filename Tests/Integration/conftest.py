import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bridge import Host, create_token  # noqa: E402
from usb_keys import USBKeys  # noqa: E402


@pytest.fixture
def token(tmp_path) -> Path:
    """A fresh SoftToken with automatic presence, discoverable credentials and no PIN."""
    return create_token(tmp_path / "token.state")


@pytest.fixture
def launch(tmp_path):
    """Starts hosts and makes sure each one is gone after the test (killed by PID if it hangs)."""
    hosts = []

    def start(token_path=None, **kwargs) -> Host:
        host = Host(tmp_path, token_path, **kwargs)
        hosts.append(host)
        return host

    yield start
    for host in hosts:
        host.close()


PINENTRY = str(Path(__file__).with_name("fake_pinentry.py"))


@pytest.fixture
def pinentry(tmp_path):
    """Returns (env, answers(list), commands()) for a scripted pinentry."""
    script, log = tmp_path / "answers.txt", tmp_path / "pinentry.log"

    def answers(*lines: str):
        script.write_text("\n".join(lines) + "\n")
        script.with_suffix(".pos").unlink(missing_ok=True)

    def commands() -> list[str]:
        return log.read_text().splitlines() if log.exists() else []

    env = {"WEBAUTHN_BRIDGE_PINENTRY": PINENTRY, "FAKE_PINENTRY_SCRIPT": str(script), "FAKE_PINENTRY_LOG": str(log)}
    answers()
    return env, answers, commands


@pytest.fixture
def usb(tmp_path):
    """A umockdev testbed to plug SoftTokens into as USB keys (usb_keys.py); its programs see them at /dev/hidraw*."""
    keys = USBKeys(tmp_path)
    yield keys
    keys.close()


@pytest.fixture
def yubikey(tmp_path, usb):
    """A YubiKey 5 (SoftToken profile yubikey5) plugged in as /dev/hidraw0; returns its state file."""
    token = create_token(tmp_path / "yubikey.state", "--profile", "yubikey5")
    assert usb.plug(token) == "/dev/hidraw0"
    return token
