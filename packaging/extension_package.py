#!/usr/bin/env python3
"""Builds the extension's store packages: the .xpi for addons.mozilla.org, the .zip for the Chrome Web Store and
a signed CRX3 for self-hosted Chromium installs (browser policy). Standard library only, plus the openssl command
for the RSA signature, so a release needs no npm and no pip.

Each store gets its own manifest.json, because each refuses or warns about keys meant for the other
(docs/release.md, "What each store accepts"). Archives are deterministic: entries sorted, one fixed timestamp
(SOURCE_DATE_EPOCH), fixed permissions, so the same tree gives the same bytes.

  extension_package.py manifest --store firefox|chromium SRC          the store's manifest.json on stdout
  extension_package.py zip --store firefox|chromium SRC OUT           the store's archive
  extension_package.py crx --key PEM ZIP OUT                          CRX3 signed with PEM; prints the id
  extension_package.py id --key PEM                                   the Chromium extension id of PEM
  extension_package.py files SRC                                      the files a package carries, one a line
"""
import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

# Files of extension/ that are for development only: never packaged.
EXCLUDED_DIRS = {"tests"}
EXCLUDED_FILES = {"chromium-id.txt"}
EXCLUDED_SUFFIXES = (".test.mjs", ".test.js", ".md", "~")

# Chromium-only permissions: Firefox warns on every start and AMO's linter flags them.
CHROMIUM_ONLY_PERMISSIONS = {"webAuthenticationProxy"}
# Firefox-only, so added to Firefox's manifest alone: background/certificates.js reads Firefox's security info in
# a blocking webRequest listener. An unpacked Chromium 156 extension that declares "webRequest" held up the page
# Chromium opens at start-up (measured: the demo's page stayed about:blank), and Chromium has no use for them.
FIREFOX_ONLY_PERMISSIONS = ["webRequest", "webRequestBlocking"]

CRX3_MAGIC = b"Cr24"
CRX3_VERSION = 3
CRX3_SIGNATURE_CONTEXT = b"CRX3 SignedData\x00"


def packaged_files(src):
    """The paths (relative, '/'-separated, sorted) that go into a package."""
    found = []
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d not in EXCLUDED_DIRS and not d.startswith(".")]
        for name in files:
            if name.startswith(".") or name in EXCLUDED_FILES or name.endswith(EXCLUDED_SUFFIXES):
                continue
            found.append(os.path.relpath(os.path.join(root, name), src).replace(os.sep, "/"))
    return sorted(found)


def store_manifest(manifest, store):
    """manifest.json as `store` accepts it (a new dict; the source manifest stays untouched)."""
    m = json.loads(json.dumps(manifest))
    # The development key pins the unpacked extension's id. The Chrome Web Store refuses an upload that has one
    # ("key field is not allowed in manifest"), a CRX carries its key in its header, and Firefox ignores it.
    m.pop("key", None)
    background = m.get("background", {})
    if store == "firefox":
        # Firefox runs background.scripts (an event page, a module as "type" says); it has no extension service workers.
        background.pop("service_worker", None)
        m["permissions"] = [p for p in m.get("permissions", []) if p not in CHROMIUM_ONLY_PERMISSIONS]
        m["permissions"] += [p for p in FIREFOX_ONLY_PERMISSIONS if p not in m["permissions"]]
        # AMO refuses new add-ons without a data-collection declaration (since 2025-11-03). The extension sends
        # nothing off the machine (only to the local native host), so it declares none, unless the source says more.
        gecko = m.setdefault("browser_specific_settings", {}).setdefault("gecko", {})
        gecko.setdefault("data_collection_permissions", {"required": ["none"]})
    elif store == "chromium":
        # Chromium warns that background.scripts needs manifest version 2, and gecko settings are unknown to it.
        background.pop("scripts", None)
        m.pop("browser_specific_settings", None)
    else:
        raise ValueError(f"unknown store {store!r}")
    return m


def source_date_epoch():
    return int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01: the earliest a zip can say


def write_zip(entries, out):
    """entries: (name, bytes) pairs. Deterministic: sorted, one timestamp, fixed modes, no extra fields."""
    stamp = time.gmtime(max(source_date_epoch(), 315532800))[:6]
    tmp = out + ".part"
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so the mode below is read
            info.external_attr = 0o100644 << 16
            z.writestr(info, data)
    os.replace(tmp, out)


def build_zip(src, store, out):
    with open(os.path.join(src, "manifest.json"), "rb") as f:
        manifest = json.load(f)
    entries = []
    for rel in packaged_files(src):
        if rel == "manifest.json":
            data = (json.dumps(store_manifest(manifest, store), indent=2, ensure_ascii=False) + "\n").encode()
        else:
            with open(os.path.join(src, rel), "rb") as f:
                data = f.read()
        entries.append((rel, data))
    write_zip(entries, out)


# --- CRX3 (components/crx_file/crx3.proto in Chromium) ----------------------------------------------------------

def _varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _bytes_field(number, payload):
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


RSA_ENCRYPTION_OID = bytes.fromhex("06092a864886f70d010101")   # 1.2.840.113549.1.1.1, in a SubjectPublicKeyInfo


class CrxKeyError(Exception):
    pass


def public_key_der(key_pem):
    """The SubjectPublicKeyInfo (DER) of the RSA key in key_pem (PKCS#8 or PKCS#1 PEM)."""
    result = subprocess.run(["openssl", "pkey", "-in", key_pem, "-pubout", "-outform", "DER"], capture_output=True)
    if result.returncode != 0:
        raise CrxKeyError(f"{key_pem} is not a private key openssl can read: {result.stderr.decode().strip()}")
    # The header names the proof sha256_with_rsa: an EC key would make a CRX that claims one thing and holds another.
    if RSA_ENCRYPTION_OID not in result.stdout[:32]:
        raise CrxKeyError(f"{key_pem} is not an RSA key: the CRX's developer key must be RSA (openssl genpkey -algorithm RSA)")
    return result.stdout


def crx_id_bytes(public_der):
    return hashlib.sha256(public_der).digest()[:16]


def extension_id(public_der):
    """Chromium's id: the first 128 bits of SHA-256(public key), hex digits 0-f written as a-p."""
    return "".join(chr(ord("a") + int(c, 16)) for c in crx_id_bytes(public_der).hex())


def rsa_sha256_sign(key_pem, data):
    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        return subprocess.run(["openssl", "dgst", "-sha256", "-sign", key_pem, f.name],
                              check=True, capture_output=True).stdout


def build_crx(zip_path, key_pem, out):
    with open(zip_path, "rb") as f:
        archive = f.read()
    public_der = public_key_der(key_pem)
    signed_header_data = _bytes_field(1, crx_id_bytes(public_der))           # SignedData.crx_id
    signed = CRX3_SIGNATURE_CONTEXT + struct.pack("<I", len(signed_header_data)) + signed_header_data + archive
    proof = _bytes_field(1, public_der) + _bytes_field(2, rsa_sha256_sign(key_pem, signed))
    header = _bytes_field(2, proof) + _bytes_field(10000, signed_header_data)  # sha256_with_rsa, signed_header_data
    tmp = out + ".part"
    with open(tmp, "wb") as f:
        f.write(CRX3_MAGIC + struct.pack("<II", CRX3_VERSION, len(header)) + header + archive)
    os.replace(tmp, out)
    return extension_id(public_der)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("manifest")
    m.add_argument("--store", choices=["firefox", "chromium"], required=True)
    m.add_argument("src")
    z = sub.add_parser("zip")
    z.add_argument("--store", choices=["firefox", "chromium"], required=True)
    z.add_argument("src")
    z.add_argument("out")
    c = sub.add_parser("crx")
    c.add_argument("--key", required=True)
    c.add_argument("zip")
    c.add_argument("out")
    i = sub.add_parser("id")
    i.add_argument("--key", required=True)
    f = sub.add_parser("files")
    f.add_argument("src")
    a = p.parse_args(argv)
    try:
        return run(a)
    except CrxKeyError as e:
        print(f"extension_package.py: {e}", file=sys.stderr)
        return 1


def run(a):
    if a.command == "manifest":
        with open(os.path.join(a.src, "manifest.json"), "rb") as f:
            print(json.dumps(store_manifest(json.load(f), a.store), indent=2, ensure_ascii=False))
    elif a.command == "zip":
        build_zip(a.src, a.store, a.out)
    elif a.command == "crx":
        print(build_crx(a.zip, a.key, a.out))
    elif a.command == "id":
        print(extension_id(public_key_der(a.key)))
    elif a.command == "files":
        print("\n".join(packaged_files(a.src)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
