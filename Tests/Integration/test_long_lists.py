"""Allow/exclude lists longer than a key accepts in one request, up to the 64 entries Chromium allows: the host
finds the credential the key holds wherever it sits in the list (silent pre-flight batches), and the ceremony then
behaves as with a short list. Longer lists are refused before any key is asked, and a repeated id is sent once,
as in Chromium (issue 12, item 4)."""

import os

import pytest

from bridge import binary, create_token
from rp import ORIGIN, creation_options, request_options, verify_authentication, verify_registration
from test_ceremonies import register


# The host announces the touch only once the key has waited a moment (DeferredStatus): these tokens wait like a person.
def waiting_token(tmp_path):
    return create_token(tmp_path / "slow.state", "--presence", "delay:300")


def strangers(count: int) -> list[bytes]:
    return [os.urandom(64) for _ in range(count)]


def ctap_requests(host, request_id: str, command: str) -> list[str]:
    """The CTAP requests of `command` the host's libfido2 trace shows for one request."""
    return [line for line in host.log().splitlines() if f"[{request_id}]" in line and f"CTAP → {command}" in line]


def test_a_long_allow_list_signs_in_with_the_held_credential_from_its_middle(launch, token):
    host = launch(token, log_level="trace")
    credential, challenge, _ = register(host)
    verified = verify_registration(credential, challenge)
    allow = strangers(31) + [verified.credential_id] + strangers(32)
    options, challenge = request_options(allow=allow)
    reply, _ = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    verify_authentication(reply["credential"], challenge, verified.credential_public_key, verified.sign_count)
    # 64 ids do not fit one request to this key (1200-byte messages): it was asked in silent batches first.
    assert host.close() == 0
    assert len(ctap_requests(host, "g-1", "authenticatorGetAssertion")) > 2


def test_a_long_allow_list_the_key_holds_nothing_of_is_not_allowed_after_a_touch(launch, tmp_path):
    host = launch(waiting_token(tmp_path))
    options, _ = request_options(allow=strangers(64))
    reply, statuses = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == "NotAllowedError", reply
    assert "touch" in [s["status"] for s in statuses]


def test_a_long_exclude_list_naming_a_held_credential_is_invalid_state(launch, tmp_path):
    host = launch(waiting_token(tmp_path))
    credential, challenge, _ = register(host)
    verified = verify_registration(credential, challenge)
    exclude = [{"type": "public-key", "id": binary(c)} for c in strangers(40) + [verified.credential_id] + strangers(23)]
    options, _ = creation_options(excludeCredentials=exclude)
    reply, statuses = host.request({"id": "c-2", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == "InvalidStateError", reply
    assert "touch" in [s["status"] for s in statuses]


def long_list_frame(kind: str, entries: list[dict]) -> dict:
    if kind == "get":
        options, _ = request_options()
        options["allowCredentials"] = entries
    else:
        options, _ = creation_options(excludeCredentials=entries)
    return {"id": "long", "type": kind, "origin": ORIGIN, "options": options}


@pytest.mark.parametrize("kind, member", [("get", "allowCredentials"), ("create", "excludeCredentials")])
@pytest.mark.parametrize("entries", [
    pytest.param([{"type": "public-key", "id": binary(c)} for c in strangers(65)], id="65-ids"),
    pytest.param([{"type": "public-key", "id": binary(b"\x07" * 32)}] * 65, id="one-id-65-times"),
    pytest.param([{"type": "public-key", "id": binary(c)} for c in strangers(60)]
                 + [{"type": "future-type", "id": binary(c)} for c in strangers(5)], id="60-plus-5-of-another-type"),
])
def test_more_than_64_entries_is_chromiums_range_error_before_any_key_is_asked(launch, token, kind, member, entries):
    host = launch(token, log_level="trace")
    reply, statuses = host.request(long_list_frame(kind, entries))
    assert reply["error"]["name"] == "RangeError", reply
    assert reply["error"]["message"] == f"The `{member}` attribute exceeds the maximum allowed size (64).", reply
    assert statuses == []
    reply, _ = host.request({"id": "after", "type": "info"})
    assert reply["type"] == "result", reply
    assert host.close() == 0  # every log line is written once the host has exited
    # No key was opened for the request: no libfido2 line, no key selection.
    lines = [line for line in host.log().splitlines() if "[long]" in line]
    assert lines and not [line for line in lines if "libfido2:" in line or "key-ready" in line or "attached" in line], lines


def test_one_id_repeated_64_times_is_sent_to_the_key_once(launch, token):
    host = launch(token, log_level="trace")
    credential, challenge, _ = register(host)
    verified = verify_registration(credential, challenge)
    options, challenge = request_options(allow=[verified.credential_id] * 64)
    reply, _ = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["type"] == "result", reply
    verify_authentication(reply["credential"], challenge, verified.credential_public_key, verified.sign_count)
    # Repeated 64 times it would take several silent batches; de-duplicated it is one silent look and the request,
    # each naming it once.
    assert host.close() == 0
    requests = ctap_requests(host, "g-1", "authenticatorGetAssertion")
    assert len(requests) == 2 and all(r.count('"id":') == 1 for r in requests), requests
    assert '"up": false' in requests[0] and '"up": true' in requests[1], requests
    assert " allow=1 " in next(line for line in host.log().splitlines() if "[g-1] get origin=" in line)
