"""manifests/browsers.tsv is the one place the install scripts find a browser's directories and Flatpak id:
install.sh, install-policies.sh and packaging/deb/build-deb.sh read it (the host's compiled-in copy is held to it by
BrowserTableTests). None of them spells one of the table's values in its code, so that a change to the table cannot
leave a script behind; comments may name them."""
from bridge import REPO

SCRIPTS = ["install.sh", "install-policies.sh", "packaging/deb/build-deb.sh"]
# profile, manifests, system manifests, extensions, policies; then flatpak (command and snap names are plain words
# that scripts use for other things).
COLUMNS = [3, 4, 5, 6, 7, 9]


def table_values():
    values = set()
    for line in (REPO / "manifests/browsers.tsv").read_text().splitlines():
        if not line.startswith("#"):
            cells = line.split("\t")
            values.update(cells[c] for c in COLUMNS if cells[c] != "-")
    return values


def code_lines(script):
    return [(n, line) for n, line in enumerate((REPO / script).read_text().splitlines(), 1)
            if not line.lstrip().startswith("#")]


def test_the_table_has_values_to_look_for():
    assert {"/usr/lib/librewolf/native-messaging-hosts", "/etc/chromium/policies/managed",
            "io.gitlab.librewolf-community"} <= table_values()


def test_the_install_scripts_spell_no_value_of_the_browser_table():
    values = table_values()
    spelled = [f"{script}:{n}: {value}" for script in SCRIPTS for n, line in code_lines(script)
               for value in values if value in line]
    assert spelled == []
