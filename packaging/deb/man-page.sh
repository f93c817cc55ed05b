#!/usr/bin/env bash
# Prints webauthn-bridge.1 for HOST (the binary the package ships), generated from the command's own help by
# swift-argument-parser's generate-manual tool: it runs HOST --experimental-dump-help and writes mdoc. The tool is
# built as a release product with the host's flags (packaging/release-build.sh), which reuses the ArgumentParser
# the host's release build compiled: a few seconds, where the generate-manual plugin compiled the plugin, a
# second ArgumentParser for its tool and a debug host (docs/release.md, "The Debian package").
# Works offline once the package's dependencies are resolved.
# Usage: man-page.sh HOST [SWIFT-BUILD-ARGUMENT...]   (arguments for the tool's build, e.g. --scratch-path DIR)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
host=${1:?host binary}
shift
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-315532800}" +%Y-%m-%d)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail() { cat "$log" >&2; echo "man-page.sh: $*" >&2; exit 1; }
tool=$("$here/../release-build.sh" --product generate-manual "$@" 2>"$log") || fail "building generate-manual failed"
"$tool" "$host" --date "$date" --output-directory - 2>"$log" || fail "generate-manual $host failed"
