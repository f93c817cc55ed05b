#!/usr/bin/env python3
"""Writes Sources/Diagnostics/BrowserTableRows.swift from manifests/browsers.tsv, the browser table install.sh reads at
run time: the host, installed without the source tree, carries the same rows compiled in. BrowserTableTests fails
when the two differ; run this script after changing the table (it formats the file with `swift format`, as
scripts/format.sh does)."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TABLE = REPO / "manifests" / "browsers.tsv"
OUT = REPO / "Sources" / "Diagnostics" / "BrowserTableRows.swift"
FIELDS = ["id", "name", "kind", "profile", "manifests", "systemManifests", "extensions", "policies", "command",
          "flatpak", "snap"]


def rows():
    for line in TABLE.read_text().splitlines():
        if line and not line.startswith("#"):
            cells = line.split("\t")
            if len(cells) != len(FIELDS):
                sys.exit(f"{TABLE}: {len(cells)} columns, not {len(FIELDS)}: {line!r}")
            yield cells


def swift_string(text: str) -> str:
    assert '"' not in text and "\\" not in text, text
    return f'"{text}"'


def main():
    out = ["// Generated from manifests/browsers.tsv by scripts/generate-browser-table.py: edit the table, not this file.",
           "",
           "extension BrowserTable {",
           "    static let rows: [Row] = ["]
    for cells in rows():
        arguments = ", ".join(f"{field}: {swift_string(cell)}" for field, cell in zip(FIELDS, cells))
        out.append(f"        Row({arguments}),")
    out += ["    ]", "}", ""]
    OUT.write_text("\n".join(out))
    subprocess.run(["swift", "format", "format", "--in-place", str(OUT)], cwd=REPO, check=True)


if __name__ == "__main__":
    main()
