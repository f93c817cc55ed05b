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
