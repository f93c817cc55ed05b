"""scripts/release.sh against a loopback stand-in for addons.mozilla.org's API v5 (AMO_BASE_URL): this machine has
no network, so the test covers everything up to the real service — the JWT (HS256, verified here with the secret),
the multipart upload on the unlisted channel, validation polling, version creation (or add-on creation for the
first version), signing polling and the download of the signed file — and what the script says and does without
credentials, on a refused validation, a rejected version and wrong credentials. The stand-in follows the request
and reply fields of the AMO API v5 documentation (docs/release.md)."""
import base64
import hashlib
import hmac
import importlib.util
import io
import json
import os
import socket
import subprocess
import threading
import time
import zipfile
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bridge import REPO

VERSION = (REPO / "VERSION").read_text().strip()
GUID = "webauthn-bridge@webauthn-bridge"
ISSUER = "user:12345:67"
SECRET = "5ecret-" + "ab" * 28


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class FakeAMO:
    """What the client sent, and what it gets back (scenario: 'ok', 'new-addon', 'invalid', 'rejected')."""

    def __init__(self, scenario="ok"):
        self.scenario = scenario
        self.requests = []          # (method, path)
        self.jtis = []
        self.upload_fields = {}
        self.version_body = None
        self.polls = {"upload": 0, "version": 0}
        self.signed_bytes = None
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, status, body, ctype="application/json"):
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def handle_any(self):
                fake.requests.append((self.command, self.path))
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                problem = fake.check_jwt(self.headers.get("Authorization", ""))
                if problem:
                    return self.reply(401, {"detail": problem})
                status, answer, ctype = fake.route(self.command, self.path, self.headers, body)
                self.reply(status, answer, ctype)

            do_GET = do_POST = handle_any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def check_jwt(self, authorization: str):
        if not authorization.startswith("JWT "):
            return "no JWT"
        header_b64, claims_b64, signature_b64 = authorization[4:].split(".")
        expected = hmac.new(SECRET.encode(), f"{header_b64}.{claims_b64}".encode(), hashlib.sha256).digest()
        if not hmac.compare_digest(expected, b64url_decode(signature_b64)):
            return "Signature verification failed."
        header, claims = json.loads(b64url_decode(header_b64)), json.loads(b64url_decode(claims_b64))
        assert header == {"alg": "HS256", "typ": "JWT"}
        assert claims["iss"] == ISSUER
        assert abs(claims["iat"] - time.time()) < 60 and 0 < claims["exp"] - claims["iat"] <= 300
        assert claims["jti"] not in self.jtis, "a JWT was reused"
        self.jtis.append(claims["jti"])
        return None

    def route(self, method, path, headers, body):
        version_path = f"/api/v5/addons/addon/{GUID.replace('@', '%40')}/versions/"
        if (method, path) == ("POST", "/api/v5/addons/upload/") and self.scenario == "html":
            return 200, b"<html>maintenance</html>", "text/html"
        if (method, path) == ("POST", "/api/v5/addons/upload/"):
            message = BytesParser(policy=HTTP).parsebytes(
                b"Content-Type: " + headers["Content-Type"].encode() + b"\r\n\r\n" + body)
            for part in message.iter_parts():
                self.upload_fields[part.get_param("name", header="content-disposition")] = part.get_payload(decode=True)
            return 202, {"uuid": "u-1", "processed": False, "valid": False}, "application/json"
        if (method, path) == ("GET", "/api/v5/addons/upload/u-1/"):
            self.polls["upload"] += 1
            if self.polls["upload"] < 2:
                return 200, {"uuid": "u-1", "processed": False}, "application/json"
            if self.scenario == "invalid":
                return 200, {"uuid": "u-1", "processed": True, "valid": False, "validation": {"messages": [
                    {"type": "error", "message": "The \"version\" property must be a string."}]}}, "application/json"
            return 200, {"uuid": "u-1", "processed": True, "valid": True, "version": VERSION}, "application/json"
        if (method, path) == ("POST", version_path):
            if self.scenario == "new-addon":
                return 404, {"detail": "Not found."}, "application/json"
            self.version_body = json.loads(body)
            return 201, {"id": 77, "version": VERSION, "file": {"status": "unreviewed"}}, "application/json"
        if (method, path) == ("POST", "/api/v5/addons/addon/"):
            self.version_body = json.loads(body)["version"]
            return 201, {"guid": GUID, "latest_unlisted_version": {"id": 77, "version": VERSION}}, "application/json"
        if (method, path) == ("GET", version_path + "77/"):
            self.polls["version"] += 1
            if self.polls["version"] < 2:
                return 200, {"id": 77, "file": {"status": "unreviewed"}}, "application/json"
            if self.scenario == "rejected":
                return 200, {"id": 77, "file": {"status": "disabled"}, "edit_url": "https://amo.example/edit"}, "application/json"
            return 200, {"id": 77, "file": {"status": "public", "url": self.base + "/files/77.xpi"}}, "application/json"
        if (method, path) == ("GET", "/files/77.xpi"):
            return 200, self.signed_bytes, "application/x-xpinstall"
        return 404, {"detail": f"no route {method} {path}"}, "application/json"


@pytest.fixture
def xpi(tmp_path):
    out = tmp_path / "dist"
    subprocess.run([REPO / "scripts" / "package.sh", "xpi", "--out", out], check=True, capture_output=True, timeout=120)
    return out, out / f"webauthn-bridge-{VERSION}.xpi"


@pytest.fixture
def amo(request, xpi):
    fake = FakeAMO(getattr(request, "param", "ok"))
    # What AMO hands back: the uploaded file with Mozilla's signature files added.
    buffer = io.BytesIO()
    with zipfile.ZipFile(xpi[1]) as src, zipfile.ZipFile(buffer, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        dst.writestr("META-INF/mozilla.rsa", b"signature")
        dst.writestr("META-INF/manifest.mf", b"Manifest-Version: 1.0\n")
    fake.signed_bytes = buffer.getvalue()
    yield fake
    fake.close()


def release(out, base, with_credentials=True, secret=SECRET):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMO_")}
    env.update(AMO_BASE_URL=base, AMO_POLL_SECONDS="0.01", AMO_TIMEOUT_SECONDS="30")
    if with_credentials:
        env.update(AMO_JWT_ISSUER=ISSUER, AMO_JWT_SECRET=secret)
    return subprocess.run([REPO / "scripts" / "release.sh", "--out", out], env=env, capture_output=True, text=True,
                          timeout=120)


def test_without_credentials_nothing_is_sent_and_the_steps_are_printed(xpi, amo):
    out, _ = xpi
    result = release(out, amo.base, with_credentials=False)
    assert result.returncode == 2
    assert amo.requests == []
    for needed in ("AMO_JWT_ISSUER", "AMO_JWT_SECRET", "https://addons.mozilla.org/en-US/developers/addon/api/key/",
                   f"webauthn-bridge-{VERSION}.xpi", "On your own"):
        assert needed in result.stderr
    assert not (out / f"webauthn-bridge-{VERSION}-signed.xpi").exists()


@pytest.mark.parametrize("amo", ["ok", "new-addon"], indirect=True)
def test_signs_on_the_unlisted_channel_and_downloads_the_signed_file(xpi, amo):
    out, unsigned = xpi
    result = release(out, amo.base)
    assert result.returncode == 0, result.stderr
    assert amo.upload_fields["channel"] == b"unlisted"
    assert amo.upload_fields["upload"] == unsigned.read_bytes()
    assert amo.version_body == {"upload": "u-1", "license": "Apache-2.0"}
    signed = out / f"webauthn-bridge-{VERSION}-signed.xpi"
    assert signed.read_bytes() == amo.signed_bytes
    paths = [p for _, p in amo.requests]
    assert paths[0] == "/api/v5/addons/upload/" and paths[-1] == "/files/77.xpi"
    if amo.scenario == "new-addon":
        assert ("POST", "/api/v5/addons/addon/") in amo.requests
    assert len(amo.jtis) == len(amo.requests)          # a fresh token for every request
    assert SECRET not in result.stdout + result.stderr


@pytest.mark.parametrize("amo", ["invalid"], indirect=True)
def test_a_refused_validation_is_reported_and_no_version_created(xpi, amo):
    out, _ = xpi
    result = release(out, amo.base)
    assert result.returncode == 1
    assert "validation refused" in result.stderr and "must be a string" in result.stderr
    assert not [r for r in amo.requests if "/versions/" in r[1]]
    assert not (out / f"webauthn-bridge-{VERSION}-signed.xpi").exists()


@pytest.mark.parametrize("amo", ["rejected"], indirect=True)
def test_a_rejected_version_is_reported(xpi, amo):
    out, _ = xpi
    result = release(out, amo.base)
    assert result.returncode == 1
    assert "rejected or disabled" in result.stderr and "https://amo.example/edit" in result.stderr
    assert not (out / f"webauthn-bridge-{VERSION}-signed.xpi").exists()


def test_wrong_credentials_are_reported_without_the_secret(xpi, amo):
    out, _ = xpi
    result = release(out, amo.base, secret="not-the-secret")
    assert result.returncode == 1
    assert "upload refused: HTTP 401" in result.stderr and "Signature verification failed" in result.stderr
    assert "not-the-secret" not in result.stdout + result.stderr


def test_an_unsigned_download_is_refused(xpi, amo):
    out, unsigned = xpi
    amo.signed_bytes = unsigned.read_bytes()           # no META-INF: Mozilla did not sign it
    result = release(out, amo.base)
    assert result.returncode == 1 and "no META-INF/ signature" in result.stderr


@pytest.mark.parametrize("amo", ["html"], indirect=True)
def test_a_reply_that_is_not_json_is_reported(xpi, amo):
    out, _ = xpi
    result = release(out, amo.base)
    assert result.returncode == 1 and "the reply is not JSON" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_unreachable_amo_is_reported(xpi):
    out, _ = xpi
    with socket.socket() as s:                                 # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = release(out, f"http://127.0.0.1:{port}")
    assert result.returncode == 1 and "cannot reach" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_licence_amo_is_sent_is_the_projects():
    """AMO's slug is the SPDX identifier debian/copyright gives the project's own files, and LICENSE its text."""
    copyright = (REPO / "packaging/deb/copyright").read_text()
    ours = copyright.split("Files: *\n", 1)[1].split("\n\n", 1)[0]
    assert "License: Apache-2.0" in ours.splitlines()
    spec = importlib.util.spec_from_file_location("amo_sign", REPO / "packaging/amo_sign.py")
    amo_sign = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(amo_sign)
    assert amo_sign.LICENSE == "Apache-2.0"
    assert " ".join((REPO / "LICENSE").read_text().split()[:4]) == "Apache License Version 2.0,"
