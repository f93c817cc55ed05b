#!/usr/bin/env bash
# The Swift formatting of the repository, by the toolchain's own `swift format` and the rules in .swift-format
# (swift-nio's rules and a few stricter ones; its `_comment` key says which are off and why).
#   scripts/format.sh          formats every Swift file in place
#   scripts/format.sh --check  changes nothing; lists each difference and fails if there is one
set -euo pipefail
cd "$(dirname "$0")/.."

PATHS=(Sources Tests Fuzz Package.swift)

case "${1:-}" in
  --check) exec swift format lint --strict --parallel --recursive "${PATHS[@]}" ;;
  "") exec swift format format --in-place --parallel --recursive "${PATHS[@]}" ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac
