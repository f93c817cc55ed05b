#!/usr/bin/env bash
# Builds a release product of this package the way a release ships it, and prints the path of the executable on
# stdout (the build's own output goes to stderr). The one place that says how: package.sh deb and the CI stage of
# scripts/test.sh call it; install.sh runs the same command.
#   swift build -c release --static-swift-stdlib --product PRODUCT
# --static-swift-stdlib links the Swift runtime in: no Debian package provides the toolchain's, so a host linked
# against it could not be installed elsewhere (dpkg-shlibdeps finds no package for it).
# Usage: release-build.sh [--product NAME] [SWIFT-BUILD-ARGUMENT...]   (NAME: webauthn-bridge unless given;
# further arguments go to swift build, e.g. --scratch-path DIR)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
product=webauthn-bridge
if [[ ${1:-} == --product ]]; then product=${2:?--product needs a name}; shift 2; fi
build=(swift build -c release --static-swift-stdlib --product "$product" --package-path "$repo" "$@")
echo "release-build.sh: ${build[*]}" >&2
"${build[@]}" >&2
binary="$("${build[@]}" --show-bin-path)/$product"
[[ -x $binary ]] || { echo "release-build.sh: the build made no $binary" >&2; exit 1; }
printf '%s\n' "$binary"
