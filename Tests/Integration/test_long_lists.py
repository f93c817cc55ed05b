"""Allow/exclude lists far beyond what a key accepts in one request: the host finds the credential the key holds
wherever it sits in the list (silent pre-flight batches), and the ceremony then behaves as with a short list."""

import os

from bridge import binary, create_token
from rp import ORIGIN, creation_options, request_options, verify_authentication, verify_registration
from test_ceremonies import register


# The host announces the touch only once the key has waited a moment (DeferredStatus): these tokens wait like a person.
def waiting_token(tmp_path):
    return create_token(tmp_path / "slow.state", "--presence", "delay:300")


def strangers(count: int) -> list[bytes]:
    return [os.urandom(64) for _ in range(count)]


def test_a_long_allow_list_signs_in_with_the_held_credential_from_its_middle(launch, token):
    host = launch(token)
    credential, challenge, _ = register(host)
    verified = verify_registration(credential, challenge)
    allow = strangers(537) + [verified.credential_id] + strangers(462)
    options, challenge = request_options(allow=allow)
    reply, _ = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    verify_authentication(reply["credential"], challenge, verified.credential_public_key, verified.sign_count)
    assert host.close() == 0


def test_a_long_allow_list_the_key_holds_nothing_of_is_not_allowed_after_a_touch(launch, tmp_path):
    host = launch(waiting_token(tmp_path))
    options, _ = request_options(allow=strangers(1000))
    reply, statuses = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == "NotAllowedError", reply
    assert "touch" in [s["status"] for s in statuses]


def test_a_long_exclude_list_naming_a_held_credential_is_invalid_state(launch, tmp_path):
    host = launch(waiting_token(tmp_path))
    credential, challenge, _ = register(host)
    verified = verify_registration(credential, challenge)
    exclude = [{"type": "public-key", "id": binary(c)} for c in strangers(731) + [verified.credential_id] + strangers(268)]
    options, _ = creation_options(excludeCredentials=exclude)
    reply, statuses = host.request({"id": "c-2", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == "InvalidStateError", reply
    assert "touch" in [s["status"] for s in statuses]
