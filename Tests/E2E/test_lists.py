"""Credential lists a page can use to probe the key (issue 12, item 4), in both browsers.

More than 64 entries in allowCredentials or excludeCredentials is refused before any key is asked, with the
rejection Chromium's own WebAuthn gives (a DOMException named "RangeError"; measured in the same run against
Chromium with its DevTools virtual authenticator). One id repeated 64 times is sent to the key once and served,
as Chromium de-duplicates it. The host log proves what reached the key.
"""
import base64
import os

import pytest

from test_hostile import answer, chromium_own, json_of, options_for, reached_nothing_since  # noqa: F401


def random_id() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()


def with_list(options: dict, member: str, entries: list) -> dict:
    return {**options, member: [{"type": "public-key", "id": i} for i in entries]}


@pytest.mark.parametrize("kind, member", [("get", "allowCredentials"), ("create", "excludeCredentials")])
def test_65_entries_are_refused_as_chromium_refuses_them_before_any_key_is_asked(browser, chromium_own, rp_server,
                                                                                 kind, member):
    options = with_list(options_for(browser, rp_server, kind), member, [random_id() for _ in range(65)])
    seen = len(browser.ceremonies())
    browser.open("/hostile.html")
    ours = browser.call(f"hostile.call({{kind: '{kind}', options: {json_of(options)}}})")
    chromium_own.open("/hostile.html")
    theirs = chromium_own.call(f"hostile.call({{kind: '{kind}', options: {json_of(options)}}})")
    expected = ("RangeError", f"The `{member}` attribute exceeds the maximum allowed size (64).")
    assert answer(theirs) == expected
    assert answer(ours) == expected
    reached_nothing_since(browser, seen)


def test_one_id_repeated_64_times_is_served_with_one_ceremony(browser, rp_server):
    options = options_for(browser, rp_server, "get")
    held = options["allowCredentials"][0]["id"]
    repeated = with_list(options, "allowCredentials", [held] * 64)
    seen = len(browser.ceremonies())
    browser.open("/hostile.html")
    ours = browser.call(f"hostile.call({{kind: 'get', options: {json_of(repeated)}}})")
    assert ours.get("ok") is True, ours
    assert ours["id"] == held
    new = browser.ceremonies()[seen:]
    assert [c["type"] for c in new] == ["get"], "\n".join(c["line"] for c in new)
