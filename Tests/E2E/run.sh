#!/usr/bin/env bash
# Runs the end-to-end suite (Tests/E2E) in headless Chromium and Firefox ESR. Installs the Debian and PyPI
# packages it needs when they are missing (apt-get only as root; otherwise it prints the sudo command).
# It builds nothing: the host comes from $WEBAUTHN_BRIDGE_HOST or .build/debug/webauthn-bridge, and the suite
# fails (not skips) when that is missing. Extra arguments go to pytest (e.g. -k firefox).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# openssl: package.sh signs the CRX (test_policy_install); umockdev, gir1.2-umockdev-1.0, python3-gi: a key on the USB
# path (test_usb_key, Tests/Integration/usb_keys.py)
APT_PACKAGES=(chromium firefox-esr shellcheck binutils python3 python3-venv openssl umockdev gir1.2-umockdev-1.0 python3-gi)
PIP_PACKAGES=(websocket-client webauthn pytest pytest-timeout)
PIP_MODULES=(websocket webauthn pytest pytest_timeout)

missing=()
for p in "${APT_PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  if ((EUID != 0)); then
    echo "run.sh: missing packages; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
if ! (IFS=,; python3 -c "import ${PIP_MODULES[*]}") 2>/dev/null; then
  # shellcheck source=/dev/null
  . "$here/../../scripts/python-env.sh"
  python_env_setup "${PIP_PACKAGES[@]}"
fi

cd "$here"
export PYTHONDONTWRITEBYTECODE=1
exec python3 -m pytest -p no:cacheprovider -q -rfE --timeout=300 "$@"   # no path: pytest collects this directory
