#!/usr/bin/env python3
"""Signs an .xpi through addons.mozilla.org's API v5 on the unlisted channel (self-distribution: Mozilla signs
the file without listing it), standard library only. Called by scripts/release.sh; docs/release.md has the steps.

  1. POST /api/v5/addons/upload/                       the .xpi, channel=unlisted → upload uuid
  2. GET  /api/v5/addons/upload/UUID/                  until processed; stop when it is not valid
  3. POST /api/v5/addons/addon/GUID/versions/          {"upload": UUID, "license": LICENSE} → version id
     (404: no such add-on yet → POST /api/v5/addons/addon/ {"version": {…the same…}} creates it)
  4. GET  /api/v5/addons/addon/GUID/versions/ID/       until file.status is "public" (signed)
  5. GET  file.url                                      the signed .xpi

Every request carries a fresh JWT (HS256 over iss/jti/iat/exp, made with hmac) from AMO_JWT_ISSUER and
AMO_JWT_SECRET; the secret is never printed. AMO_BASE_URL overrides https://addons.mozilla.org (tests point it at
a loopback server); the token goes only to that origin.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile

DEFAULT_BASE = "https://addons.mozilla.org"
JWT_LIFETIME_SECONDS = 60   # AMO accepts at most 300
# The project's licence (LICENSE, debian/copyright) as its SPDX identifier, which is also AMO's slug for it: AMO
# reads a version's licence from this field, not from the manifest (a listed version must have one).
LICENSE = "Apache-2.0"


class SigningError(Exception):
    pass


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_jwt(issuer: str, secret: str, now=None) -> str:
    now = int(time.time() if now is None else now)
    header = {"alg": "HS256", "typ": "JWT"}
    claims = {"iss": issuer, "jti": str(uuid.uuid4()), "iat": now, "exp": now + JWT_LIFETIME_SECONDS}
    signing_input = b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + \
        b64url(json.dumps(claims, separators=(",", ":")).encode())
    signature = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(signature)


def multipart(fields: dict, files: dict) -> tuple[bytes, str]:
    boundary = "webauthn-bridge-" + uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, (filename, data) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                     f'Content-Type: application/x-xpinstall\r\n\r\n'.encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class AMO:
    def __init__(self, base, issuer, secret, poll_seconds, timeout_seconds):
        self.base = base.rstrip("/")
        self.origin = urllib.parse.urlsplit(self.base)[:2]
        self.issuer, self.secret = issuer, secret
        self.poll_seconds, self.timeout_seconds = poll_seconds, timeout_seconds

    def request(self, method, url, body=None, content_type=None, raw=False):
        if not url.startswith(("http://", "https://")):
            url = self.base + url
        headers = {"Accept": "application/json", "User-Agent": "webauthn-bridge-release"}
        # The token is for AMO only: a download URL elsewhere (a CDN) gets no Authorization header.
        if urllib.parse.urlsplit(url)[:2] == self.origin:
            headers["Authorization"] = "JWT " + make_jwt(self.issuer, self.secret)
        if content_type:
            headers["Content-Type"] = content_type
        req = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=120) as resp:
                data = resp.read()
                return resp.status, (data if raw else json.loads(data or b"{}"))
        except json.JSONDecodeError:
            raise SigningError(f"{method} {url}: the reply is not JSON: {data[:200]!r}") from None
        except urllib.error.HTTPError as e:
            detail = e.read().decode(errors="replace")[:2000]
            if e.code == 429:   # AMO throttles uploads per user, failed ones included: retrying makes it worse
                detail += " (addons.mozilla.org throttles submissions: wait before trying again)"
            return e.code, {"_error": detail}
        except urllib.error.URLError as e:
            raise SigningError(f"cannot reach {url}: {e.reason}") from None
        except OSError as e:   # a timeout or a reset during the reply
            raise SigningError(f"{method} {url} failed: {e}") from None

    def poll(self, what, url, done):
        """GETs url until done(reply) returns non-None; the first try is at once, later ones poll_seconds apart."""
        deadline = time.monotonic() + self.timeout_seconds
        while True:
            status, reply = self.request("GET", url)
            if status != 200:
                raise SigningError(f"{what}: HTTP {status}: {reply.get('_error', reply)}")
            result = done(reply)
            if result is not None:
                return result
            if time.monotonic() > deadline:
                raise SigningError(f"{what}: still not done after {self.timeout_seconds} s; see {url}")
            time.sleep(self.poll_seconds)

    def upload(self, xpi_path):
        with open(xpi_path, "rb") as f:
            body, ctype = multipart({"channel": "unlisted"}, {"upload": (os.path.basename(xpi_path), f.read())})
        status, reply = self.request("POST", "/api/v5/addons/upload/", body, ctype)
        if status not in (200, 201, 202) or "uuid" not in reply:
            raise SigningError(f"upload refused: HTTP {status}: {reply.get('_error', reply)}")
        print(f"uploaded {os.path.basename(xpi_path)}: upload {reply['uuid']}, waiting for validation")
        return reply["uuid"]

    def wait_validated(self, upload_uuid):
        def done(reply):
            if not reply.get("processed"):
                return None
            if not reply.get("valid"):
                messages = reply.get("validation", {}).get("messages", [])
                lines = [f"  {m.get('type', '?')}: {m.get('message', m)}" for m in messages] or ["  (no messages)"]
                raise SigningError("addons.mozilla.org's validation refused the add-on:\n" + "\n".join(lines))
            return reply
        return self.poll("validation", f"/api/v5/addons/upload/{upload_uuid}/", done)

    def create_version(self, guid, upload_uuid):
        quoted = urllib.parse.quote(guid, safe="")
        version = {"upload": upload_uuid, "license": LICENSE}
        body = json.dumps(version).encode()
        status, reply = self.request("POST", f"/api/v5/addons/addon/{quoted}/versions/", body, "application/json")
        if status == 404:
            print(f"no add-on {guid} on addons.mozilla.org yet: creating it (unlisted)")
            body = json.dumps({"version": version}).encode()
            status, reply = self.request("POST", "/api/v5/addons/addon/", body, "application/json")
            if status in (200, 201):
                reply = reply.get("latest_unlisted_version") or reply.get("current_version") or {}
        if status not in (200, 201) or "id" not in reply:
            raise SigningError(f"creating the version failed: HTTP {status}: {reply.get('_error', reply)}")
        print(f"version {reply.get('version', '?')} created (id {reply['id']}), waiting for Mozilla's signature")
        return reply["id"]

    def wait_signed(self, guid, version_id):
        quoted = urllib.parse.quote(guid, safe="")

        def done(reply):
            file = reply.get("file") or {}
            if file.get("status") == "public" and file.get("url"):
                return file
            if file.get("status") == "disabled":
                raise SigningError("addons.mozilla.org rejected or disabled this version; see its developer page: "
                                   f"{reply.get('edit_url', '')}")
            return None
        return self.poll("signing", f"/api/v5/addons/addon/{quoted}/versions/{version_id}/", done)

    def download(self, url, out):
        status, data = self.request("GET", url, raw=True)
        if status != 200:
            raise SigningError(f"downloading the signed file failed: HTTP {status}")
        tmp = out + ".part"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, out)


def check_signed(path, version):
    """A Mozilla-signed xpi carries META-INF/ signature files; its manifest must be the version we sent."""
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("manifest.json"))
    if not any(n.startswith("META-INF/") for n in names):
        raise SigningError(f"{path} has no META-INF/ signature: not a signed add-on")
    if manifest.get("version") != version:
        raise SigningError(f"{path} is version {manifest.get('version')}, expected {version}")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("xpi")
    p.add_argument("out")
    a = p.parse_args(argv)
    issuer, secret = os.environ.get("AMO_JWT_ISSUER", ""), os.environ.get("AMO_JWT_SECRET", "")
    if not issuer or not secret:
        print("amo_sign.py: AMO_JWT_ISSUER and AMO_JWT_SECRET must both be set", file=sys.stderr)
        return 2
    with zipfile.ZipFile(a.xpi) as z:
        manifest = json.loads(z.read("manifest.json"))
    guid, version = manifest["browser_specific_settings"]["gecko"]["id"], manifest["version"]
    amo = AMO(os.environ.get("AMO_BASE_URL") or DEFAULT_BASE, issuer, secret,
              float(os.environ.get("AMO_POLL_SECONDS", "10")), float(os.environ.get("AMO_TIMEOUT_SECONDS", "1800")))
    try:
        upload_uuid = amo.upload(a.xpi)
        amo.wait_validated(upload_uuid)
        version_id = amo.create_version(guid, upload_uuid)
        file = amo.wait_signed(guid, version_id)
        amo.download(file["url"], a.out)
        check_signed(a.out, version)
    except SigningError as e:
        print(f"amo_sign.py: {e}", file=sys.stderr)
        return 1
    print(f"signed: {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
