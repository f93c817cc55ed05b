#!/usr/bin/env bash
# Builds the release artifacts into dist/ (docs/release.md):
#   xpi           webauthn-bridge-VERSION.xpi            for addons.mozilla.org (and Firefox ESR policy installs)
#   chromium-zip  webauthn-bridge-VERSION-chromium.zip   for the Chrome Web Store
#   crx           webauthn-bridge-VERSION.crx            CRX3 signed with --crx-key, for Chromium policy installs;
#                 its extension id goes to dist/chromium-id.txt
#   deb           webauthn-bridge_VERSION_amd64.deb      host, host manifests, extension, man page (release build)
#   all           all of the above (the default)
# The version is VERSION's; the script refuses to build when extension/manifest.json or the host disagree.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly REPO
readonly PACK="$REPO/packaging/extension_package.py"

usage() {
  cat <<USAGE
Usage: $0 [xpi|chromium-zip|crx|deb|all]... [--crx-key FILE] [--host-binary FILE] [--scratch-path DIR] [--out DIR]

  --crx-key FILE   the PEM RSA key that signs the CRX (the maintainer's; it fixes the extension id). Without it a
                   throwaway key is generated into dist/ (and reused by later runs): fine for tests, never for a release.
  --host-binary FILE the host to package in the .deb, instead of a release build made here (it must say --version
                   VERSION; use a release build with --static-swift-stdlib: packaging/release-build.sh prints one)
  --scratch-path DIR the SwiftPM build directory for the .deb's release build of the host (unless given), instead
                   of .build
  --out DIR        write the artifacts into DIR instead of dist/
USAGE
}
die() { echo "package.sh: $*" >&2; exit 1; }

targets=()
crx_key=''
host_binary=''
swift_build_args=()
DIST="$REPO/dist"
while (($#)); do
  case "$1" in
    xpi|chromium-zip|crx|deb) targets+=("$1"); shift ;;
    all) targets+=(xpi chromium-zip crx deb); shift ;;
    --crx-key) crx_key=${2:?--crx-key needs a file}; shift 2 ;;
    --host-binary) host_binary=$(realpath -- "${2:?--host-binary needs a file}"); shift 2 ;;
    --scratch-path) swift_build_args=(--scratch-path "$(realpath -m -- "${2:?--scratch-path needs a directory}")"); shift 2 ;;
    --out) DIST=$(realpath -m -- "${2:?--out needs a directory}"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done
((${#targets[@]})) || targets=(xpi chromium-zip crx deb)
for tool in python3 openssl; do command -v "$tool" >/dev/null || die "$tool not found (apt-get install $tool)"; done

# --- one version everywhere ------------------------------------------------------------------------------------
version=$(tr -d '[:space:]' <"$REPO/VERSION")
[[ $version =~ ^[0-9]+(\.[0-9]+){1,3}$ ]] || die "VERSION must be 2 to 4 dot-separated integers (the browsers' rule), not '$version'"
manifest_version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$REPO/extension/manifest.json")
[[ $manifest_version == "$version" ]] || die "extension/manifest.json has version $manifest_version, VERSION has $version: make them equal"
host_version=$(sed -n 's/^ *version: "\([^"]*\)".*$/\1/p' "$REPO/Sources/webauthn-bridge/WebAuthnBridgeCommand.swift")
[[ $host_version == "$version" ]] || die "Sources/webauthn-bridge/WebAuthnBridgeCommand.swift has version '$host_version', VERSION has $version: make them equal"
readonly version DIST

mkdir -p "$DIST"
# One timestamp for every archive entry and packaged file: the last commit's, so a rebuild gives the same bytes.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || echo 315532800)}
export SOURCE_DATE_EPOCH

build_xpi() {
  python3 "$PACK" zip --store firefox "$REPO/extension" "$DIST/webauthn-bridge-$version.xpi"
  echo "built: $DIST/webauthn-bridge-$version.xpi"
}

build_chromium_zip() {
  python3 "$PACK" zip --store chromium "$REPO/extension" "$DIST/webauthn-bridge-$version-chromium.zip"
  echo "built: $DIST/webauthn-bridge-$version-chromium.zip"
}

warn_throwaway_key() {  # KEY
  cat >&2 <<WARNING
*****************************************************************************************************************
* package.sh: NO --crx-key GIVEN. The CRX is signed with a THROWAWAY key:
*   $1
* Its extension id is not the released one: an installation that carries this CRX (install.sh --system, the .deb)
* writes the id beside the host, which then serves it. Good for tests; for a release, pass --crx-key with the
* maintainer's key.
*****************************************************************************************************************
WARNING
}

build_crx() {
  local key=$crx_key payload id
  if [[ -z $key ]]; then
    key="$DIST/throwaway-crx-key.pem"
    # Reused once made, so repeated builds (and policy files naming the id) keep one id.
    [[ -f $key ]] || (umask 077 && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$key" 2>/dev/null)
    warn_throwaway_key "$key"
  fi
  [[ -r $key ]] || die "--crx-key: cannot read $key"
  payload=$(mktemp "$DIST/.crx-payload.XXXXXX")
  trap 'rm -f "$payload"' RETURN
  python3 "$PACK" zip --store chromium "$REPO/extension" "$payload"
  id=$(python3 "$PACK" crx --key "$key" "$payload" "$DIST/webauthn-bridge-$version.crx") || die "signing the CRX with $key failed"
  printf '%s\n' "$id" >"$DIST/chromium-id.txt"
  echo "built: $DIST/webauthn-bridge-$version.crx (extension id $id, also in $DIST/chromium-id.txt)"
}

build_deb() {
  "$REPO/packaging/deb/build-deb.sh" "$version" "$DIST" "$host_binary" "${swift_build_args[@]}"
}

# The .deb carries the .xpi and the .crx of the same run.
if [[ " ${targets[*]} " == *" deb "* ]]; then targets=(xpi crx "${targets[@]}"); fi
declare -A built=()
for t in "${targets[@]}"; do
  [[ -z ${built[$t]:-} ]] || continue
  built[$t]=1
  case "$t" in
    xpi) build_xpi ;;
    chromium-zip) build_chromium_zip ;;
    crx) build_crx ;;
    deb) build_deb ;;
  esac
done
