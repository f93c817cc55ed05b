"""A relying party on http://localhost:PORT that checks every credential with py_webauthn, an RP library
independent of the bridge.

It serves Tests/E2E/site/ (any page with `?csp=sandbox` comes with `Content-Security-Policy: sandbox allow-scripts`,
as user uploads, HTML previews and CI artifacts are served: an opaque origin at a real URL) and four JSON
endpoints (POST):
  /register/options {username, residentKey?, excludeRegistered?, rpId?}  → creation options (WebAuthn JSON)
  /register/verify  {credential}                                         → {verified, credentialId, ...}
  /login/options    {username?, rpId?, userVerification?}  (no username → discoverable) → request options
  /login/verify     {credential}                                         → {verified, username, ...}

The same state is served on two ports, so a page on one can frame the other: a second origin for the
cross-origin iframe case. The expected origin of a ceremony is the origin of the port that verifies it, and
the challenge must be one this RP issued (each is used once). It deliberately does not do attestation trust
(attestation "none"), sessions, or persistence: the tests need the verification, not an account system.
"""
import base64
import json
import secrets
import threading
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import webauthn
from webauthn.helpers import options_to_json
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from .paths import SITE

RP_ID = "localhost"


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class RelyingParty:
    """Users, credentials and outstanding challenges; shared by both ports. Thread-safe."""

    def __init__(self):
        self.lock = threading.Lock()
        self.challenges: dict[str, str] = {}      # b64url challenge → "register:<user>" / "login:<user or ''>"
        self.users: dict[str, bytes] = {}         # username → user handle
        self.credentials: dict[str, dict] = {}    # b64url credential id → {username, public_key, sign_count}

    def _issue(self, challenge: bytes, purpose: str):
        with self.lock:
            self.challenges[b64url(challenge)] = purpose

    def _take(self, credential: dict, prefix: str) -> tuple[bytes, str]:
        """The challenge in clientDataJSON, if this RP issued it for this ceremony (consumed either way)."""
        client_data = json.loads(b64url_decode(credential["response"]["clientDataJSON"]))
        challenge = client_data.get("challenge", "")
        with self.lock:
            purpose = self.challenges.pop(challenge, None)
        if purpose is None or not purpose.startswith(prefix):
            raise ValueError(f"unknown or reused challenge {challenge!r}")
        return b64url_decode(challenge), purpose[len(prefix):]

    def registration_options(self, body: dict) -> dict:
        username = body["username"]
        with self.lock:
            user_id = self.users.setdefault(username, secrets.token_bytes(16))
            exclude = [PublicKeyCredentialDescriptor(id=b64url_decode(cid))
                       for cid, c in self.credentials.items() if c["username"] == username]
        options = webauthn.generate_registration_options(
            rp_id=RP_ID, rp_name="webauthn-bridge e2e", user_name=username, user_id=user_id,
            user_display_name=username.title(), timeout=body.get("timeout", 30000),
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement(body.get("residentKey", "discouraged")),
                user_verification=UserVerificationRequirement.DISCOURAGED),
            exclude_credentials=exclude if body.get("excludeRegistered", True) else [],
            attestation=AttestationConveyancePreference(body.get("attestation", "none")))
        self._issue(options.challenge, "register:" + username)
        result = json.loads(options_to_json(options))
        if body.get("rpId"):
            result["rp"]["id"] = body["rpId"]   # a page asking for someone else's rp.id
        return result

    def verify_registration(self, credential: dict, origin: str) -> dict:
        challenge, username = self._take(credential, "register:")
        verified = webauthn.verify_registration_response(
            credential=credential, expected_challenge=challenge, expected_rp_id=RP_ID, expected_origin=origin)
        credential_id = b64url(verified.credential_id)
        with self.lock:
            self.credentials[credential_id] = {"username": username, "public_key": verified.credential_public_key,
                                               "sign_count": verified.sign_count}
        return {"verified": True, "credentialId": credential_id, "username": username,
                "signCount": verified.sign_count, "fmt": str(getattr(verified.fmt, "value", verified.fmt)),
                "aaguid": str(verified.aaguid),   # which authenticator made it: a SoftToken's, or a stand-in's
                "clientData": json.loads(b64url_decode(credential["response"]["clientDataJSON"]))}

    def import_u2f_credential(self, username: str, credential_id: bytes, public_key: bytes, appid: str):
        """A credential the user registered through the U2F API under `appid`: its assertions hash the AppID."""
        with self.lock:
            self.users.setdefault(username, secrets.token_bytes(16))
            self.credentials[b64url(credential_id)] = {"username": username, "public_key": public_key,
                                                       "sign_count": 0, "rp_id": appid}

    def authentication_options(self, body: dict) -> dict:
        username = body.get("username") or ""
        with self.lock:
            allow = [PublicKeyCredentialDescriptor(id=b64url_decode(cid))
                     for cid, c in self.credentials.items() if username and c["username"] == username]
        options = webauthn.generate_authentication_options(
            rp_id=RP_ID, timeout=body.get("timeout", 30000), allow_credentials=allow,
            user_verification=UserVerificationRequirement(body.get("userVerification", "discouraged")))
        self._issue(options.challenge, "login:" + username)
        result = json.loads(options_to_json(options))
        if body.get("rpId"):
            result["rpId"] = body["rpId"]
        if body.get("appid"):
            result["extensions"] = {"appid": body["appid"]}   # a site that moved from the U2F API
        return result

    def verify_authentication(self, credential: dict, origin: str) -> dict:
        challenge, username = self._take(credential, "login:")
        with self.lock:
            stored = self.credentials.get(credential["id"])
        if stored is None:
            raise ValueError(f"unknown credential {credential['id']}")
        if username and stored["username"] != username:
            raise ValueError("credential of another user")
        verified = webauthn.verify_authentication_response(
            credential=credential, expected_challenge=challenge, expected_rp_id=stored.get("rp_id", RP_ID),
            expected_origin=origin, credential_public_key=stored["public_key"], credential_current_sign_count=stored["sign_count"])
        user_handle = credential["response"].get("userHandle")
        with self.lock:
            stored["sign_count"] = verified.new_sign_count
            user_id = self.users[stored["username"]]
        return {"verified": True, "credentialId": credential["id"], "username": stored["username"],
                "userHandleMatches": user_handle is not None and b64url_decode(user_handle) == user_id,
                "userHandle": user_handle, "signCount": verified.new_sign_count,
                "clientData": json.loads(b64url_decode(credential["response"]["clientDataJSON"]))}


class _Handler(SimpleHTTPRequestHandler):
    rp: RelyingParty = None  # set per server class below

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(SITE), **kwargs)

    @property
    def origin(self) -> str:
        return f"http://{RP_ID}:{self.server.server_port}"

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        if self.command == "GET" and parse_qs(urlsplit(self.path).query).get("csp") == ["sandbox"]:
            self.send_header("Content-Security-Policy", "sandbox allow-scripts")
        super().end_headers()

    def do_POST(self):
        routes = {
            "/register/options": lambda b: self.rp.registration_options(b),
            "/register/verify": lambda b: self.rp.verify_registration(b["credential"], self.origin),
            "/login/options": lambda b: self.rp.authentication_options(b),
            "/login/verify": lambda b: self.rp.verify_authentication(b["credential"], self.origin),
        }
        route = routes.get(self.path)
        if route is None:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            status, reply = HTTPStatus.OK, route(body)
        except Exception as error:  # the verdict goes back to the page, and from there into the test's assert
            status, reply = HTTPStatus.BAD_REQUEST, {"verified": False, "error": f"{type(error).__name__}: {error}"}
        data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):  # keep pytest output for the test verdicts
        pass


class RPServer:
    """Two loopback HTTP servers (main origin and frame origin) over one RelyingParty, each in a thread."""

    def __init__(self):
        self.rp = RelyingParty()
        handler = type("Handler", (_Handler,), {"rp": self.rp})
        self._servers = [ThreadingHTTPServer(("127.0.0.1", 0), handler) for _ in range(2)]
        self._threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in self._servers]
        for t in self._threads:
            t.start()

    @property
    def origin(self) -> str:
        return f"http://{RP_ID}:{self._servers[0].server_port}"

    @property
    def frame_origin(self) -> str:
        """Same host, another port: another origin (same site), as a third-party login frame would be."""
        return f"http://{RP_ID}:{self._servers[1].server_port}"

    def close(self):
        for s in self._servers:
            s.shutdown()
            s.server_close()
