#!/usr/bin/env bash
# Builds dist/webauthn-bridge_VERSION_amd64.deb in dpkg-deb's format (called by scripts/package.sh deb, which builds
# the .xpi and .crx first). Usage: build-deb.sh VERSION DIST [HOST_BINARY [SWIFT-BUILD-ARGUMENT...]]
# With HOST_BINARY empty or missing it makes the release build install.sh makes (packaging/release-build.sh: swift
# build -c release --static-swift-stdlib); the SWIFT-BUILD-ARGUMENTs (e.g. --scratch-path DIR) go to that build.
#
# The system-wide layout is staged by install.sh --system --root (the same files a source install puts in place),
# then adjusted for dpkg (docs/release.md, "The Debian package"):
#   /usr/libexec/webauthn-bridge/webauthn-bridge        the host, stripped; /usr/bin/webauthn-bridge links to it
#   /usr/lib/mozilla/native-messaging-hosts/…           Firefox, Firefox ESR   (host manifests)
#   /usr/lib/librewolf/native-messaging-hosts/…         LibreWolf
#   /etc/chromium/native-messaging-hosts/…              Chromium                (symlinks into /usr/share: a plain
#   /etc/opt/chrome/native-messaging-hosts/…            Chrome, Brave, Vivaldi   file in /etc must be a conffile,
#   /etc/opt/edge/native-messaging-hosts/…              Edge                     which `apt remove` leaves behind)
#   /etc/chromium/policies/managed/webauthn-bridge.json Chromium's install policy (symlink, our own file name)
#   /usr/share/mozilla/extensions/{ec8030f7-…}/webauthn-bridge@webauthn-bridge.xpi
#                                                        the .xpi in Firefox's system-wide extension directory,
#                                                        where Debian's Firefox ESR loads it unsigned
#   /usr/share/webauthn-bridge/                          .xpi, .crx, chromium-id.txt, updates.xml, the unpacked
#                                                        extension, the files the /etc links point to
#   /usr/share/man/man1/webauthn-bridge.1.gz             packaging/webauthn-bridge.1
# No maintainer scripts: nothing runs at install or removal, and dpkg removes every file it installed. The archive
# lists no directory the package does not own (NOT_OURS), so that dpkg never removes one (built with tar and ar,
# as dpkg-deb --build would list every directory of the tree).
set -euo pipefail
umask 022

version=${1:?version}
dist=${2:?dist directory}
host_binary=${3:-}
swift_build_args=("${@:4}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
readonly PRODUCT=webauthn-bridge
readonly HOST_PATH=/usr/libexec/$PRODUCT/$PRODUCT
readonly SHARE=/usr/share/$PRODUCT
# Debian's firefox-esr links /usr/lib/firefox-esr/distribution to this directory: the real path, so that dpkg
# records the file where it is. Written only for a signed .xpi (install.sh --firefox-policies).
readonly FIREFOX_POLICIES=/usr/share/firefox-esr/distribution/policies.json
# The browser table install.sh reads (manifests/browsers.tsv): every browser, and where each one's files go.
table() { grep -v '^#' "$repo/manifests/browsers.tsv"; }
table_field() { table | awk -F'\t' -v id="$1" -v c="$2" '$1 == id { print $c }'; }
mapfile -t BROWSERS < <(table | cut -f1)
readonly BROWSERS
FIREFOX_EXTENSION="$(table_field firefox-esr 7)/webauthn-bridge@webauthn-bridge.xpi"
readonly FIREFOX_EXTENSION
CHROMIUM_POLICY="$(table_field chromium 8)/$PRODUCT.json"
readonly CHROMIUM_POLICY
# The system manifest directories in /etc (Chromium's family), each once: their files become links into /usr/share.
mapfile -t ETC_MANIFEST_DIRS < <(table | cut -f6 | grep '^/etc/' | sort -u)
readonly ETC_MANIFEST_DIRS
# Directories the archive must not list: base-files' postinst makes /etc/opt, so no package owns it, and dpkg
# would take it for ours and remove it with the package once empty.
readonly NOT_OURS=(/etc/opt)
die() { echo "build-deb.sh: $*" >&2; exit 1; }

for tool in dpkg-deb dpkg-shlibdeps strip gzip python3 ar xz; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install dpkg-dev binutils gzip python3 xz-utils)"
done
changelog_version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$here/changelog")
[[ $changelog_version == "$version" ]] || die "packaging/deb/changelog's first entry is $changelog_version, VERSION is $version: add an entry"
for f in "webauthn-bridge-$version.xpi" "webauthn-bridge-$version.crx" chromium-id.txt; do
  [[ -f $dist/$f ]] || die "$dist/$f missing: run scripts/package.sh xpi crx first"
done

if [[ -z $host_binary ]]; then
  host_binary=$("$repo/packaging/release-build.sh" "${swift_build_args[@]}")
fi
[[ -x $host_binary ]] || die "not an executable: $host_binary"
host_version=$("$host_binary" --version </dev/null)
[[ $host_version == "$version" ]] || die "$host_binary says version $host_version, VERSION is $version"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/root"

# --- the system-wide layout, as install.sh --system puts it in place ---------------------------------------------
browser_args=()
for b in "${BROWSERS[@]}"; do browser_args+=(--browser "$b"); done
"$repo/install.sh" --system --root "$root" --prefix /usr --host-binary "$host_binary" \
  --xpi "$dist/webauthn-bridge-$version.xpi" --crx "$dist/webauthn-bridge-$version.crx" \
  --firefox-policies "$FIREFOX_POLICIES" \
  "${browser_args[@]}" >"$stage/install.log" 2>&1 \
  || { cat "$stage/install.log" >&2; die "install.sh --system --root failed"; }
rm -f "$root/usr/libexec/$PRODUCT/installed-files"   # install.sh's own uninstall record: dpkg keeps its own
[[ -x $root$HOST_PATH ]] || die "install.sh did not stage $HOST_PATH"
strip --strip-unneeded --remove-section=.comment "$root$HOST_PATH"
[[ -L $root/usr/bin/$PRODUCT ]] || die "install.sh did not link /usr/bin/$PRODUCT"

# link_from_etc ETC_PATH SHARE_PATH: the file install.sh wrote at ETC_PATH moves to SHARE_PATH (one copy for
# identical files) and ETC_PATH becomes a symlink to it.
link_from_etc() {
  local etc=$1 share=$2
  [[ -f $root$etc ]] || die "install.sh did not stage $etc"
  if [[ -f $root$share ]]; then
    cmp -s "$root$etc" "$root$share" || die "$etc differs from $share, which another /etc file links to"
    rm -f "$root$etc"
  else
    install -d -m 0755 "$(dirname "$root$share")"
    mv "$root$etc" "$root$share"
  fi
  ln -s "$share" "$root$etc"
}
for dir in "${ETC_MANIFEST_DIRS[@]}"; do
  link_from_etc "$dir/webauthn_bridge.json" "$SHARE/native-messaging-hosts/webauthn_bridge.json"
done
link_from_etc "$CHROMIUM_POLICY" "$SHARE/policies/chromium-managed.json"
[[ -f $root$FIREFOX_EXTENSION || -f $root$FIREFOX_POLICIES ]] || die "install.sh staged no Firefox extension"
unknown=$(find "$root/etc" -type f)
[[ -z $unknown ]] || die "install.sh staged files in /etc that this script does not know what to do with: $unknown"

# --- documentation -----------------------------------------------------------------------------------------------
install -d -m 0755 "$root/usr/share/doc/$PRODUCT" "$root/usr/share/man/man1" "$root/usr/share/lintian/overrides"
install -m 0644 "$here/copyright" "$root/usr/share/doc/$PRODUCT/copyright"
install -m 0644 "$here/lintian-overrides" "$root/usr/share/lintian/overrides/$PRODUCT"
gzip -9n <"$here/changelog" >"$root/usr/share/doc/$PRODUCT/changelog.gz"
gzip -9n <"$repo/packaging/$PRODUCT.1" >"$root/usr/share/man/man1/$PRODUCT.1.gz"

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
# What dpkg-deb --build makes (debian-binary, control.tar.xz, data.tar.xz in an ar archive, root-owned entries in
# name order), with NOT_OURS left out of the data archive's list.
(cd "$root" && find . -path ./DEBIAN -prune -o -print | LC_ALL=C sort) | grep -vxF -f <(printf '.%s\n' "${NOT_OURS[@]}") \
  >"$stage/data.list"
tar_xz() { # ARCHIVE DIR LIST: the entries of LIST (relative to DIR), as dpkg-deb writes them
  tar --create --no-recursion --format=gnu --owner=0 --group=0 --numeric-owner -C "$2" -T "$3" | xz -9 -T1 >"$1"
}
printf '2.0\n' >"$stage/debian-binary"
printf './control\n./md5sums\n' >"$stage/control.list"
tar_xz "$stage/control.tar.xz" "$root/DEBIAN" "$stage/control.list"
tar_xz "$stage/data.tar.xz" "$root" "$stage/data.list"
rm -f "$out"
(cd "$stage" && ar -rcD "$out" debian-binary control.tar.xz data.tar.xz)
dpkg-deb --info "$out" >/dev/null || die "dpkg-deb cannot read $out"
echo "built: $out ($(du -h "$out" | cut -f1); Depends: $shlibs, publicsuffix)"
