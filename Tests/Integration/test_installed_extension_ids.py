"""The Chromium ids an installation ships beside the host (PREFIX/share/webauthn-bridge/chromium-id.txt, written by
install.sh --system for the CRX its browser policy installs) are served like the built-in one; ids anywhere else are
not (docs/security.md, "Which extensions the host serves").

The real host binary is linked into a scratch PREFIX/libexec/webauthn-bridge/ and launched there as Chromium launches
it; the host finds the file from its own executable's path, so nothing in its environment points at it.
"""
import os
import shutil

import pytest

from bridge import host_binary

CRX_ID = "bcdefghijklmnopabcdefghijklmnopa"      # what package.sh's throwaway key might give: not the built-in id
OTHER_ID = "ponmlkjihgfedcbaponmlkjihgfedcba"


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """Installs the host under a scratch prefix and returns a function that writes its chromium-id.txt."""
    prefix = tmp_path / "prefix"
    binary = prefix / "libexec/webauthn-bridge/webauthn-bridge"
    binary.parent.mkdir(parents=True)
    try:
        os.link(host_binary(), binary)   # the same inode under the installed path: /proc/self/exe names this one
    except OSError:
        shutil.copy2(host_binary(), binary)
    monkeypatch.setenv("WEBAUTHN_BRIDGE_HOST", str(binary))
    id_file = prefix / "share/webauthn-bridge/chromium-id.txt"
    id_file.parent.mkdir(parents=True)

    def write(text: str):
        id_file.write_text(text)
        id_file.chmod(0o644)
        return id_file
    return write


def test_the_installed_crx_id_is_served(installed, launch, token):
    installed(CRX_ID + "\n")
    host = launch(token, browser="chromium", extension_id=CRX_ID)
    reply, _ = host.request({"id": "i-1", "type": "info"})
    assert reply["info"]["libfido2"].startswith("1."), reply
    assert host.close() == 0
    assert "refusing" not in host.log()


def test_an_id_the_installation_does_not_ship_is_refused(installed, launch, token):
    installed(CRX_ID + "\n")
    host = launch(token, browser="chromium", extension_id=OTHER_ID)
    assert host.close() == 1
    assert f'refusing to serve extension "{OTHER_ID}"' in host.log()


def test_without_the_file_the_crx_id_is_refused(installed, launch, token):
    host = launch(token, browser="chromium", extension_id=CRX_ID)
    assert host.close() == 1
    assert f'refusing to serve extension "{CRX_ID}"' in host.log()


def test_a_malformed_line_is_logged_and_the_valid_ids_still_served(installed, launch, token):
    installed(f"not-an-id\n{CRX_ID}\n")
    host = launch(token, browser="chromium", extension_id=CRX_ID)
    reply, _ = host.request({"id": "i-1", "type": "info"})
    assert "info" in reply, reply
    assert host.close() == 0
    assert 'line 1 is not a Chromium extension id (32 letters a-p): "not-an-id"' in host.log(), host.log()


def test_a_file_others_can_write_is_not_trusted(installed, launch, token):
    installed(CRX_ID + "\n").chmod(0o666)
    host = launch(token, browser="chromium", extension_id=CRX_ID)
    assert host.close() == 1
    log = host.log()
    assert "is writable by its group or by others: not read" in log and "refusing to serve extension" in log, log


def test_a_firefox_caller_is_not_served_by_the_chromium_ids(installed, launch, token):
    installed(CRX_ID + "\n")
    host = launch(token, browser="firefox", extension_id=CRX_ID)
    assert host.close() == 1
    assert "refusing to serve extension" in host.log()
