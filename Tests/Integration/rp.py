"""The relying-party side of the integration tests: option builders and verification with py_webauthn,
an RP library written independently of this project."""

import os

from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers.cose import COSEAlgorithmIdentifier

from bridge import b64url, binary, to_l3_json

ORIGIN = "https://example.com"
RP_ID = "example.com"


def creation_options(user_id: bytes = b"user-1", name: str = "alice", challenge: bytes | None = None, **extra) -> tuple[dict, bytes]:
    challenge = challenge or os.urandom(32)
    options = {
        "rp": {"id": RP_ID, "name": "Example"},
        "user": {"id": binary(user_id), "name": name, "displayName": name.title()},
        "challenge": binary(challenge),
        "pubKeyCredParams": [{"type": "public-key", "alg": -7}],
        "timeout": 60000,
    }
    options.update(extra)
    return options, challenge


def request_options(challenge: bytes | None = None, allow: list[bytes] | None = None, **extra) -> tuple[dict, bytes]:
    challenge = challenge or os.urandom(32)
    options = {"challenge": binary(challenge), "rpId": RP_ID, "timeout": 60000}
    if allow is not None:
        options["allowCredentials"] = [{"type": "public-key", "id": binary(c)} for c in allow]
    options.update(extra)
    return options, challenge


def verify_registration(credential: dict, challenge: bytes, origin: str = ORIGIN, rp_id: str = RP_ID, require_uv: bool = False):
    return verify_registration_response(
        credential=to_l3_json(credential), expected_challenge=challenge, expected_rp_id=rp_id,
        expected_origin=origin, require_user_verification=require_uv,
        supported_pub_key_algs=list(COSEAlgorithmIdentifier))


def verify_authentication(credential: dict, challenge: bytes, public_key: bytes, sign_count: int,
                          origin: str = ORIGIN, rp_id: str = RP_ID, require_uv: bool = False):
    return verify_authentication_response(
        credential=to_l3_json(credential), expected_challenge=challenge, expected_rp_id=rp_id,
        expected_origin=origin, credential_public_key=public_key, credential_current_sign_count=sign_count,
        require_user_verification=require_uv)
