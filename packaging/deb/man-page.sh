#!/usr/bin/env bash
# Prints webauthn-bridge.1, generated from the command's own help by swift-argument-parser's generate-manual
# plugin (it builds the package in release mode, runs the host with --experimental-dump-help and writes mdoc).
# Works offline once the package's dependencies are resolved. Usage: man-page.sh REPO
set -euo pipefail
repo=${1:?repository}
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-315532800}" +%Y-%m-%d)
log=$(mktemp)
stamp=$(mktemp)   # older than the page the plugin writes: a page left from an earlier run is not taken
trap 'rm -f "$log" "$stamp"' EXIT
if ! swift package --package-path "$repo" plugin generate-manual --configuration debug --date "$date" >"$log" 2>&1; then
  cat "$log" >&2
  echo "man-page.sh: swift package plugin generate-manual failed" >&2
  exit 1
fi
page=$(find "$repo/.build/plugins" -path '*GenerateManual*' -name webauthn-bridge.1 -newer "$stamp" -print -quit)
[[ -n $page ]] || { cat "$log" >&2; echo "man-page.sh: the plugin wrote no webauthn-bridge.1" >&2; exit 1; }
cat "$page"
