#!/usr/bin/env bash
# Installs the webauthn-bridge native-messaging host and registers it with the browsers on this machine.
#
# What it does, in order: checks the Debian packages it needs (installs them when run as root, otherwise prints
# the exact sudo command and stops), builds the host in release mode with a static Swift stdlib (or takes a
# prebuilt binary with --host-binary), copies it to PREFIX/libexec/webauthn-bridge/, writes one host manifest per
# browser from manifests/*.json.in, records every file and directory it created, and prints how to load the
# extension. Running it again changes nothing that is already right; --uninstall removes exactly what the record
# lists. A user install does not load the extension itself: browsers allow that only from their own UI. With
# --system it also installs the packaged extension (.xpi, .crx) under PREFIX/share/webauthn-bridge/ and the browser
# policies that make Firefox and Chromium install it on their next start (docs/install.md, "System install").
# --root DIR stages all of it under DIR (as DESTDIR does) for a package; the files name the final paths.
set -euo pipefail

readonly HOST_NAME=webauthn_bridge
readonly PRODUCT=webauthn-bridge
readonly BUILD_PACKAGES=(pkg-config libfido2-dev libssl-dev libpsl-dev publicsuffix)
# What the statically linked host still loads at run time (libfido2 pulls in libcbor, libudev, libcrypto).
readonly RUNTIME_PACKAGES=(libfido2-1 libpsl5 publicsuffix)

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly REPO

# The browser table (manifests/browsers.tsv, also compiled into the host for doctor): one line per browser, the
# one place this script and install-policies.sh find a browser's directories.
browser_rows() { grep -v '^#' "$REPO/manifests/browsers.tsv"; }
# browser_field NAME COLUMN: one column (1-based) of NAME's line.
browser_field() { browser_rows | awk -F'\t' -v id="$1" -v c="$2" '$1 == id { print $c }'; }

usage() {
  cat <<EOF
Usage: $0 [options]

  --host-binary PATH     install this prebuilt host instead of building one (skips swift build)
  --prefix DIR           install the host as DIR/libexec/$PRODUCT/$PRODUCT (default: ~/.local)
  --system               install for all users: prefix /usr/local, the system manifest directories, the packaged
                         extension, Chromium's policy that installs it and Firefox's system extension directory
  --root DIR             stage every file under DIR instead of / (for building a package); implies no apt-get
  --xpi FILE             with --system: the Firefox package (default: dist/webauthn-bridge-VERSION.xpi, built
                         with scripts/package.sh when missing)
  --crx FILE             with --system: the signed CRX (default: dist/webauthn-bridge-VERSION.crx); its id is read
                         from chromium-id.txt beside it, or given with --crx-id ID
  --firefox-policies FILE  with --system and a signed .xpi: write Firefox's policies.json here instead of
                         $(browser_field firefox 8)/policies.json (e.g. /usr/share/firefox-esr/distribution/policies.json,
                         which Debian's Firefox ESR reads when /etc has none)
  --no-extension         the host and its manifests only: no extension (and with --system no browser policy)
  --firefox-unsigned-policy  with --system and an unsigned .xpi: install it by Firefox's policy, which needs
                         xpinstall.signatures.required=false: Firefox then checks NO add-on's signature. Reaches
                         profiles used before, which the system extension directory does not (docs/install.md)
  --browser NAME         register with this browser only (repeatable): firefox firefox-esr librewolf
                         chromium google-chrome brave vivaldi microsoft-edge
  --manifest-dir DIR     write the host manifest into DIR (repeatable; pair each with --browser-kind)
  --browser-kind KIND    firefox or chromium: which manifest format DIR needs
  --chromium-id ID       Chromium extension id (default: extension/chromium-id.txt)
  --uninstall            remove what an earlier run installed (same --prefix/--system/--root), policies included
  --dry-run              print every action without doing it
  -h, --help             this text

Without --browser or --manifest-dir, every supported browser whose profile directory exists is registered.
EOF
}

die() { echo "install.sh: $*" >&2; exit 1; }
say() { echo "$*"; }

# --- arguments ---------------------------------------------------------------------------------------------
host_binary=''
prefix=''
system=0
uninstall=0
dry_run=0
chromium_id=''
root=''
xpi=''
crx=''
crx_id=''
with_extension=1
firefox_unsigned_policy=0
firefox_policies_file="$(browser_field firefox 8)/policies.json"
browsers=()
manifest_dirs=()
browser_kinds=()

while (($#)); do
  case "$1" in
    --host-binary) host_binary=${2:?--host-binary needs a path}; shift 2 ;;
    --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
    --system) system=1; shift ;;
    --root) root=${2:?--root needs a directory}; shift 2 ;;
    --xpi) xpi=${2:?--xpi needs a file}; shift 2 ;;
    --crx) crx=${2:?--crx needs a file}; shift 2 ;;
    --crx-id) crx_id=${2:?--crx-id needs an id}; shift 2 ;;
    --firefox-policies) firefox_policies_file=${2:?--firefox-policies needs a file}; shift 2 ;;
    --no-extension) with_extension=0; shift ;;
    --firefox-unsigned-policy) firefox_unsigned_policy=1; shift ;;
    --browser) browsers+=("${2:?--browser needs a name}"); shift 2 ;;
    --manifest-dir) manifest_dirs+=("${2:?--manifest-dir needs a directory}"); shift 2 ;;
    --browser-kind) browser_kinds+=("${2:?--browser-kind needs firefox or chromium}"); shift 2 ;;
    --chromium-id) chromium_id=${2:?--chromium-id needs an id}; shift 2 ;;
    --uninstall) uninstall=1; shift ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done

if ((${#manifest_dirs[@]})); then
  # One kind for all directories, or one kind per directory, in order.
  if ((${#browser_kinds[@]} == 1)); then
    for ((i = 1; i < ${#manifest_dirs[@]}; i++)); do browser_kinds+=("${browser_kinds[0]}"); done
  fi
  ((${#browser_kinds[@]} == ${#manifest_dirs[@]})) || die "give one --browser-kind, or one per --manifest-dir"
  for k in "${browser_kinds[@]}"; do
    [[ $k == firefox || $k == chromium ]] || die "--browser-kind must be firefox or chromium, not '$k'"
  done
elif ((${#browser_kinds[@]})); then
  die "--browser-kind goes with --manifest-dir"
fi

if [[ -z $prefix ]]; then
  if ((system)); then prefix=/usr/local; else prefix="$HOME/.local"; fi
fi
# Browsers need an absolute path in the manifest; -m because the directory may not exist yet.
prefix=$(realpath -m -- "$prefix")
readonly install_dir="$prefix/libexec/$PRODUCT"
readonly host_path="$install_dir/$PRODUCT"
readonly record="$install_dir/installed-files"

# check_path WHAT PATH: PATH goes into manifests (JSON, RFC 8259) and into the record, one entry a line. It must be
# UTF-8 (JSON text is), and hold no control character: a newline would split its record line, so that a crafted
# path could add an entry that --uninstall then removes. (A tab is harmless but no better reason to allow it.)
# Quotes and backslashes are fine: json_escape writes them.
check_path() {
  local LC_ALL=C what=$1 path=$2
  [[ $path != *[[:cntrl:]]* ]] || die "$what must not contain control characters (tab, newline ...): $(printf '%q' "$path")"
  printf '%s' "$path" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 \
    || die "$what is not valid UTF-8, which a browser's JSON manifest needs: $(printf '%q' "$path")"
}

# json_escape TEXT: TEXT as it goes between the quotes of a JSON string. check_path has kept control characters
# out, so the backslash and the quote are the only characters JSON needs escaped.
json_escape() {
  local s=${1//\\/\\\\}
  printf '%s' "${s//\"/\\\"}"
}

check_path "the install path" "$host_path"
# Every path below is a final one (written into manifests, policies and the record); files go to "$root$path".
if [[ -n $root ]]; then
  root=$(realpath -m -- "$root")
  [[ $root != / ]] || root=''
  check_path "--root" "$root"
fi
readonly root

# --- actions (every change goes through these, so --dry-run shows all of them) -------------------------------
run() {
  if ((dry_run)); then say "would run: $*"; else "$@"; fi
}

created=()   # "dir PATH" / "file PATH" lines for the record

make_dir() {
  local dir=$1 missing=() d=$1
  while [[ $d != / && ! -d $root$d ]]; do missing=("$d" "${missing[@]}"); d=$(dirname "$d"); done
  ((${#missing[@]})) || return 0
  run mkdir -p -- "$root$dir"
  for d in "${missing[@]}"; do created+=("dir $d"); done
}

# write_file PATH CONTENT: writes only when the content differs, so a second run touches nothing.
write_file() {
  local path=$1 content=$2
  created+=("file $path")
  if [[ -f $root$path ]] && [[ "$(cat -- "$root$path")" == "$content" ]]; then
    say "unchanged: $root$path"
    return 0
  fi
  if ((dry_run)); then say "would write: $root$path"; return 0; fi
  printf '%s\n' "$content" | replace_file "$root$path" 0644
  say "wrote: $root$path"
}

# copy_file SOURCE PATH: SOURCE installed as PATH (mode 0644), only when the bytes differ.
copy_file() {
  local source=$1 path=$2
  created+=("file $path")
  if [[ -f $root$path ]] && cmp -s -- "$source" "$root$path"; then
    say "unchanged: $root$path"
    return 0
  fi
  run install -m 0644 -- "$source" "$root$path"
  ((dry_run)) || say "installed: $root$path"
}

# replace_file PATH MODE: stdin becomes PATH, all at once. The text goes to a new file of a random name in PATH's
# directory (mktemp: created exclusively, so nothing planted there is followed), which then is renamed over PATH
# (a symlink or file at PATH is replaced, never written through).
replace_file() {
  local path=$1 mode=$2 tmp
  tmp=$(mktemp -- "$(dirname -- "$path")/.$(basename -- "$path").XXXXXXXXXX") || die "cannot create a file next to $path"
  if ! { cat >"$tmp" && chmod "$mode" -- "$tmp" && mv -fT -- "$tmp" "$path"; }; then
    rm -f -- "$tmp"
    die "cannot write $path"
  fi
}

# --- uninstall ---------------------------------------------------------------------------------------------
if ((uninstall)); then
  [[ -f $root$record ]] || die "nothing to uninstall: $root$record not found (use the same --prefix/--system/--root as the install)"
  mapfile -t entries <"$root$record"
  # Files first, then directories deepest first, and a directory only if it is empty: never more than we made.
  policies=''
  chromium_policy_dir=$(browser_field chromium 8)
  firefox_system_extension_dir=$(browser_field firefox-esr 7)
  for e in "${entries[@]}"; do
    [[ $e == file\ * ]] || continue
    f=${e#file }
    case "$f" in
      "$chromium_policy_dir"/*) policies+=' chromium' ;;
      */policies.json) policies+=' firefox' ;;
      "$firefox_system_extension_dir"/*) policies+=' firefox-system' ;;
    esac
    if [[ -e $root$f || -L $root$f ]]; then run rm -f -- "$root$f"; ((dry_run)) || say "removed: $root$f"; fi
  done
  # An install interrupted before its record was complete still leaves the binary: remove it too.
  if [[ -e $root$host_path ]] && ! grep -qxF "file $host_path" "$root$record"; then run rm -f -- "$root$host_path"; fi
  run rm -f -- "$root$record"
  mapfile -t dirs < <(printf '%s\n' "${entries[@]}" | sed -n 's/^dir //p' | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2-)
  [[ " ${dirs[*]} " == *" $install_dir "* ]] || dirs+=("$install_dir")
  for d in "${dirs[@]}"; do
    [[ -n $d && -d $root$d ]] || continue
    if ((dry_run)); then say "would remove directory if empty: $root$d"; continue; fi
    if rmdir -- "$root$d" 2>/dev/null; then say "removed: $root$d/"; fi
  done
  say "webauthn-bridge uninstalled from $prefix."
  # What each browser does when its policy goes (measured, docs/install.md "System install").
  if [[ $policies == *chromium* ]]; then
    say "Chromium removes the extension its policy installed at its next start."
  fi
  if [[ $policies == *firefox-system* ]]; then
    say "Firefox drops the extension from each profile at its next start."
  elif [[ $policies == *firefox* ]]; then
    say "Firefox may keep the add-on its policy installed: remove it in about:addons if it is still listed."
  fi
  [[ -n $policies ]] || say "Remove the extension from each browser by hand."
  exit 0
fi

# --- browsers ----------------------------------------------------------------------------------------------
config_home=${XDG_CONFIG_HOME:-$HOME/.config}

# Fields of browser_info and of targets are joined by the unit separator, a control character check_path keeps out
# of every path ("|" or a space may be in a directory's name).
readonly FS=$'\x1f'

# browser_info NAME → kind, user profile dir, user manifest dir, system manifest dir, display name (joined by FS)
browser_info() {
  local id name kind profile user system _
  while IFS=$'\t' read -r id name kind profile user system _; do
    [[ $id == "$1" ]] || continue
    echo "$kind${FS}$(expand_dir "$profile")${FS}$(expand_dir "$user")${FS}$system${FS}$name"
    return 0
  done < <(browser_rows)
  return 1
}
# expand_dir DIR: the table's ~ and $XDG_CONFIG_HOME made real.
expand_dir() {
  local d=${1/#\~/$HOME}
  printf '%s' "${d/#\$XDG_CONFIG_HOME/$config_home}"
}
mapfile -t ALL_BROWSERS < <(browser_rows | cut -f1)
readonly ALL_BROWSERS
# The binary each browser installs, for --system detection (no per-user profile to look at there).
browser_command() { browser_field "$1" 9; }

targets=()   # kind, manifest dir, display name (joined by FS)
declare -A selected=()   # the browsers by name (not the custom directories): which policies --system writes
if ((${#manifest_dirs[@]})); then
  for i in "${!manifest_dirs[@]}"; do
    dir=$(realpath -m -- "${manifest_dirs[$i]}")
    check_path "the manifest directory" "$dir"
    targets+=("${browser_kinds[$i]}${FS}$dir${FS}${browser_kinds[$i]} (custom directory)")
  done
fi
# The profile and manifest directories below are made from these.
if ((${#browsers[@]} || ${#manifest_dirs[@]} == 0)); then
  check_path "HOME" "$HOME"
  check_path "XDG_CONFIG_HOME" "$config_home"
fi
if ((${#browsers[@]})); then
  for b in "${browsers[@]}"; do
    info=$(browser_info "$b") || die "unknown browser '$b' (one of: ${ALL_BROWSERS[*]})"
    IFS=${FS} read -r kind profile user_dir system_dir name <<<"$info"
    selected[$b]=1
    if ((system)); then targets+=("$kind${FS}$system_dir${FS}$name"); else targets+=("$kind${FS}$user_dir${FS}$name"); fi
  done
elif ((${#manifest_dirs[@]} == 0)); then
  for b in "${ALL_BROWSERS[@]}"; do
    IFS=${FS} read -r kind profile user_dir system_dir name <<<"$(browser_info "$b")"
    # A staged install (--root) is for another machine: every browser, whatever this one has.
    if ((system)); then
      [[ -n $root ]] || command -v "$(browser_command "$b")" >/dev/null || continue
      targets+=("$kind${FS}$system_dir${FS}$name")
    else
      [[ -d $profile ]] || continue
      targets+=("$kind${FS}$user_dir${FS}$name")
    fi
    selected[$b]=1
  done
fi
((${#targets[@]})) || say "note: no supported browser found; name one with --browser NAME (the manifest directory is then created)"

# --- dependencies ------------------------------------------------------------------------------------------
check_packages() {
  command -v dpkg >/dev/null || { say "note: no dpkg; make sure these are installed: $*"; return 0; }
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  ((${#missing[@]})) || return 0
  if ((EUID == 0)); then
    run apt-get update -qq
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  elif ((dry_run)); then
    say "would need: sudo apt-get install -y ${missing[*]}"
  else
    die "missing packages; run: sudo apt-get install -y ${missing[*]}   (then run $0 again)"
  fi
}

if [[ -n $host_binary ]]; then
  [[ -x $host_binary ]] || die "--host-binary: not an executable file: $host_binary"
  host_binary=$(realpath -- "$host_binary")
  # A staged install runs elsewhere: its package declares these instead.
  [[ -n $root ]] || check_packages "${RUNTIME_PACKAGES[@]}"
else
  check_packages "${BUILD_PACKAGES[@]}"
  command -v swift >/dev/null || die "swift not found on PATH: install a Swift 6 toolchain (https://swift.org/install/linux/)"
  # packaging/release-build.sh is the one place that says how a release is built (and prints the binary's path).
  if ((dry_run)); then
    say "would run: $REPO/packaging/release-build.sh --product $PRODUCT"
    host_binary="$REPO/.build/release/$PRODUCT"
  else
    host_binary=$("$REPO/packaging/release-build.sh" --product "$PRODUCT") || die "the release build failed"
  fi
fi

# --- the host binary ---------------------------------------------------------------------------------------
make_dir "$install_dir"
if [[ -f $root$host_path ]] && cmp -s -- "$host_binary" "$root$host_path"; then
  say "unchanged: $root$host_path"
else
  # install(1) replaces the file by a new inode, so a host that a browser is running keeps its old copy.
  run install -m 0755 -- "$host_binary" "$root$host_path"
  ((dry_run)) || say "installed: $root$host_path"
fi

# --- the command on PATH, and the unpacked extension beside the host --------------------------------------------
# PREFIX/bin/webauthn-bridge links to the host, so `webauthn-bridge demo` and `webauthn-bridge doctor` work as typed
# (~/.local/bin is on PATH in a Debian login shell once it exists: ~/.profile adds it). A file there that is not
# ours is left alone.
readonly bin_link="$prefix/bin/$PRODUCT"
readonly bin_target="../libexec/$PRODUCT/$PRODUCT"
make_dir "$prefix/bin"
if [[ -L $root$bin_link && $(readlink -- "$root$bin_link") == "$bin_target" ]]; then
  created+=("file $bin_link")
  say "unchanged: $root$bin_link"
elif [[ -e $root$bin_link || -L $root$bin_link ]] && ! { [[ -f $root$record ]] && grep -qxF "file $bin_link" "$root$record"; }; then
  say "note: $root$bin_link exists and is not ours: left unchanged (run $host_path instead)"
else
  created+=("file $bin_link")
  run ln -sfn -- "$bin_target" "$root$bin_link"
  ((dry_run)) || say "linked: $root$bin_link -> $bin_target"
fi

# The unpacked extension, as the packages carry it (packaging/extension_package.py decides which files): what the
# demo loads (it looks beside the binary, in PREFIX/share/webauthn-bridge/extension) and what "Load unpacked" and
# "Load Temporary Add-on" take, so neither needs the clone once installed. A file an earlier version installed and
# this one no longer has is removed.
readonly share_dir="$prefix/share/$PRODUCT"
readonly extension_dir="$share_dir/extension"
extension_files=()
if ((with_extension)); then
  command -v python3 >/dev/null || die "python3 not found (sudo apt-get install python3): it lists the extension's files"
  mapfile -t extension_files < <(python3 "$REPO/packaging/extension_package.py" files "$REPO/extension")
  ((${#extension_files[@]})) || die "no extension files found in $REPO/extension"
fi
# Firefox gets a copy of its own, with the manifest its .xpi carries: Firefox-only permissions (the blocking
# webRequest listener that reads a page's certificate state, docs/security.md) that the source manifest leaves out
# for Chromium. Loaded from the Chromium copy, Firefox would hand every https page to its own WebAuthn.
readonly firefox_extension_dir="$share_dir/extension-firefox"
installed_extension_files=()
for f in "${extension_files[@]}"; do
  for dir in "$extension_dir" "$firefox_extension_dir"; do
    make_dir "$(dirname -- "$dir/$f")"
    installed_extension_files+=("$dir/$f")
    if [[ $dir == "$firefox_extension_dir" && $f == manifest.json ]]; then
      write_file "$dir/$f" "$(python3 "$REPO/packaging/extension_package.py" manifest --store firefox "$REPO/extension")"
    else
      copy_file "$REPO/extension/$f" "$dir/$f"
    fi
  done
done
if [[ -f $root$record ]]; then
  while read -r old; do
    [[ " ${installed_extension_files[*]} " == *" $old "* ]] && continue
    run rm -f -- "$root$old"
  done < <(sed -n -e "s|^file \($extension_dir/.*\)|\1|p" -e "s|^file \($firefox_extension_dir/.*\)|\1|p" "$root$record")
fi

# --- the packaged extension (--system): what the policies below install -------------------------------------
# shellcheck source-path=SCRIPTDIR source=install-policies.sh
. "$REPO/install-policies.sh"
if ((!system)) && [[ -n $xpi$crx$crx_id ]]; then die "--xpi, --crx and --crx-id go with --system"; fi
firefox_policies_file=$(realpath -m -- "$firefox_policies_file")
check_path "--firefox-policies" "$firefox_policies_file"
[[ $firefox_policies_file == */policies.json ]] || die "--firefox-policies: Firefox reads a file named policies.json, not $firefox_policies_file"
want_firefox_extension=0
want_chromium_policy=0
if ((system && with_extension)); then
  [[ -z ${selected[firefox]:-}${selected[firefox-esr]:-} ]] || want_firefox_extension=1
  [[ -z ${selected[chromium]:-} ]] || want_chromium_policy=1
  ((want_firefox_extension || want_chromium_policy)) && find_packages
fi

# Write each manifest directory once (Firefox and Firefox ESR share one; Brave and Vivaldi share Chrome's system one).
declare -A written=() warned=()
names_by_kind_firefox=()
names_by_kind_chromium=()
for t in "${targets[@]}"; do
  IFS=${FS} read -r kind dir name <<<"$t"
  if [[ $kind == firefox ]]; then names_by_kind_firefox+=("$name"); else names_by_kind_chromium+=("$name"); fi
  [[ -z ${written[$dir]:-} ]] || continue
  written[$dir]=1
  template=$(<"$REPO/manifests/$kind.json.in")
  content=${template//@HOST_PATH@/"$(json_escape "$host_path")"}
  if [[ $kind == chromium ]]; then
    if [[ -z $chromium_id ]]; then
      id_file="$REPO/extension/chromium-id.txt"
      [[ -f $id_file ]] || die "$id_file not found: pass --chromium-id ID"
      chromium_id=$(tr -d '[:space:]' <"$id_file")
    fi
    [[ $chromium_id =~ ^[a-p]{32}$ ]] || die "not a Chromium extension id: '$chromium_id'"
    # The unpacked extension's id, and the CRX's when the policy installs one signed with another key.
    ids=("$chromium_id")
    [[ -z $crx_id || $crx_id == "$chromium_id" ]] || ids+=("$crx_id")
    origins=$(printf '"chrome-extension://%s/", ' "${ids[@]}")
    placeholder='"chrome-extension://@CHROMIUM_ID@/"'
    content=${content//"$placeholder"/"${origins%, }"}
    for id in "${ids[@]}"; do
      [[ $id != "$(tr -d '[:space:]' <"$REPO/extension/chromium-id.txt")" && -z ${warned[$id]:-} ]] || continue
      # The CRX's id needs no configuration: the system install writes it to share/webauthn-bridge/chromium-id.txt,
      # which the host beside it trusts (docs/security.md, "Which extensions the host serves").
      [[ $id != "$crx_id" ]] || continue
      # The manifest lets Chromium start the host for any other id, but the host serves only its own extension
      # unless the configuration names another one.
      warned[$id]=1
      if ((system)); then where="each user's ~/.config/webauthn-bridge/config.json"; else where="$config_home/webauthn-bridge/config.json"; fi
      say "note: the host serves extension $id only when $where has"
      say "      \"allowedExtensions\": [\"$id\"]"
    done
  fi
  make_dir "$dir"
  write_file "$dir/$HOST_NAME.json" "$content"
done

if ((want_firefox_extension || want_chromium_policy)); then install_packages; fi
((want_firefox_extension)) && install_firefox_extension
((want_chromium_policy)) && install_chromium_policy

# --- the record (merged with an earlier one, so repeated runs for different browsers all uninstall) ----------
if ((dry_run)); then
  say "would record installed files in: $root$record"
else
  created+=("file $host_path")
  # How it was installed, for doctor's advice (--uninstall reads only the file and dir lines).
  if ((system)); then created+=("mode system"); else created+=("mode user"); fi
  { [[ -f $root$record ]] && cat -- "$root$record"; printf '%s\n' "${created[@]}"; } | LC_ALL=C sort -u | replace_file "$root$record" 0644
fi

# --- confined browsers: detected, not supported -------------------------------------------------------------
while IFS=$'\t' read -r flatpak snap; do
  [[ $flatpak != - && -d $HOME/.var/app/$flatpak ]] \
    && say "note: Flatpak $flatpak found: Flatpak browsers cannot start a host outside their sandbox; not supported yet."
  [[ $snap != - && -d $HOME/snap/$snap ]] \
    && say "note: Snap $snap found: Snap browsers need extra steps (portal / confinement); not supported yet."
done < <(browser_rows | cut -f10,11)

# --- what the user does next ---------------------------------------------------------------------------------
join() { local IFS=','; local s="$*"; echo "${s//,/, }"; }
load_dir=$extension_dir
firefox_load_dir=$firefox_extension_dir
((with_extension)) || { load_dir=$REPO/extension; firefox_load_dir=$REPO/extension; }
say ""
say "Host installed: $host_path"
if ((policy_chromium)); then
  say "Chromium installs the extension from $CHROMIUM_POLICY_DIR/$PRODUCT.json at its next start (see chrome://policy)."
  # Only Chromium's policy is written (the one measured): the other Chromium-family browsers load it by hand.
  for i in "${!names_by_kind_chromium[@]}"; do
    [[ ${names_by_kind_chromium[$i]} != Chromium ]] || unset 'names_by_kind_chromium[i]'
  done
fi
if ((${#names_by_kind_chromium[@]})); then
  say "In $(join "${names_by_kind_chromium[@]}"): open chrome://extensions, turn on Developer mode, click \"Load unpacked\""
  say "  and choose $load_dir"
fi
if ((policy_firefox)); then
  say "Firefox and Firefox ESR install the extension from $FIREFOX_POLICIES at their next start (see about:policies)."
elif ((firefox_system_extension)); then
  say "Firefox ESR loads the extension from $FIREFOX_SYSTEM_EXTENSION in new profiles; in a profile it"
  say "  used before, load it by hand (about:debugging), as below."
elif ((${#names_by_kind_firefox[@]})); then
  say "In $(join "${names_by_kind_firefox[@]}"): open about:debugging → This Firefox → \"Load Temporary Add-on…\" and choose"
  say "  $firefox_load_dir/manifest.json (removed when the browser restarts; Firefox ESR keeps an unsigned"
  say "  add-on installed when about:config has xpinstall.signatures.required=false, which stops checking every add-on)"
fi
# The command as the user types it: by name when PREFIX/bin is on PATH, else by its full path.
command_name=$host_path
if [[ -L $root$bin_link && ":$PATH:" == *":$prefix/bin:"* ]]; then
  command_name=$PRODUCT
elif [[ -z $root && -L $bin_link ]]; then
  say "note: $prefix/bin is not on your PATH yet; a new login shell has it (Debian's ~/.profile adds ~/.local/bin"
  say "      when it exists), or add it to PATH yourself. Until then: $host_path"
fi
say "Try it with a software key: $command_name demo --browser chromium   (or --browser firefox)"
say "Trouble? Run: $command_name doctor"
