#!/usr/bin/env bash
# Gets the Firefox add-on signed by Mozilla, so that Firefox release builds install it (docs/release.md):
# builds dist/webauthn-bridge-VERSION.xpi when it is missing, then submits it to addons.mozilla.org's signing API
# on the unlisted channel (self-distribution, no listing) and downloads the signed file as
# dist/webauthn-bridge-VERSION-signed.xpi. Needs the maintainer's AMO API credentials in the environment:
#   AMO_JWT_ISSUER   the "JWT issuer" of https://addons.mozilla.org/en-US/developers/addon/api/key/ (user:NNN:NN)
#   AMO_JWT_SECRET   the "JWT secret" shown next to it
# Optional: AMO_BASE_URL (default https://addons.mozilla.org), AMO_POLL_SECONDS (10), AMO_TIMEOUT_SECONDS (1800),
# --out DIR (default dist/). Without credentials it changes nothing and prints what to do.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly REPO
out="$REPO/dist"
while (($#)); do
  case "$1" in
    --out) out=$(realpath -m -- "${2:?--out needs a directory}"); shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "release.sh: unknown argument: $1 (only --out DIR)" >&2; exit 2 ;;
  esac
done
version=$(tr -d '[:space:]' <"$REPO/VERSION")
xpi="$out/webauthn-bridge-$version.xpi"
signed="$out/webauthn-bridge-$version-signed.xpi"

if [[ -z ${AMO_JWT_ISSUER:-} || -z ${AMO_JWT_SECRET:-} ]]; then
  cat >&2 <<HOWTO
release.sh: AMO_JWT_ISSUER and AMO_JWT_SECRET are not both set, so nothing was sent to addons.mozilla.org.

To sign webauthn-bridge $version for Firefox:
  1. Sign in to https://addons.mozilla.org with the account that owns the add-on webauthn-bridge@webauthn-bridge
     (any account, for its first version), accept the distribution agreement, and open
     https://addons.mozilla.org/en-US/developers/addon/api/key/ → "Generate new credentials".
  2. Run, with the two values shown there (read -s keeps the secret off the screen and out of the history):
        export AMO_JWT_ISSUER='user:12345:67'
        read -rs AMO_JWT_SECRET && export AMO_JWT_SECRET      # paste the JWT secret, then Enter
        scripts/release.sh
     It uploads $(basename "$xpi") on the unlisted channel, waits for validation and Mozilla's signature
     (usually minutes; unlisted versions are signed automatically) and writes $(basename "$signed").
  Without API credentials: upload $(basename "$xpi") at
     https://addons.mozilla.org/en-US/developers/addon/submit/distribution, choose "On your own", and download
     the signed file from the version's page when it is ready.
HOWTO
  exit 2
fi

command -v python3 >/dev/null || { echo "release.sh: python3 not found" >&2; exit 1; }
if [[ ! -f $xpi ]]; then
  "$REPO/scripts/package.sh" xpi --out "$out"
fi
exec python3 "$REPO/packaging/amo_sign.py" "$xpi" "$signed"
