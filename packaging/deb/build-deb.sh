#!/usr/bin/env bash
# Builds dist/webauthn-bridge_VERSION_amd64.deb with dpkg-deb (called by scripts/package.sh deb, which builds the
# .xpi and .crx first). Usage: build-deb.sh VERSION DIST [HOST_BINARY]
# Without HOST_BINARY it makes the release build install.sh makes (swift build -c release --static-swift-stdlib).
#
# Layout (docs/release.md, "The Debian package"):
#   /usr/libexec/webauthn-bridge/webauthn-bridge       the host (stripped), where install.sh puts it under its
#                                                        prefix; /usr/bin/webauthn-bridge links to it
#   /usr/lib/mozilla/native-messaging-hosts/…           Firefox, Firefox ESR        (host manifests, real files)
#   /usr/lib/librewolf/native-messaging-hosts/…         LibreWolf
#   /etc/chromium/native-messaging-hosts/…              Chromium                    (symlinks to /usr/share: a file
#   /etc/opt/chrome/native-messaging-hosts/…            Chrome, Brave, Vivaldi       in /etc would be a conffile,
#   /etc/opt/edge/native-messaging-hosts/…              Edge                         which `apt remove` leaves)
#   /usr/share/webauthn-bridge/                          .xpi, .crx, its chromium-id.txt, the unpacked extension,
#                                                        the Chromium host manifest the /etc links point to
#   /usr/share/man/man1/webauthn-bridge.1.gz             generated from the command's own help
# No maintainer scripts: nothing runs at install or removal, and dpkg removes every file it installed.
set -euo pipefail

version=${1:?version}
dist=${2:?dist directory}
host_binary=${3:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
readonly PRODUCT=webauthn-bridge
readonly HOST_PATH=/usr/libexec/$PRODUCT/$PRODUCT
readonly SHARE=/usr/share/$PRODUCT
die() { echo "build-deb.sh: $*" >&2; exit 1; }

for tool in dpkg-deb dpkg-shlibdeps strip gzip python3; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install dpkg-dev binutils gzip python3)"
done
changelog_version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$here/changelog")
[[ $changelog_version == "$version" ]] || die "packaging/deb/changelog's first entry is $changelog_version, VERSION is $version: add an entry"
for f in "webauthn-bridge-$version.xpi" "webauthn-bridge-$version.crx" chromium-id.txt; do
  [[ -f $dist/$f ]] || die "$dist/$f missing: run scripts/package.sh xpi crx first"
done
crx_id=$(tr -d '[:space:]' <"$dist/chromium-id.txt")

if [[ -z $host_binary ]]; then
  build=(swift build -c release --static-swift-stdlib --product "$PRODUCT" --package-path "$repo")
  echo "building the host: ${build[*]}"
  "${build[@]}"
  host_binary="$("${build[@]}" --show-bin-path)/$PRODUCT"
fi
[[ -x $host_binary ]] || die "not an executable: $host_binary"
host_version=$("$host_binary" --version </dev/null)
[[ $host_version == "$version" ]] || die "$host_binary says version $host_version, VERSION is $version"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/root"

# --- the host ----------------------------------------------------------------------------------------------------
install -d -m 0755 "$root/usr/libexec/$PRODUCT" "$root/usr/bin"
strip --strip-unneeded --remove-section=.comment -o "$root$HOST_PATH" "$host_binary"
chmod 0755 "$root$HOST_PATH"
ln -s "../libexec/$PRODUCT/$PRODUCT" "$root/usr/bin/$PRODUCT"

# --- host manifests ----------------------------------------------------------------------------------------------
# The Chromium one lets both ids start the host: the CRX's (policy installs) and the unpacked extension's, whose
# id comes from manifest.json's "key" (extension/chromium-id.txt), for "Load unpacked" of /usr/share/…/extension.
host_manifest() {  # KIND OUT
  python3 - "$repo/manifests/$1.json.in" "$2" "$HOST_PATH" "$crx_id" "$(tr -d '[:space:]' <"$repo/extension/chromium-id.txt")" <<'PY'
import json, sys
template, out, host_path, *ids = sys.argv[1:]
m = json.loads(open(template).read().replace("@HOST_PATH@", host_path).replace("@CHROMIUM_ID@", ids[0]))
if "allowed_origins" in m:
    m["allowed_origins"] = [f"chrome-extension://{i}/" for i in dict.fromkeys(ids)]
with open(out, "w") as f:
    f.write(json.dumps(m, indent=2) + "\n")
PY
}
for dir in usr/lib/mozilla/native-messaging-hosts usr/lib/librewolf/native-messaging-hosts; do
  install -d -m 0755 "$root/$dir"
  host_manifest firefox "$root/$dir/webauthn_bridge.json"
done
install -d -m 0755 "$root$SHARE/native-messaging-hosts"
host_manifest chromium "$root$SHARE/native-messaging-hosts/webauthn_bridge.json"
for dir in etc/chromium/native-messaging-hosts etc/opt/chrome/native-messaging-hosts etc/opt/edge/native-messaging-hosts; do
  install -d -m 0755 "$root/$dir"
  ln -s "$SHARE/native-messaging-hosts/webauthn_bridge.json" "$root/$dir/webauthn_bridge.json"
done

# --- the extension -----------------------------------------------------------------------------------------------
install -m 0644 "$dist/webauthn-bridge-$version.xpi" "$root$SHARE/webauthn-bridge.xpi"
install -m 0644 "$dist/webauthn-bridge-$version.crx" "$root$SHARE/webauthn-bridge.crx"
install -m 0644 "$dist/chromium-id.txt" "$root$SHARE/chromium-id.txt"
python3 - "$repo/packaging" "$repo/extension" "$root$SHARE/extension" <<'PY'
import os, shutil, sys
sys.path.insert(0, sys.argv[1])
from extension_package import packaged_files
src, dst = sys.argv[2:]
for rel in packaged_files(src):
    os.makedirs(os.path.dirname(os.path.join(dst, rel)), mode=0o755, exist_ok=True)
    shutil.copyfile(os.path.join(src, rel), os.path.join(dst, rel))
    os.chmod(os.path.join(dst, rel), 0o644)
PY

# --- documentation -----------------------------------------------------------------------------------------------
install -d -m 0755 "$root/usr/share/doc/$PRODUCT" "$root/usr/share/man/man1" "$root/usr/share/lintian/overrides"
install -m 0644 "$here/copyright" "$root/usr/share/doc/$PRODUCT/copyright"
install -m 0644 "$here/lintian-overrides" "$root/usr/share/lintian/overrides/$PRODUCT"
gzip -9n <"$here/changelog" >"$root/usr/share/doc/$PRODUCT/changelog.gz"
"$here/man-page.sh" "$repo" | gzip -9n >"$root/usr/share/man/man1/$PRODUCT.1.gz"

# --- control -----------------------------------------------------------------------------------------------------
# Depends: what dpkg-shlibdeps finds the binary linked against (libfido2, libpsl, libcrypto, libc …, with the
# versions their shlibs files require), plus publicsuffix, the list libpsl reads at run time (a data file, which
# no linker sees).
mkdir -p "$stage/src/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: amd64\n' "$PRODUCT" "$PRODUCT" >"$stage/src/debian/control"
shlibs=$(cd "$stage/src" && dpkg-shlibdeps -O -e"$root$HOST_PATH" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[[ -n $shlibs ]] || die "dpkg-shlibdeps found no dependencies for $HOST_PATH"
maintainer=$(sed -n 's/^ -- \(.*>\)  .*/\1/p' "$here/changelog" | head -1)
installed_size=$(du -sk --apparent-size "$root" | cut -f1)
install -d -m 0755 "$root/DEBIAN"
sed -e "s/@VERSION@/$version/" -e "s/@MAINTAINER@/$maintainer/" -e "s/@INSTALLED_SIZE@/$installed_size/" \
    -e "s/@DEPENDS@/$shlibs, publicsuffix/" "$here/control.in" >"$root/DEBIAN/control"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

# One timestamp and fixed modes for every file, so the same tree gives the same package.
find "$root" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-315532800}" {} +
out="$dist/${PRODUCT}_${version}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "built: $out ($(du -h "$out" | cut -f1); Depends: $shlibs, publicsuffix)"
