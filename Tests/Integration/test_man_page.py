"""packaging/webauthn-bridge.1, the man page the package ships, against the program it describes: every command and
option the program has (its own --experimental-dump-help) is in COMMANDS once, nothing there that the program lacks,
--help and --version only under OPTIONS, the sections a Debian man page has, and man renders it without a warning."""
import json
import os
import re
import subprocess

import pytest

from bridge import REPO, host_binary

PAGE = REPO / "packaging" / "webauthn-bridge.1"
COMMON = {"help", "version"}   # every command has them: the page says so once, under OPTIONS


def program_commands() -> dict[str, tuple[set[str], set[str]]]:
    """{'token create': ({'profile', ...}, {'file'})}: each command's long options and positional arguments."""
    dump = json.loads(subprocess.run([host_binary(), "--experimental-dump-help"], capture_output=True, text=True, check=True,
                                     timeout=30, stdin=subprocess.DEVNULL).stdout)["command"]
    found = {}

    def walk(command, path):
        for sub in command.get("subcommands", []):
            name = [*path, sub["commandName"]]
            if name == ["help"]:
                continue
            arguments = sub.get("arguments", [])
            options = {n["name"] for a in arguments for n in a.get("names") or [] if n["kind"] == "long"} - COMMON
            positionals = {a["valueName"] for a in arguments if a["kind"] == "positional"}
            if not sub.get("subcommands"):
                found[" ".join(name)] = (options, positionals)
            walk(sub, name)

    walk(dump, [])
    return found


def sections(text: str) -> dict[str, str]:
    parts = re.split(r"^\.SH (.+)$", text, flags=re.M)
    return {parts[i].strip('"'): parts[i + 1] for i in range(1, len(parts), 2)}


def plain(roff: str) -> str:
    """A tag line without its font changes and escapes: '\\fBtoken show\\fR \\fIfile\\fR' → 'token show file'."""
    text = re.sub(r"\\f[BIR]", "", roff).replace("\\-", "-")
    return re.sub(r"^\.(B|I|BR|IR|RB|BI) ", "", text).replace('"', "")


def command_tags(commands_section: str) -> dict[str, str]:
    """{'token create': its tag line}: the line after each .TP, named by its words before the first option."""
    lines = commands_section.splitlines()
    tags = [plain(lines[i + 1]) for i, line in enumerate(lines) if line == ".TP"]
    def name(tag: str) -> str:
        groups = ("key passkeys", "key pin", "key fingerprints", "key config")
        words = 3 if tag.startswith(groups) else 2 if tag.startswith(("token", "key")) else 1
        return " ".join(re.split(r" [\[\-]", tag)[0].split()[:words])

    return {name(tag): tag for tag in tags}


def test_every_command_and_option_is_in_commands_once_and_nothing_else():
    text = PAGE.read_text()
    tags = command_tags(sections(text)["COMMANDS"])
    commands = program_commands()
    assert sorted(tags) == sorted(commands)
    for name, (options, positionals) in commands.items():
        tag = tags[name]
        for option in options:
            assert len(re.findall(rf"--{option}\b(?!-)", tag)) == 1, (name, option, tag)
        assert set(re.findall(r"--([a-z0-9-]+)", tag)) == options, (name, tag)
        for positional in positionals:
            assert re.search(rf"\b{positional}\b", tag), (name, positional, tag)
        assert "--help" not in tag and "--version" not in tag


def test_the_sections_of_a_debian_man_page_and_the_version():
    text = PAGE.read_text()
    assert list(sections(text)) == ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "ENVIRONMENT", "FILES",
                                    "EXIT STATUS", "SEE ALSO"]
    version = (REPO / "VERSION").read_text().strip()
    assert re.search(rf'^\.TH WEBAUTHN-BRIDGE 1 \S+ "webauthn-bridge {re.escape(version)}"', text, re.M)
    environment = sections(text)["ENVIRONMENT"]
    used = set(re.findall(r'"(WEBAUTHN_BRIDGE_[A-Z_]+)"',
                          "".join(p.read_text() for p in (REPO / "Sources").rglob("*.swift"))))
    used -= {"WEBAUTHN_BRIDGE_BENCH_TIMING"}   # bench's own switch for its tests
    assert used and {v for v in used if v.replace("_", "\\_") not in environment and v not in environment} == set()
    for see in ("pinentry (1)", "fido2\\-token (1)"):
        assert see in sections(text)["SEE ALSO"]


@pytest.mark.parametrize("width", ["80", "100"])
def test_man_renders_it_without_a_warning(width):
    rendered = subprocess.run(["man", "-l", str(PAGE)], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "MANWIDTH": width, "MAN_KEEP_STDERR": "1", "LANG": "C.UTF-8"})
    assert rendered.returncode == 0 and rendered.stderr == "", rendered.stderr
    assert "demo [--browser chromium|firefox] [--browser-binary path]" in " ".join(rendered.stdout.split())
