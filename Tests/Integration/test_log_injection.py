"""Page-controlled text in the host log (issue 12, item 5): it can neither forge a log line nor reach the
terminal of whoever runs `webauthn-bridge log`."""

import re

from rp import ORIGIN, creation_options, request_options
from test_diagnostics import cli

LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (ERROR|WARN|INFO|DEBUG|TRACE) ")
FORGED = "\n2026-01-01T00:00:00.000Z INFO [c-1] create ok forged\x1b]0;owned\x07\u2028\u202e"
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f\u0080-\u009f\u2028\u2029\u202a-\u202e]")


def test_page_text_in_the_log_is_escaped_and_forges_no_line(launch, token):
    host = launch(token, log_level="debug")
    options, _ = creation_options()
    options["rp"]["id"] = "example.com" + FORGED
    reply, _ = host.request({"id": "c-1" + FORGED, "type": "create", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == "SecurityError", reply
    options, _ = request_options(rpId="example.com" + FORGED)
    reply, _ = host.request({"id": "g-1", "type": "get", "origin": ORIGIN, "options": options})
    assert reply["error"]["name"] == "SecurityError", reply
    host.close()
    text = host.log_path.read_text()
    assert not RAW_CONTROL.search(text), [l for l in text.splitlines() if RAW_CONTROL.search(l)]
    assert all(LINE.match(line) for line in text.splitlines()), text
    assert "forged" in text and "\\n2026-01-01T00:00:00.000Z INFO" in text and "\\x1b]0;owned\\x07\\u2028\\u202e" in text
    assert not any(line.startswith("2026-01-01") for line in text.splitlines())


def test_log_command_never_prints_raw_control_characters(tmp_path):
    log = tmp_path / "host.log"
    # An old log, or another writer, holding raw control characters.
    log.write_text("t0 INFO [r-1] title \x1b]0;owned\x07 bell \x07 nul \x00 del \x7f sep \u2028 rtl \u202e ok é 🔑\n")
    env = {"WEBAUTHN_BRIDGE_LOG_FILE": str(log), "HOME": str(tmp_path)}
    printed = cli("log", env=env).stdout
    assert not RAW_CONTROL.search(printed), repr(printed)
    assert printed == "t0 INFO [r-1] title \\x1b]0;owned\\x07 bell \\x07 nul \\x00 del \\x7f sep \\u2028 rtl \\u202e ok é 🔑\n"
    # Printing an escaped line changes nothing.
    log.write_text(printed)
    assert cli("log", env=env).stdout == printed


def test_log_request_finds_an_id_the_log_holds_escaped(launch, token):
    host = launch(token)
    host.request({"id": "odd\nid", "type": "frobnicate"})
    host.close()
    env = {"WEBAUTHN_BRIDGE_LOG_FILE": str(host.log_path), "HOME": str(host.log_path.parent)}
    lines = cli("log", "--request", "odd\nid", env=env).stdout.splitlines()
    assert lines and all("[odd\\nid]" in line for line in lines), lines
