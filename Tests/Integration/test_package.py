"""scripts/package.sh's extension artifacts, checked from their bytes (docs/release.md): the .xpi and the Chromium
store zip hold exactly the extension's files with the manifest each store accepts, archives are reproducible, the
CRX3 parses and its signature verifies with the key it carries, and the id derived from that key is the one
package.sh printed. One version everywhere. The .deb has its own file, test_package_deb.py.

The CRX is parsed here from Chromium's crx3.proto without the packager's code, and its signature checked with
the openssl command, so a packager bug cannot hide behind itself."""
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from bridge import REPO, host_binary

VERSION = (REPO / "VERSION").read_text().strip()
PACKAGE = REPO / "scripts" / "package.sh"
SOURCE_MANIFEST = json.loads((REPO / "extension" / "manifest.json").read_text())


# One SOURCE_DATE_EPOCH for the whole run: package.sh's default, the last commit's time, moves when someone
# commits between two builds.
EPOCH = str(int(time.time()))


def run_package(*args, cwd_repo=REPO, check=True):
    result = subprocess.run([str(cwd_repo / "scripts" / "package.sh"), *map(str, args)], capture_output=True,
                            text=True, timeout=120, env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH})
    if check and result.returncode != 0:
        raise AssertionError(f"package.sh {' '.join(map(str, args))} failed:\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    result = run_package("xpi", "chromium-zip", "crx", "--out", out)
    return out, result


def extension_files() -> set[str]:
    """What a package must hold: every file of extension/ but the tests and the development id file."""
    files = set()
    for path in (REPO / "extension").rglob("*"):
        rel = path.relative_to(REPO / "extension").as_posix()
        development = rel.startswith("tests/") or rel == "chromium-id.txt" or ".test." in path.name
        hidden = any(part.startswith(".") for part in rel.split("/")) or path.suffix == ".md"
        if path.is_file() and not development and not hidden:
            files.add(rel)
    return files


def archive_manifest(path) -> dict:
    with zipfile.ZipFile(path) as z:
        return json.loads(z.read("manifest.json"))


# --- one version ---------------------------------------------------------------------------------------------------

def test_one_version_for_host_extension_and_packages():
    assert re.fullmatch(r"\d+(\.\d+){1,3}", VERSION)
    assert SOURCE_MANIFEST["version"] == VERSION
    host = subprocess.run([host_binary(), "--version"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert host.stdout.strip() == VERSION
    changelog = (REPO / "packaging" / "deb" / "changelog").read_text().splitlines()[0]
    assert changelog.startswith(f"webauthn-bridge ({VERSION}) ")


@pytest.mark.parametrize("where", ["manifest", "host"])
def test_package_refuses_a_version_that_drifted(tmp_path, where):
    copy = tmp_path / "repo"
    for rel in ["VERSION", "scripts/package.sh", "packaging", "extension", "Sources/webauthn-bridge/WebAuthnBridgeCommand.swift"]:
        src, dst = REPO / rel, copy / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst)
    target = copy / ("extension/manifest.json" if where == "manifest" else "Sources/webauthn-bridge/WebAuthnBridgeCommand.swift")
    text = target.read_text()
    assert text.count(f'"{VERSION}"') == 1
    target.write_text(text.replace(f'"{VERSION}"', '"9.9.9"'))
    result = run_package("xpi", "--out", tmp_path / "out", cwd_repo=copy, check=False)
    assert result.returncode != 0
    assert "9.9.9" in result.stderr and VERSION in result.stderr
    assert not (tmp_path / "out" / f"webauthn-bridge-{VERSION}.xpi").exists()


# --- the store archives --------------------------------------------------------------------------------------------

def test_xpi_holds_exactly_the_extension_with_the_firefox_manifest(built):
    out, _ = built
    xpi = out / f"webauthn-bridge-{VERSION}.xpi"
    with zipfile.ZipFile(xpi) as z:
        names = z.namelist()
    assert set(names) == extension_files()
    assert not [n for n in names if "test" in n.lower()]
    m = archive_manifest(xpi)
    assert "key" not in m                                       # Firefox ignores it; AMO's linter warns
    # Firefox runs background.scripts, as a module (no extension service workers)
    assert m["background"] == {"scripts": SOURCE_MANIFEST["background"]["scripts"], "type": "module"}
    assert "webAuthenticationProxy" not in m["permissions"]     # a Chromium-only API
    assert {"webRequest", "webRequestBlocking"} <= set(m["permissions"])   # Firefox only: the certificate check
    assert m["browser_specific_settings"]["gecko"]["id"] == "webauthn-bridge@webauthn-bridge"
    source_gecko = SOURCE_MANIFEST["browser_specific_settings"]["gecko"]
    assert m["browser_specific_settings"]["gecko"]["data_collection_permissions"] == \
        source_gecko.get("data_collection_permissions", {"required": ["none"]})   # AMO requires a declaration
    assert m["version"] == VERSION
    for script in m["background"]["scripts"]:
        assert script in names
    # Nothing else changed.
    rest = {k: v for k, v in SOURCE_MANIFEST.items() if k not in ("key", "background", "permissions", "browser_specific_settings")}
    assert {k: v for k, v in m.items() if k not in ("background", "permissions", "browser_specific_settings")} == rest
    assert {k: v for k, v in m["browser_specific_settings"]["gecko"].items() if k != "data_collection_permissions"} == \
        {k: v for k, v in source_gecko.items() if k != "data_collection_permissions"}


def test_chromium_zip_holds_exactly_the_extension_with_the_web_store_manifest(built):
    out, _ = built
    archive = out / f"webauthn-bridge-{VERSION}-chromium.zip"
    with zipfile.ZipFile(archive) as z:
        names = z.namelist()
    assert set(names) == extension_files()
    m = archive_manifest(archive)
    assert "key" not in m                                       # the Web Store refuses an upload with one
    assert m["background"] == {"service_worker": SOURCE_MANIFEST["background"]["service_worker"], "type": "module"}
    assert m["background"]["service_worker"] in names
    assert "browser_specific_settings" not in m
    assert m["permissions"] == SOURCE_MANIFEST["permissions"]   # webAuthenticationProxy kept
    assert m["version"] == VERSION


def test_archives_are_reproducible_sorted_and_stamped_once(built, tmp_path):
    out, _ = built
    again = tmp_path / "again"
    run_package("xpi", "chromium-zip", "--out", again)
    for name in (f"webauthn-bridge-{VERSION}.xpi", f"webauthn-bridge-{VERSION}-chromium.zip"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name
        with zipfile.ZipFile(out / name) as z:
            infos = z.infolist()
        assert [i.filename for i in infos] == sorted(i.filename for i in infos)
        assert len({i.date_time for i in infos}) == 1
        assert {i.external_attr >> 16 for i in infos} == {0o100644}


# --- the CRX -------------------------------------------------------------------------------------------------------

def read_varint(data, pos):
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def proto_fields(data) -> list[tuple[int, bytes]]:
    """(field number, bytes) of a protobuf message whose fields are all length-delimited, as crx3.proto's are."""
    fields, pos = [], 0
    while pos < len(data):
        tag, pos = read_varint(data, pos)
        assert tag & 7 == 2, f"field {tag >> 3} has wire type {tag & 7}"
        length, pos = read_varint(data, pos)
        fields.append((tag >> 3, data[pos:pos + length]))
        pos += length
    assert pos == len(data)
    return fields


def parse_crx(path):
    data = Path(path).read_bytes()
    assert data[:4] == b"Cr24"
    version, header_len = struct.unpack_from("<II", data, 4)
    assert version == 3
    header = proto_fields(data[12:12 + header_len])
    archive = data[12 + header_len:]
    rsa_proofs = [dict(proto_fields(v)) for k, v in header if k == 2]       # sha256_with_rsa
    signed_header_data = [v for k, v in header if k == 10000]
    assert len(rsa_proofs) == 1 and len(signed_header_data) == 1
    return rsa_proofs[0][1], rsa_proofs[0][2], signed_header_data[0], archive


def chromium_id(public_der: bytes) -> str:
    return "".join("abcdefghijklmnop"[int(c, 16)] for c in hashlib.sha256(public_der).hexdigest()[:32])


def openssl_verifies(public_der, signature, signed, tmp_path) -> bool:
    (tmp_path / "pub.der").write_bytes(public_der)
    (tmp_path / "sig").write_bytes(signature)
    (tmp_path / "signed").write_bytes(signed)
    result = subprocess.run(["openssl", "dgst", "-sha256", "-keyform", "DER", "-verify", tmp_path / "pub.der",
                             "-signature", tmp_path / "sig", tmp_path / "signed"], capture_output=True, text=True)
    return result.returncode == 0


def crx_signed_bytes(signed_header_data, archive):
    return b"CRX3 SignedData\x00" + struct.pack("<I", len(signed_header_data)) + signed_header_data + archive


def test_crx_signature_verifies_and_its_id_is_the_printed_one(built, tmp_path):
    out, result = built
    public_der, signature, signed_header_data, archive = parse_crx(out / f"webauthn-bridge-{VERSION}.crx")
    assert openssl_verifies(public_der, signature, crx_signed_bytes(signed_header_data, archive), tmp_path)
    assert dict(proto_fields(signed_header_data))[1] == hashlib.sha256(public_der).digest()[:16]   # SignedData.crx_id
    derived = chromium_id(public_der)
    assert (out / "chromium-id.txt").read_text().strip() == derived
    assert f"extension id {derived}" in result.stdout
    # The payload is the Chromium store archive: same files, same manifest.
    (tmp_path / "payload.zip").write_bytes(archive)
    assert archive == (out / f"webauthn-bridge-{VERSION}-chromium.zip").read_bytes()


def test_a_tampered_crx_does_not_verify(built, tmp_path):
    out, _ = built
    public_der, signature, signed_header_data, archive = parse_crx(out / f"webauthn-bridge-{VERSION}.crx")
    tampered = bytearray(archive)
    tampered[len(tampered) // 2] ^= 1
    assert not openssl_verifies(public_der, signature, crx_signed_bytes(signed_header_data, bytes(tampered)), tmp_path)


def test_crx_without_a_key_says_loudly_it_used_a_throwaway_key(built):
    out, result = built
    assert "THROWAWAY" in result.stderr and str(out / "throwaway-crx-key.pem") in result.stderr
    assert (out / "throwaway-crx-key.pem").stat().st_mode & 0o077 == 0


def test_crx_key_given_fixes_the_id_and_a_second_build_keeps_it(tmp_path):
    key = tmp_path / "maintainer.pem"
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key],
                   check=True, capture_output=True)
    public_der = subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-outform", "DER"],
                                check=True, capture_output=True).stdout
    ids = []
    for n in range(2):
        out = tmp_path / f"out{n}"
        result = run_package("crx", "--crx-key", key, "--out", out)
        assert "THROWAWAY" not in result.stderr
        assert not (out / "throwaway-crx-key.pem").exists()
        ids.append((out / "chromium-id.txt").read_text().strip())
        assert parse_crx(out / f"webauthn-bridge-{VERSION}.crx")[0] == public_der
    assert ids == [chromium_id(public_der)] * 2


@pytest.mark.parametrize("kind", ["ec", "garbage"])
def test_crx_key_that_is_not_rsa_is_refused(tmp_path, kind):
    key = tmp_path / "key.pem"
    if kind == "ec":
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                       check=True, capture_output=True)
    else:
        key.write_text("not a key\n")
    result = run_package("crx", "--crx-key", key, "--out", tmp_path / "out", check=False)
    assert result.returncode != 0
    assert ("is not an RSA key" if kind == "ec" else "is not a private key") in result.stderr
    assert not (tmp_path / "out" / f"webauthn-bridge-{VERSION}.crx").exists()
    assert not (tmp_path / "out" / "chromium-id.txt").exists()


def test_unknown_target_is_refused():
    result = run_package("tarball", check=False)
    assert result.returncode != 0 and "unknown argument: tarball" in result.stderr


@pytest.mark.skipif(not shutil.which("chromium"), reason="chromium not installed (Tests/E2E/run.sh installs it)")
def test_crx_has_the_layout_of_chromiums_own_packer(built, tmp_path):
    """Chromium as the oracle: its --pack-extension, given the same key and files, writes the same header layout
    (one RSA proof, signed_header_data), the same key and id, and a signature this test's verifier accepts."""
    out, _ = built
    unpacked = tmp_path / "ext"
    with zipfile.ZipFile(out / f"webauthn-bridge-{VERSION}-chromium.zip") as z:
        z.extractall(unpacked)
    subprocess.run(["chromium", "--headless=new", "--no-sandbox", f"--user-data-dir={tmp_path / 'profile'}",
                    f"--pack-extension={unpacked}", f"--pack-extension-key={out / 'throwaway-crx-key.pem'}"],
                   capture_output=True, timeout=120, check=True)
    theirs = parse_crx(tmp_path / "ext.crx")
    ours = parse_crx(out / f"webauthn-bridge-{VERSION}.crx")
    assert theirs[0] == ours[0] and theirs[2] == ours[2]         # public key, signed_header_data (crx_id)
    assert len(theirs[1]) == len(ours[1])
    assert openssl_verifies(theirs[0], theirs[1], crx_signed_bytes(theirs[2], theirs[3]), tmp_path)
    with zipfile.ZipFile(tmp_path / "ext.crx") as z:            # a CRX is a zip with a prefix
        assert sorted(n for n in z.namelist() if not n.endswith("/")) == sorted(extension_files())
