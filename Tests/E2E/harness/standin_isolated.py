"""The second stand-in password manager (Tests/E2E/standin-isolated-manager/), which wraps navigator.credentials as
Proton Pass does: from an isolated content script with exportFunction in Firefox, from the page's world in Chromium.
A copy serves the sites given and runs its script before the bridge's or after it, by the same ids as the first
stand-in (harness/standin.py); its vault is the first stand-in's (authenticator.js), copied in.
"""
import json
import shutil
from pathlib import Path

from .standin import CHROMIUM_KEYS, FIREFOX_IDS, STANDIN

ISOLATED_STANDIN = Path(__file__).resolve().parents[1] / "standin-isolated-manager"


def isolated_standin_extension(scratch: Path, sites: list[str], kind: str, first: bool, races: bool = False,
                               style: str = "assign") -> Path:
    """A copy of the isolated stand-in in `scratch` that serves `sites` (origins), whose script runs before the
    bridge's (`first`) or after it in browser `kind`: in Chromium its script runs in the page's world, as Proton Pass
    registers it there. Its way is Proton Pass's alone: it assigns, and answers conditional requests without a race
    (standin_extension's `races` and `style` take only those values here)."""
    assert not races and style == "assign", "the isolated stand-in neither races nor replaces navigator.credentials"
    copy = scratch / "standin-isolated-manager"
    shutil.copytree(ISOLATED_STANDIN, copy)
    shutil.copy(STANDIN / "authenticator.js", copy / "authenticator.js")
    (copy / "sites.js").write_text(f"'use strict';\nglobalThis.STANDIN_SITES = {json.dumps(sites)};\n")
    manifest = json.loads((copy / "manifest.json").read_text())
    if kind == "chromium":
        manifest["key"] = CHROMIUM_KEYS[first]
        manifest["content_scripts"][0]["world"] = "MAIN"
    else:
        manifest["browser_specific_settings"]["gecko"]["id"] = FIREFOX_IDS[first]
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return copy
