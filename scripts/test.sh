#!/usr/bin/env bash
# Runs every test of webauthn-bridge on a fresh Debian 12 machine: installs what it needs, then
# Swift unit/integration tests, the extension's node tests and the Python end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(pkg-config libfido2-dev libssl-dev libpsl-dev libcbor-dev publicsuffix pinentry-tty pinentry-curses python3 python3-venv openssl dpkg-dev lintian man-db
  fido2-tools umockdev gir1.2-umockdev-1.0 python3-gi udev)
# man-db: test_man_page renders the man page. fido2-tools, umockdev, gir1.2-umockdev-1.0, python3-gi, udev (udevadm):
# keys on the USB path (hidraw nodes of a umockdev testbed, Tests/Integration/usb_keys.py), libfido2's own tools as a
# second client and libudev's monitor as a listener.
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

# The suites that drive real pinentry programs on pseudo-terminals run in a pass of their own: alongside the
# CPU-heavy suites a pinentry can miss its cancel window, which is a property of the loaded test machine.
# Every stage has a time limit, so a test that hangs fails its stage instead of stalling the whole run.
TERMINAL_SUITES='PinentryTTYTests|PinentryCursesTests|TerminalPromptTests'

# ---- Sanitizers (issue 14, docs/robustness.md) ------------------------------------------------------------
# scripts/test.sh --sanitize address|thread: only the Swift test suite, built with that sanitizer in a scratch
# directory of its own (.build-address, .build-thread), niced; any sanitizer report fails the run.
if [ "${1:-}" = "--sanitize" ]; then
  sanitizer="${2:-}"
  case "$sanitizer" in address|thread) ;; *) echo "usage: scripts/test.sh --sanitize address|thread" >&2; exit 2 ;; esac
  scratch=".build-$sanitizer"
  export SWIFT_BACKTRACE=enable=no  # the sanitizer's own report is the one wanted
  # TSan cannot see Synchronization.Mutex on Linux: the suppressions name the functions checked to touch their
  # state only inside one Mutex (scripts/tsan-suppressions.txt says why, entry by entry).
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1}"
  export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:suppressions=$PWD/scripts/tsan-suppressions.txt}"
  echo "== swift build --sanitize $sanitizer"
  nice -n 19 swift build --build-tests --scratch-path "$scratch" --sanitize "$sanitizer"
  echo "== swift test --sanitize $sanitizer"
  timeout --kill-after=10 3600 nice -n 19 swift test --skip-build --scratch-path "$scratch" --sanitize "$sanitizer" --skip "$TERMINAL_SUITES"
  timeout --kill-after=10 900 nice -n 19 swift test --skip-build --scratch-path "$scratch" --sanitize "$sanitizer" --filter "$TERMINAL_SUITES"
  exit 0
fi

# Swift formatting (.swift-format; scripts/format.sh formats in place). A difference fails the run;
# FORMAT_CHECK=report only counts them (for a local run in the middle of an edit).
echo "== swift format lint (scripts/format.sh --check)"
if ! lint=$(scripts/format.sh --check 2>&1); then
  if [ "${FORMAT_CHECK:-fail}" != report ]; then printf '%s\n' "$lint" >&2; exit 1; fi
  echo "$(grep -c ': error: ' <<<"$lint") formatting differences, not failing (FORMAT_CHECK=report); see scripts/format.sh --check"
fi
echo "== swift build"
swift build --build-tests
echo "== swift test"
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

# ---- Release artifacts (docs/release.md) -------------------------------------------------------------------
# The release host, built as install.sh builds it (packaging/release-build.sh; E2E's test_install has just built
# it through install.sh itself, so here it is up to date), every artifact of `scripts/package.sh all` from it into
# a scratch directory (throwaway CRX key), and that .deb checked: contents, man page, lintian, a dpkg install and
# removal, a reproducible rebuild (test_package_deb.py). The directory stays behind only when a step fails.
echo "== release artifacts: scripts/package.sh all with the release host, test_package_deb.py (lintian)"
release_host=$(timeout --kill-after=10 1800 packaging/release-build.sh)
release_dist=$(mktemp -d -t webauthn-bridge-release.XXXXXX)
timeout --kill-after=10 600 scripts/package.sh all --host-binary "$release_host" --out "$release_dist"
WEBAUTHN_BRIDGE_RELEASE_HOST="$release_host" WEBAUTHN_BRIDGE_DIST="$release_dist" timeout --kill-after=10 1200 \
  python3 -m pytest -q -rs --timeout=900 Tests/Integration/test_package_deb.py
rm -rf "$release_dist"

# ---- Fuzzing smoke run (issue 14, docs/robustness.md) -------------------------------------------------------
# Each libFuzzer target for 12 s from its committed seeds, after replaying its regression inputs, so a parser
# that crashes again shows on the next landing. Builds in .build-fuzz (-sanitize=fuzzer,address), niced.
echo "== fuzz: every target for 12 s (scripts/fuzz.sh)"
timeout --kill-after=10 900 scripts/fuzz.sh --seconds 12
