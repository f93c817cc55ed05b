#!/usr/bin/env bash
# Runs every test of webauthn-bridge on a fresh Debian 12 machine: installs what it needs, then
# Swift unit/integration tests, the extension's node tests and the Python end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(pkg-config libfido2-dev libssl-dev libpsl-dev libcbor-dev publicsuffix pinentry-tty pinentry-curses python3 python3-venv)
PIP_PACKAGES=(webauthn fido2 pytest pytest-timeout websocket-client)

missing=()
for p in "${APT_PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then echo "missing packages: ${missing[*]} (run: sudo apt-get install ${missing[*]})" >&2; exit 1; fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
# shellcheck source=scripts/python-env.sh
. scripts/python-env.sh
python_env_setup "${PIP_PACKAGES[@]}"

echo "== swift build"
swift build --build-tests
echo "== swift test"
# The suites that drive real pinentry programs on pseudo-terminals run in a pass of their own: alongside the
# CPU-heavy suites a pinentry can miss its cancel window, which is a property of the loaded test machine.
# Every stage has a time limit, so a test that hangs fails its stage instead of stalling the whole run.
TERMINAL_SUITES='PinentryTTYTests|PinentryCursesTests|TerminalPromptTests'
timeout --kill-after=10 900 swift test --skip-build --skip "$TERMINAL_SUITES"
timeout --kill-after=10 300 swift test --skip-build --filter "$TERMINAL_SUITES"
if [ -d extension/tests ]; then
  echo "== extension (node --test)"
  timeout --kill-after=10 300 node --test extension/tests/
fi
echo "== integration: the host as browsers launch it (pytest, py_webauthn oracle)"
WEBAUTHN_BRIDGE_HOST="$PWD/.build/debug/webauthn-bridge" python3 -m pytest -q --timeout=120 Tests/Integration
echo "== end-to-end: headless Chromium and Firefox ESR with the extension"
WEBAUTHN_BRIDGE_HOST="$PWD/.build/debug/webauthn-bridge" Tests/E2E/run.sh
