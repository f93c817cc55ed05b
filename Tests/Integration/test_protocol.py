"""The host's behaviour at the frame level: launch checks, malformed input, concurrency, cancel, info."""

import json
import time

import pytest

from bridge import binary, create_token, extension_data
from rp import ORIGIN, creation_options, request_options


def test_unknown_chromium_extension_is_refused(launch, token):
    host = launch(token, browser="chromium", extension_id="abcdefghijklmnopabcdefghijklmnop")
    assert host.close() == 1
    assert "refusing to serve extension" in host.log()


def test_unknown_firefox_extension_is_refused(launch, token):
    host = launch(token, browser="firefox", extension_id="evil@example.com")
    assert host.close() == 1
    assert "evil@example.com" in host.log()


def test_info_reports_versions_and_labels_the_soft_token(launch, token):
    host = launch(token)
    reply, _ = host.request({"id": "i-1", "type": "info"})
    info = reply["info"]
    assert info["libfido2"].startswith("1.")
    assert [d["kind"] for d in info["devices"]] == ["software token"]
    assert info["logPath"] == str(host.log_path)
    assert info["capabilities"]["extension:credProps"] is True
    assert -7 in info["algorithms"]
    shared = extension_data("protocol-constants.js")
    assert info["protocol"] == shared["protocolVersion"]
    assert info["maxInboundFrameBytes"] == shared["limits"]["defaultInboundFrameBytes"]


def test_info_reports_the_configured_inbound_limit(launch, token):
    # What the extension hands to the browser's own WebAuthn instead (background/request-size.js).
    host = launch(token, env={"WEBAUTHN_BRIDGE_MAX_FRAME_BYTES": "65536"})
    reply, _ = host.request({"id": "i-1", "type": "info"})
    assert reply["info"]["maxInboundFrameBytes"] == 65536


@pytest.mark.parametrize("payload,expected_name", [
    (b"{not json", "SyntaxError"),
    (b"[1,2,3]", "TypeError"),
    (b'"just a string"', "TypeError"),
    (b'{"type":"create"}', "TypeError"),
    (b'{"id":17,"type":"create"}', "TypeError"),
    (b'{"id":"x1","type":"frobnicate"}', "TypeError"),
    (b'{"id":"x2"}', "TypeError"),
])
def test_malformed_frames_get_an_error_and_the_host_keeps_serving(launch, token, payload, expected_name):
    host = launch(token)
    host.send_raw(payload)
    reply = host.recv()
    assert reply["type"] == "error"
    assert reply["error"]["name"] == expected_name, reply
    request_id = json.loads(payload).get("id") if payload.startswith(b"{\"id\":\"") else None
    assert reply["id"] == request_id
    follow_up, _ = host.request({"id": "i-1", "type": "info"})
    assert follow_up["type"] == "result"


@pytest.mark.parametrize("mutate,field", [
    (lambda o: o.pop("challenge"), "challenge"),
    (lambda o: o.update(challenge="plain string"), "challenge"),
    (lambda o: o.update(challenge={"__binary__": "***"}), "options.challenge"),
    (lambda o: o["user"].update(id=binary(b"")), "user.id"),
    # Chromium's own words for this one, which name no field (the page sees the same text from either).
    (lambda o: o["user"].update(id=binary(b"x" * 65)), "User handle exceeds 64 bytes."),
    (lambda o: o["rp"].pop("name"), "rp.name"),
    (lambda o: o.update(pubKeyCredParams="ES256"), "pubKeyCredParams"),
])
def test_malformed_creation_options_are_type_errors_naming_the_field(launch, token, mutate, field):
    host = launch(token)
    options, _ = creation_options()
    mutate(options)
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "error"
    assert reply["error"]["name"] in ("TypeError", "SyntaxError"), reply
    if field:
        assert field in reply["error"]["message"]
    assert statuses == [], "no device may be touched for invalid options"


def test_missing_origin_is_a_type_error(launch, token):
    host = launch(token)
    options, _ = creation_options()
    reply, _ = host.request({"id": "c-1", "type": "create", "options": options})
    assert reply["error"]["name"] == "TypeError"


@pytest.mark.parametrize("origin,rp_id", [
    ("https://evil.com", "example.com"),
    ("https://notexample.com", "example.com"),
    ("https://example.com", "com"),
    ("https://foo.github.io", "github.io"),
    ("http://example.com", "example.com"),
    ("https://127.0.0.1", None),
])
def test_origin_and_rp_id_violations_are_security_errors_before_any_device(launch, token, origin, rp_id):
    host = launch(token)
    options, _ = creation_options()
    if rp_id is None:
        options["rp"].pop("id")
    else:
        options["rp"]["id"] = rp_id
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": origin, "options": options})
    assert reply["error"]["name"] == "SecurityError", reply
    assert statuses == []


# Requests wrong in two ways get the refusal Chromium gives (docs/errors.md, "Which refusal comes first"): Blink's
# refusals of the extension inputs and the user.id before the browser process's rp.id check, its browser-side
# refusals of largeBlob after it.
@pytest.mark.parametrize("op,edit,name,words", [
    ("create", {"rp": "other.example", "extensions": {"appid": "https://example.com"}}, "NotSupportedError", "'appid'"),
    ("create", {"rp": "other.example", "extensions": {"prf": {"evalByCredential": {}}}}, "NotSupportedError",
     "'evalByCredential'"),
    ("create", {"rp": "other.example", "user_id": b"x" * 65}, "TypeError", "User handle exceeds 64 bytes."),
    ("create", {"rp": "other.example", "params": [{"type": "other", "alg": -7}]}, "NotSupportedError",
     "Required parameters missing"),
    ("create", {"user_id": b"x" * 65, "extensions": {"largeBlob": {"read": True}}}, "NotSupportedError", "'read'"),
    ("create", {"rp": "other.example", "extensions": {"appidExclude": "https://example.com"}}, "SecurityError", None),
    ("get", {"rp": "other.example", "extensions": {"credProps": True}}, "NotSupportedError", "'credProps'"),
    ("get", {"rp": "other.example", "extensions": {"prf": {"evalByCredential": {"AQID": {"first": binary(b"x")}}}}},
     "SyntaxError", "doesn't match any"),
    ("get", {"rp": "other.example", "extensions": {"largeBlob": {"read": True, "write": binary(b"x")}}},
     "SecurityError", None),
    ("get", {"extensions": {"appid": "https://other.example", "largeBlob": {"read": True, "write": binary(b"x")}}},
     "SecurityError", None),
    ("get", {"extensions": {"largeBlob": {"read": True, "write": binary(b"x")}}}, "NotSupportedError",
     "Only one of"),
])
def test_a_request_wrong_twice_gets_the_refusal_chromium_gives_first(launch, token, op, edit, name, words):
    host = launch(token)
    if op == "create":
        options, _ = creation_options(user_id=edit.get("user_id", b"user-1"))
        if "rp" in edit:
            options["rp"]["id"] = edit["rp"]
        if "params" in edit:
            options["pubKeyCredParams"] = edit["params"]
    else:
        options, _ = request_options(allow=[b"\x01\x02\x04"])
        if "rp" in edit:
            options["rpId"] = edit["rp"]
    if "extensions" in edit:
        options["extensions"] = edit["extensions"]
    reply, statuses = host.request({"id": "r-1", "type": op, "origin": ORIGIN, "options": options})
    assert reply["type"] == "error" and reply["error"]["name"] == name, reply
    if words:
        assert words in reply["error"]["message"], reply
    assert statuses == []


def test_oversize_frame_is_dropped_and_the_host_keeps_serving(launch, token):
    host = launch(token, env={"WEBAUTHN_BRIDGE_MAX_FRAME_BYTES": "1024"})
    host.send_raw(b"{" + b" " * 4000 + b"}")
    reply = host.recv()
    assert reply["type"] == "error" and reply["id"] is None
    assert "1024" in reply["error"]["message"]
    follow_up, _ = host.request({"id": "i-1", "type": "info"})
    assert follow_up["type"] == "result"


def test_truncated_stream_makes_the_host_exit_non_zero_with_a_log_line(launch, token):
    host = launch(token)
    host.send_raw(b'{"id":"x"', length=500)
    assert host.close() == 1
    assert "out of sync" in host.log()


def test_end_of_stream_exits_zero(launch, token):
    host = launch(token)
    assert host.close() == 0


def test_second_request_while_one_runs_is_refused_at_once_and_cancel_aborts(launch, tmp_path):
    token = create_token(tmp_path / "slow.state", "--presence", "delay:5000")
    host = launch(token)
    options, _ = creation_options()
    host.send({"id": "slow", "type": "create", "origin": ORIGIN, "options": options})
    while host.recv().get("status") != "touch":
        pass
    started = time.monotonic()
    host.send({"id": "second", "type": "create", "origin": ORIGIN, "options": options})
    second = host.recv()
    assert second["id"] == "second" and second["error"]["name"] == "NotAllowedError"
    assert time.monotonic() - started < 2
    host.send({"id": "slow", "type": "cancel"})
    reply, _ = host.final("slow")
    assert reply["error"]["name"] == "AbortError"
    assert time.monotonic() - started < 3, "cancel must not wait for the touch"
    # The token is usable again after the cancel.
    options, _ = request_options()
    host.send({"id": "after", "type": "info"})
    assert host.recv()["type"] == "result"


def test_denied_presence_gives_not_allowed(launch, tmp_path):
    token = create_token(tmp_path / "deny.state", "--presence", "deny")
    host = launch(token)
    options, _ = creation_options()
    reply, _ = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == "NotAllowedError"


def test_log_has_one_line_per_request_with_origin_rp_and_outcome(launch, token):
    host = launch(token, log_level="info")
    options, _ = creation_options()
    host.request({"id": "c-9", "type": "create", "origin": ORIGIN, "options": options})
    host.request({"id": "g-9", "type": "get", "origin": "https://evil.example", "options": {
        "challenge": {"__binary__": "AQID"}, "rpId": "example.com"}})
    host.close()
    log = host.log().splitlines()
    # The outcome line alone names the request, origin, rp.id, outcome and time.
    assert [l for l in log if "[c-9] create ok origin=https://example.com rp=example.com in " in l and l.endswith(" ms")]
    assert [l for l in log if "[g-9] get failed origin=https://evil.example rp=example.com in " in l and "SecurityError" in l]


def test_a_refused_rp_id_tells_the_page_chromiums_text_and_the_user_the_reason(launch, token):
    host = launch(token)
    options, _ = creation_options()
    options["rp"]["id"] = "evil.com"
    reply, _ = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["error"] == {"name": "SecurityError",
                              "message": "The relying party ID is not a registrable domain suffix of, nor equal to the current domain."}
    assert "evil.com" in reply["detail"] and "example.com" in reply["detail"], reply
