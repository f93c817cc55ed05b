"""The stand-in password manager (Tests/E2E/standin-passkey-manager/): a copy that serves the sites given, made to
run its page script before the bridge's or after it, and the page-side expressions that say which happened.

Which extension's document_start page script runs first is not the order of loading or installing: measured with
Chromium 156 and Firefox ESR 153 (docs/measurements.md, "Beside a password manager"), both run them in an order of
the extensions' ids, the same whatever was installed first: Chromium's sorts the ids, Firefox's does not (of the ids
below, "aaa-…" and "zzz-…" both run after the bridge's). So the copy gets an id that runs before the bridge's or
after it: in Chromium through the manifest's `key` (the id is derived from it; only the public half is needed), in
Firefox through its gecko id.
"""
import json
import shutil
import uuid
from pathlib import Path

STANDIN = Path(__file__).resolve().parents[1] / "standin-passkey-manager"
STANDIN_AAGUID = str(uuid.UUID(bytes=b"standin-passkeys"))   # authenticator.js's, as py_webauthn writes one

# Public keys whose Chromium ids sort before and after the bridge's (aiklgkojchcnedchmjdalekighpinmfa); Firefox ids
# measured to run before and after it.
CHROMIUM_KEYS = {
    True: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAvWW5fF+BF7YvVsGr/d2yIDb9gfKr2zYNMLMQ6PjyzDuZyu8ppM2p5n4StjnH5nNG6VbTmT2P4hC4HgDLIh/44UznbDEI3kuPooGdDHXAa5p1ZopDU452f8UF/borTascivzWjbY6/7CsZnLak4vVuT6PtRO1+NCRdk3VE9406CzYM7aY7oS52FF0jFg7+ZxBPxXUhlN3l3MEs7pChiBF9srWBrUlg8Ntu3oPvcTzsX4Judys7LZ7C9ZPdWJgvO4Amtsmb0uRvT9GkK5q/LcZTZmkEmczGqs15Dwqtiu1keqeLdlS/+MI5BC3JGhRmrnCArDhGAfd/WjeaSozjRSaRQIDAQAB",   # aagehhmcbhalkoalefplbkbkeelmjfmc
    False: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAxVqw99QWweRGsLcXJQpCKgaraVlr9FPQdUvKyIKVa+QkYnB4pcfqQBVm/0DpAKXG6B15k4EeXsix4gRnfLtm1r9WfEe8HC5iBrDvtE2TeFXzRh/bacNyNklIgB3dFesBV4sTaN2ybGx+FnkZ+ynwCrDz0aIQJiPToq5aqxPtmzUfyA5zPaW/TQK3gc7wNEfMp591IJEkub9+PiksIEAk69Tm4V9NDk09ncTItZhFI39oTw1RUg/B3c429FKzwZT9m+e8qnGyNFCej18sG3nvxXye3XT6UCat2m1Odj03azkMoaBhA8NKx+CL4ZQRQjahctPcAjsv++NGQauKN7H0MQIDAQAB",   # ikhkogilbkhblfagcpindnbjafjakldm
}
FIREFOX_IDS = {True: "standin-passkey-manager@webauthn-bridge.test",
               False: "zzz-standin-passkey-manager@webauthn-bridge.test"}

# Both page scripts in place, in the order asked. The stand-in first: the bridge's functions on top, on the container
# itself (where the stand-in had assigned its own). The bridge first: the stand-in's on top, having found the bridge's.
STANDIN_RAN_FIRST_JS = ("navigator.credentials.get.__webauthnBridge === true"
                        " && Object.hasOwn(navigator.credentials, 'get') && Object.hasOwn(navigator.credentials, 'create')")
# The "replace" style, which runs after the page began: its own object at navigator.credentials, the bridge's
# functions on the container's prototype.
STANDIN_REPLACED_JS = ("navigator.credentials.get.__standinFound === 'bridge'"
                       " && !(navigator.credentials instanceof CredentialsContainer)"
                       " && CredentialsContainer.prototype.get.__webauthnBridge === true")
BRIDGE_RAN_FIRST_JS = ("navigator.credentials.get.__standinFound === 'bridge'"
                       " && navigator.credentials.create.__standinFound === 'bridge'")


def standin_extension(scratch: Path, sites: list[str], kind: str, first: bool, races: bool = False,
                      style: str = "assign", copies: bool = False) -> Path:
    """A copy of the stand-in in `scratch` that serves `sites` (origins), whose page script runs before the bridge's
    (`first`) or after it in browser `kind`, whose conditional answers race what it found (`races`), and that wraps
    navigator.credentials in `style` ("assign" or "replace": page.js), and that hands a request on with a copy of
    its options (`copies`) or with the object itself."""
    copy = scratch / "standin-passkey-manager"
    shutil.copytree(STANDIN, copy)
    (copy / "style.js").write_text(f"'use strict';\nglobalThis.STANDIN_STYLE = {json.dumps(style)};\n"
                                   f"globalThis.STANDIN_COPIES = {json.dumps(copies)};\n")
    (copy / "sites.js").write_text(f"'use strict';\nglobalThis.STANDIN_SITES = {json.dumps(sites)};\n"
                                   f"globalThis.STANDIN_RACES = {json.dumps(races)};\n")
    manifest = json.loads((copy / "manifest.json").read_text())
    if kind == "chromium":
        manifest["key"] = CHROMIUM_KEYS[first]
    else:
        manifest["browser_specific_settings"]["gecko"]["id"] = FIREFOX_IDS[first]
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return copy
