"""Every key people own: each SoftToken profile (`token create --profile`) × each kind of request, through the real
host and libfido2, every credential verified by py_webauthn. The expected outcomes are the table in keys_matrix.md
beside this file (what each request is: docs/keys.md, "Matrix"), which also gives Chromium's outcome with such a key
where it differs and explains why: the test reads the table, so the table and the behaviour cannot drift apart."""

import re
from pathlib import Path

import pytest

from bridge import REPO, binary, create_token, decode_binary
from rp import ORIGIN, creation_options, request_options, verify_authentication, verify_registration

PIN = "1234"
TABLE = Path(__file__).with_name("keys_matrix.md")
SCENARIOS = ["create", "create discoverable", "get with allow list", "get discoverable", "create uv required",
             "get uv required", "exclude hit", "prf", "largeBlob", "EdDSA only", "get long allow list",
             "get discoverable uv discouraged"]


DIFFERS = re.compile(r"^(.*) \(Chromium: (.*)\) †$")


def expected_table() -> dict[str, dict[str, tuple[str, str, str]]]:
    """profile → scenario → (Chromium, webauthn-bridge, why they differ), from keys_matrix.md: a row per
    request, a column per profile; a cell is the bridge's outcome, and "OUTCOME (Chromium: OTHER) †" where
    Chromium's differs, explained by the paragraph after the table that starts with "†"."""
    section = TABLE.read_text().split("<!-- matrix -->")[1]
    lines = [line.strip() for line in section.strip().splitlines()]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines if line.startswith("|")]
    why = next((line for line in lines if line.startswith("† ")), "")
    profiles = [name.strip("`") for name in rows[0][1:]]
    table: dict[str, dict[str, tuple[str, str, str]]] = {profile: {} for profile in profiles}
    for scenario, *cells in rows[2:]:
        for profile, cell in zip(profiles, cells, strict=True):
            differs = DIFFERS.match(cell)
            bridge, chromium = (differs.group(1), differs.group(2)) if differs else (cell, cell)
            table[profile][scenario] = (chromium, bridge, why if differs else "")
    return table


EXPECTED = expected_table()


class Session:
    """One host on one profile's token (with PIN 1234 where the key takes a PIN), and what it registered."""

    def __init__(self, launch, tmp_path, profile, pinentry):
        env, answers, self._commands = pinentry
        answers(*[f"pin {PIN}"] * 64)
        args = ["--profile", profile] + ([] if profile == "u2f-only" else ["--pin", PIN])
        self.host = launch(create_token(tmp_path / f"{profile}.state", *args), env=env)
        self.count = 0
        self.registered = None
        self.discoverable = None

    def pins_asked(self) -> int:
        return sum(1 for c in self._commands() if c.startswith("GETPIN"))

    def run(self, kind: str, options: dict, challenge: bytes, public_key=None, sign_count=0):
        """Runs one ceremony; returns (outcome text, reply, verified)."""
        self.count += 1
        before = self.pins_asked()
        request_id = f"r-{self.count}"
        self.host.send({"id": request_id, "type": kind, "origin": ORIGIN, "options": options})
        while (reply := self.host.recv(timeout=30)).get("type") == "status":
            if reply.get("status") == "select-account":
                # Several discoverable credentials: the user picks the one the scenario made.
                users = [decode_binary(a["id"]) for a in reply["accounts"]]
                self.host.send({"id": request_id, "type": "select", "index": users.index(b"user-disc")})
        if reply["type"] == "error":
            return reply["error"]["name"], reply, None
        if kind == "create":
            verified = verify_registration(reply["credential"], challenge)
            uv = verified.user_verified
        else:
            verified = verify_authentication(reply["credential"], challenge, public_key, sign_count)
            uv = verified.user_verified
        outcome = "ok"
        if uv:
            outcome += ", PIN" if self.pins_asked() > before else ", built-in UV"
        return outcome, reply, verified

    def credential(self):
        """A non-discoverable credential to sign in with (registered once per session)."""
        if self.registered is None:
            options, challenge = creation_options(authenticatorSelection={"residentKey": "discouraged", "userVerification": "discouraged"})
            _, _, self.registered = self.run("create", options, challenge)
            assert self.registered is not None, "the key could not make a credential"
        return self.registered


def scenario(session: Session, name: str) -> str:
    if name == "create":
        options, challenge = creation_options(authenticatorSelection={"residentKey": "discouraged", "userVerification": "discouraged"}, attestation="direct")
        return session.run("create", options, challenge)[0]
    if name == "create discoverable":
        options, challenge = creation_options(user_id=b"user-rk", authenticatorSelection={"residentKey": "required"})
        return session.run("create", options, challenge)[0]
    if name == "create uv required":
        options, challenge = creation_options(authenticatorSelection={"residentKey": "discouraged", "userVerification": "required"})
        return session.run("create", options, challenge)[0]
    if name == "exclude hit":
        held = session.credential()
        options, challenge = creation_options(excludeCredentials=[{"type": "public-key", "id": binary(held.credential_id)}],
                                              authenticatorSelection={"residentKey": "discouraged", "userVerification": "discouraged"})
        return session.run("create", options, challenge)[0]
    if name == "prf":
        options, challenge = creation_options(authenticatorSelection={"residentKey": "discouraged", "userVerification": "discouraged"},
                                              extensions={"prf": {}})
        outcome, reply, _ = session.run("create", options, challenge)
        if reply["type"] != "result":
            return outcome
        return "prf enabled" if reply["credential"]["clientExtensionResults"]["prf"]["enabled"] else "prf not enabled"
    if name == "largeBlob":
        options, challenge = creation_options(user_id=b"user-blob", authenticatorSelection={"residentKey": "required"},
                                              extensions={"largeBlob": {"support": "preferred"}})
        outcome, reply, _ = session.run("create", options, challenge)
        if reply["type"] != "result":
            return outcome
        return "largeBlob supported" if reply["credential"]["clientExtensionResults"]["largeBlob"]["supported"] else "largeBlob not supported"
    if name == "EdDSA only":
        options, challenge = creation_options(pubKeyCredParams=[{"type": "public-key", "alg": -8}],
                                              authenticatorSelection={"residentKey": "discouraged", "userVerification": "discouraged"})
        return session.run("create", options, challenge)[0]
    held = session.credential()
    key, count = held.credential_public_key, held.sign_count
    if name == "get with allow list":
        options, challenge = request_options(allow=[held.credential_id], userVerification="discouraged")
    elif name == "get uv required":
        options, challenge = request_options(allow=[held.credential_id], userVerification="required")
    elif name == "get long allow list":
        others = [bytes([i]) * 64 for i in range(1, 5)]
        options, challenge = request_options(allow=others + [held.credential_id], userVerification="discouraged")
    elif name == "get discoverable":
        rk_options, rk_challenge = creation_options(user_id=b"user-disc", authenticatorSelection={"residentKey": "preferred"})
        _, _, made = session.run("create", rk_options, rk_challenge)
        session.discoverable = made
        options, challenge = request_options()
        key = made.credential_public_key if made else key
    elif name == "get discoverable uv discouraged":
        made = session.discoverable  # made by "get discoverable", which runs before
        options, challenge = request_options(userVerification="discouraged")
        key = made.credential_public_key if made else key
    else:
        raise AssertionError(f"unknown scenario {name}")
    # The counter only has to grow; each sign-in bumps it by one.
    return session.run("get", options, challenge, key, 0)[0]


@pytest.mark.parametrize("profile", sorted(EXPECTED))
def test_profile_behaves_as_the_matrix_says(launch, tmp_path, pinentry, profile):
    session = Session(launch, tmp_path, profile, pinentry)
    rows = EXPECTED[profile]
    assert set(rows) == set(SCENARIOS), f"keys_matrix.md must list every scenario for {profile}"
    observed = {name: scenario(session, name) for name in SCENARIOS}
    expected = {name: rows[name][1] for name in SCENARIOS}
    assert observed == expected
    for name, (chromium, bridge, why) in rows.items():
        # Every difference from Chromium is explained in the table.
        assert chromium == bridge or why, f"{profile} / {name}: differs from Chromium without a reason"


def test_the_table_covers_every_profile():
    import subprocess
    from bridge import host_binary
    listed = subprocess.run([host_binary(), "token", "profiles"], check=True, capture_output=True, text=True).stdout
    names = {line for line in listed.splitlines() if line and not line.startswith(" ")}
    assert names == set(EXPECTED)


def test_no_common_algorithm_is_refused_after_a_touch(launch, tmp_path):
    # As Chromium: a key without the requested algorithm blinks and is refused once touched (kNoCommonAlgorithms,
    # NOT_ALLOWED_ERROR).
    import time
    host = launch(create_token(tmp_path / "es256.state", "--profile", "es256-only", "--presence", "delay:400"))
    options, _ = creation_options(pubKeyCredParams=[{"type": "public-key", "alg": -8}])
    started = time.monotonic()
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options})
    assert reply["type"] == "error" and reply["error"]["name"] == "NotAllowedError", reply
    assert [s["status"] for s in statuses] == ["touch"]
    assert time.monotonic() - started >= 0.4


def test_a_fingerprint_key_falls_back_to_its_pin_once_the_fingerprint_is_blocked(launch, tmp_path, pinentry):
    # As Chromium (internal UV locked → PIN): each failed fingerprint is retried until the key blocks it.
    env, answers, commands = pinentry
    answers(f"pin {PIN}")
    token = create_token(tmp_path / "bio.state", "--profile", "bio", "--uv-fails", "--pin", PIN)
    host = launch(token, env=env)
    options, challenge = creation_options(authenticatorSelection={"userVerification": "required", "residentKey": "discouraged"})
    reply, statuses = host.request({"id": "c-1", "type": "create", "origin": ORIGIN, "options": options}, timeout=30)
    assert reply["type"] == "result", reply
    assert verify_registration(reply["credential"], challenge, require_uv=True).user_verified
    assert [c for c in commands() if c.startswith("GETPIN")] and "pin" in [s["status"] for s in statuses]
    assert "built-in user verification blocked; falling back to the PIN" in host.log()
