"""The Security keys page (extension/keys/) in both browsers, driven as a person would: opened from the toolbar
popup's "Manage security keys", it lists the passkeys two real registrations made on the SoftToken, renames one
and deletes the other — each confirmed with real (trusted) clicks, the PIN given to the host's PIN dialog (the
integration suite's scripted pinentry, holding its dialog open until the test answers), never to the page. A real
sign-in then proves the deletion on the key. Before that, a hostile page posts every key-management message to the
relay with forged fields: nothing reaches the host, and the passkeys are all still there."""
import json
import time
from pathlib import Path

import pytest

from harness import extension_page
from harness.paths import extension_dir
from harness.pinentry import Pinentry
from harness.prompt_window import PromptWindow
from harness.session import BrowserSession

BROWSERS = ("chromium", "firefox")
PIN, NEW_PIN = "135790", "24680246"
KEYS_PATH = "/keys/keys.html"
POPUP_PATH = "/popup/popup.html"
KEY_FRAMES = ("manage", "key-info", "passkeys", "passkey-delete", "passkey-rename")
CONFIRM_OPEN = "document.getElementById('confirm').open"
GUARD_S = 0.5   # ACTIVATION_DELAY_MS (extension/common/activation-guard.js)


def armed(button: str) -> str:
    """A dialog's acting button takes input: its guard's marker (keys/dialogs.js)."""
    return f"document.getElementById({json.dumps(button)}).dataset.guard === 'armed'"


@pytest.fixture(scope="module", params=BROWSERS)
def keyed(request, host, rp_server, tmp_path_factory):
    pinentry = Pinentry(tmp_path_factory.mktemp(f"keys-{request.param}"), PIN)
    session = BrowserSession.for_param(request.param, host, rp_server.origin, token_args=("--pin", PIN),
                                       extra_env=pinentry.env())
    yield session, pinentry
    session.close()


def register(session, pinentry, username: str) -> dict:
    """A discoverable registration through the page, the PIN given when the host's dialog asks."""
    session.call(f"(window.__made = undefined, rp.register({json.dumps({'username': username, 'residentKey': 'required'})})"
                 ".then((r) => { window.__made = r; }), true)")
    pinentry.answer_while(lambda: session.call("window.__made === undefined"))
    made = session.call("window.__made")
    assert made.get("ok") and made["verdict"]["verified"], made
    return made


def open_keys_page(session):
    """The popup's page, then its "Manage security keys" link clicked for real: the Security keys page's tab.
    Chromium opens the popup's page in a tab of its own; Firefox's BiDi cannot, so the extension opens it (an
    extension page runs tabs.create), as test_popup.py does."""
    if session.kind == "chromium":
        ext_id = (extension_dir() / "chromium-id.txt").read_text().strip()
        session.browser.conn.call("Target.createTarget", {"url": f"chrome-extension://{ext_id}{POPUP_PATH}"})
    else:
        user = session.new_user("window")
        excluded = session.rp("register", username=user)   # no PIN: not discoverable, UV discouraged
        assert excluded.get("ok"), excluded
        session.press_in_page()   # the window opens at once only for a press of the user's (prompt-window.js)
        # Excluded: the window says why (with Try again) while the page waits; closing it answers the page.
        session.call(f"(window.heldCall = rp.register({json.dumps({'username': user})}), true)")
        window = PromptWindow.wait(session.browser)
        window.wait_for("document.body.className === 'error'")
        window.evaluate(f"(browser.tabs.create({{url: browser.runtime.getURL({json.dumps(POPUP_PATH[1:])})}}), true)")
        window.close()
        PromptWindow.wait_gone(session.browser)
        excluded = session.call("window.heldCall")
        assert excluded.get("name") == "InvalidStateError", excluded
    popup = extension_page.find(session.browser, POPUP_PATH)
    popup.wait_for("document.documentElement.dataset.view === 'fresh'", timeout=20)
    extension_page.click(popup, "#manage-keys")
    page = extension_page.find(session.browser, KEYS_PATH)
    page.wait_for("document.documentElement.dataset.state === 'ready' && document.getElementById('facts').children.length > 0",
                  timeout=20)
    return page


def show_passkeys(page, pinentry) -> list[dict]:
    extension_page.click(page, "#show")
    page.wait_for("document.getElementById('wait-text').textContent.startsWith('Enter your PIN in the dialog.')")
    pinentry.answer_while(lambda: page.evaluate("document.documentElement.dataset.state !== 'ready'"))
    return read_passkeys(page)


def read_passkeys(page) -> list[dict]:
    return page.evaluate("""[...document.querySelectorAll('#sites section')].flatMap((s) =>
      [...s.querySelectorAll('li')].map((li) => ({ site: s.querySelector('h3').textContent, id: li.dataset.credentialId,
        who: li.querySelector('strong').textContent, details: li.querySelector('.who span').textContent })))""")


def page_text(page, element: str) -> str:
    return page.evaluate(f"document.getElementById({json.dumps(element)}).textContent")


def test_a_page_posting_key_management_messages_to_the_relay_reaches_nothing(keyed):
    session, pinentry = keyed
    session.users = {name: session.new_user(name) for name in ("alice", "bob")}
    for username in session.users.values():
        register(session, pinentry, username)
    asked = pinentry.asked()
    forged = {"channel": "webauthn-bridge/v1", "dir": "to-relay", "device": "softfido:x", "credentialId": "AAEC",
              "userId": "AAEC", "name": "pwned", "origin": "moz-extension://x", "sender": {"url": "keys/keys.html"}}
    posts = [{**forged, "kind": kind, "rid": f"k{n}"} for n, kind in enumerate(KEY_FRAMES)]
    posts += [{**forged, "kind": "request", "type": kind, "rid": f"r{n}", "options": {}} for n, kind in enumerate(KEY_FRAMES)]
    session.call(f"({json.dumps(posts)}.forEach((m) => window.postMessage(m, '*')), "
                 "typeof chrome === 'undefined' || !chrome.runtime || !chrome.runtime.connectNative)")
    # A legitimate sign-in after the posts is the next thing the host does: nothing of theirs was in between.
    signed = session.rp("signIn", username=session.users["alice"], userVerification="discouraged")
    assert signed.get("ok"), signed
    log = session.host_log.read_text()
    assert "key management" not in log and not any(f"{kind} ok" in log or f"{kind} failed" in log for kind in KEY_FRAMES)
    assert pinentry.asked() == asked, "a PIN dialog was opened"


def test_the_page_from_the_popup_lists_renames_and_deletes_passkeys_a_ceremony_made(keyed, rp_server):
    session, pinentry = keyed
    site = rp_server.origin.split("://", 1)[1].split(":")[0]
    page = open_keys_page(session)
    facts = page.evaluate("Object.fromEntries([...document.querySelectorAll('#facts dt')].map((dt) =>"
                          " [dt.textContent, dt.nextElementSibling.textContent]))")
    assert facts["PIN"] == "Set · 8 attempts left", facts
    assert "FIDO_2_1" in facts["Versions"] and len(facts["AAGUID"]) == 36, facts

    listed = show_passkeys(page, pinentry)
    users = {row["who"].split(" (")[-1].rstrip(")"): row for row in listed}
    alice, bob = users[session.users["alice"]], users[session.users["bob"]]
    assert {row["site"] for row in listed} == {f"{site} (webauthn-bridge e2e)"}, listed   # rp.id (rp.name)
    assert alice["details"].endswith("Can be used without a PIN"), alice
    assert page_text(page, "slots").startswith(f"{len(listed)} passkey"), page_text(page, "slots")
    assert "PIN" not in page.evaluate("[...document.querySelectorAll('input')].map((i) => i.type).join()")

    # Rename bob: the page's dialog, a real click on Save, then the PIN in the host's dialog.
    extension_page.click(page, f"li[data-credential-id='{bob['id']}'] button:not(.danger)")
    page.wait_for("document.getElementById('rename').open")
    assert page.evaluate("document.activeElement.id") == "rename-name"   # a rename opens on its first field
    page.evaluate("(document.getElementById('rename-display').value = 'Bob Renamed', true)")
    page.wait_for(armed("rename-save"))   # Save takes a click only once armed (keys/dialogs.js)
    extension_page.click(page, "#rename-save")
    pinentry.answer_while(lambda: page.evaluate("document.documentElement.dataset.state !== 'ready'"))
    assert page_text(page, "done") == "Saved.", page_text(page, "problem")

    # Delete alice: the page's confirmation, a real click, the PIN, then the key's touch (the SoftToken's, at once).
    extension_page.click(page, f"li[data-credential-id='{alice['id']}'] button.danger")
    page.wait_for("document.getElementById('confirm').open")
    assert "Delete the passkey for" in page_text(page, "confirm-text")
    page.wait_for(armed("confirm-do"))
    extension_page.click(page, "#confirm-do")
    pinentry.answer_while(lambda: page.evaluate("document.documentElement.dataset.state !== 'ready'"))
    assert page_text(page, "done").startswith("Deleted the passkey for"), page_text(page, "problem")
    assert alice["id"] not in [row["id"] for row in read_passkeys(page)]

    # Read back from the key: listed again (enumerated afresh), bob renamed and no alice.
    again = {row["id"]: row for row in show_passkeys(page, pinentry)}
    assert alice["id"] not in again and again[bob["id"]]["who"].startswith("Bob Renamed ("), again
    log = session.host_log.read_text()
    assert PIN not in log

    # A real sign-in: alice's passkey is gone from the key, bob's still signs in.
    page.close()
    alice_name, bob_name = session.users["alice"], session.users["bob"]
    session.press_in_page()
    # The key holds none for alice now: the window says why and offers Try again; the user closes it.
    gone = session.rp_given_up("signIn", username=alice_name, userVerification="discouraged")
    assert gone.get("name") == "NotAllowedError", gone
    PromptWindow.wait_gone(session.browser)
    kept = session.rp("signIn", username=bob_name, userVerification="discouraged")
    assert kept.get("ok") and kept["verdict"]["username"] == bob_name, kept


def test_a_registration_refused_because_the_key_is_full_offers_the_page_in_the_security_key_window(keyed):
    session, _ = keyed
    # The SoftToken answers the next makeCredential with CTAP2_ERR_KEY_STORE_FULL (its fault file, docs/robustness.md).
    # Each host process reads the file afresh: it goes once the refusal is seen (a later key connection's touch
    # selection, a makeCredential too, would be refused again).
    faults = Path(f"{session.token}.faults")
    faults.write_text(json.dumps({"injectedErrors": {"1": 0x28}, "times": 1}))
    session.press_in_page()
    # The page waits while the window says why (with Try again); the page's button closes the window and answers it.
    session.call(f"(window.heldCall = rp.register({json.dumps({'username': session.new_user('full')})}), true)")
    window = PromptWindow.wait(session.browser)
    window.wait_for("document.body.className === 'error' && !document.getElementById('manage-keys').hidden"
                    " && document.documentElement.dataset.layout === 'settled'")
    assert "no room for another passkey" in window.text()
    faults.unlink()
    window.click("Manage security keys")
    PromptWindow.wait_gone(session.browser)
    full = session.call("window.heldCall")
    assert full.get("name") == "NotAllowedError", full
    page = extension_page.find(session.browser, KEYS_PATH)
    page.wait_for("document.documentElement.dataset.state === 'ready'", timeout=20)
    page.close()


def test_the_confirmation_takes_no_press_from_before_its_guard(keyed):
    """Enter held down on a passkey's "Delete" repeats on the dialog it opened, and the second click of a double-click
    lands on the dialog's Delete: neither confirms nor cancels (keys/dialogs.js, the security-key window's guard). A
    click once the button is armed (its data-guard) deletes."""
    session, pinentry = keyed
    carol = session.new_user("carol")
    register(session, pinentry, carol)
    page = open_keys_page(session)
    try:
        guarded_deletion(page, pinentry, carol)
    finally:
        page.close()   # its key connection would hold the key from the next test


def guarded_deletion(page, pinentry, user: str) -> None:
    row = next(r for r in show_passkeys(page, pinentry) if r["who"] == user or r["who"].endswith(f"({user})"))
    delete = f"li[data-credential-id='{row['id']}'] button.danger"
    asked = pinentry.asked()

    def untouched() -> bool:
        return page.evaluate(f"{CONFIRM_OPEN} && document.documentElement.dataset.state === 'ready'") \
            and pinentry.asked() == asked

    # Enter held: the dialog opens with Cancel focused (the safe choice), and the keyboard's repeats press nothing
    # (without the guard they would press Cancel and the list's Delete by turns: every click is counted).
    page.evaluate(f"(window.__clicks = [], document.addEventListener('click', (e) => window.__clicks.push(e.target.id"
                  f" || e.target.textContent), true), document.querySelector({json.dumps(delete)}).focus(), true)")
    page.hold("Enter", seconds=1)
    page.wait_for(CONFIRM_OPEN)
    assert page.evaluate("window.__clicks") == ["Delete"], "a repeated Enter pressed a button"
    assert page.evaluate("document.activeElement.id") == "confirm-cancel"
    page.wait_for(armed("confirm-do"))
    assert untouched(), page_text(page, "problem")
    where = {"list": extension_page.center(page, delete), "dialog": extension_page.center(page, "#confirm-do")}
    page.press("Escape")
    page.wait_for(f"!{CONFIRM_OPEN}")

    # A double-click: the second click reaches the dialog's Delete (counted here) within the guard, and does nothing.
    page.evaluate("(document.getElementById('confirm-do')"
                  ".addEventListener('pointerdown', () => { window.__pressed += 1; }), true)")
    for _ in range(3):
        page.evaluate("(window.__pressed = 0, true)")
        started = time.monotonic()
        page.click_at(*where["list"])
        page.click_at(*where["dialog"])
        within = time.monotonic() - started < GUARD_S   # both handled in that time: surely inside the guard
        if within or not untouched():
            break
        page.press("Escape")   # too slow to tell: again
        page.wait_for(f"!{CONFIRM_OPEN}")
    if not within and not untouched():
        pinentry.answer_while(lambda: page.evaluate("document.documentElement.dataset.state !== 'ready'"))
        pytest.skip("the two clicks took longer than the guard on this machine: the check is not conclusive")
    assert within, "every try took longer than the guard"
    assert page.evaluate("window.__pressed") == 1, "the second click missed the dialog's Delete"
    assert untouched(), "a click within the guard confirmed"
    page.wait_for(armed("confirm-do"))
    assert untouched()

    page.click_at(*where["dialog"])
    pinentry.answer_while(lambda: page.evaluate("document.documentElement.dataset.state !== 'ready'"))
    assert page_text(page, "done").startswith("Deleted the passkey for"), page_text(page, "problem")
    assert row["id"] not in [r["id"] for r in read_passkeys(page)]


def test_the_pin_changed_in_the_page_is_the_one_a_sign_in_then_asks_for(keyed):
    session, pinentry = keyed
    page = open_keys_page(session)
    page.wait_for("!document.getElementById('pin-change').hidden && document.getElementById('pin-create').hidden")
    pinentry.next = [PIN, NEW_PIN, NEW_PIN]   # the current PIN, then the new one twice
    extension_page.click(page, "#pin-change")
    pinentry.answer_while(lambda: page.evaluate("document.documentElement.dataset.state !== 'ready'"))
    assert page_text(page, "done") == "The PIN is changed.", page_text(page, "problem")
    page.close()
    session.press_in_page()
    pinentry.next = [NEW_PIN]
    session.call(f"(window.__signed = undefined, rp.signIn({json.dumps({'username': session.users['bob'], 'userVerification': 'required'})})"
                 ".then((r) => { window.__signed = r; }), true)")
    pinentry.answer_while(lambda: session.call("window.__signed === undefined"))
    signed = session.call("window.__signed")
    assert signed.get("ok") and signed["verdict"]["username"] == session.users["bob"], signed
    assert pinentry.next == []
