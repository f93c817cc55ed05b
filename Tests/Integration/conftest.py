import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bridge import Host, create_token  # noqa: E402


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
