# shellcheck shell=bash
# Sourced by install.sh (--system): the packaged extension under PREFIX/share/webauthn-bridge/, and what makes each
# browser install it at its next start without developer mode or a command-line flag: Chromium's policy, and
# Firefox's system-wide extension directory (or its policy, for a signed .xpi).
# What each browser honours, and the evidence, is in docs/install.md ("System install"). Uses install.sh's
# globals (root, prefix, share_dir, REPO, PRODUCT, dry_run, record) and helpers (run, say, die, make_dir, write_file, copy_file).
# shellcheck disable=SC2154  # those globals are install.sh's
# shellcheck disable=SC2034  # policy_firefox, policy_chromium and firefox_system_extension are read by install.sh

# Firefox and Firefox ESR on Linux read policies.json in the table's policy directory, and only when it is missing
# their installation's distribution/policies.json (--firefox-policies): one file either way.
readonly FIREFOX_POLICIES=$firefox_policies_file
readonly FIREFOX_ID=webauthn-bridge@webauthn-bridge
FIREFOX_SYSTEM_EXTENSION="$(browser_field firefox-esr 7)/$FIREFOX_ID.xpi"
readonly FIREFOX_SYSTEM_EXTENSION
# Chromium reads every file here; for a policy that several set, only the file whose name sorts last counts.
CHROMIUM_POLICY_DIR=$(browser_field chromium 8)
readonly CHROMIUM_POLICY_DIR
policy_firefox=0
policy_chromium=0
firefox_system_extension=0

# find_packages: sets xpi, crx and crx_id from the options or dist/, building the missing ones with package.sh.
find_packages() {
  local version default_xpi default_crx
  version=$(tr -d '[:space:]' <"$REPO/VERSION")
  default_xpi="$REPO/dist/$PRODUCT-$version.xpi"
  default_crx="$REPO/dist/$PRODUCT-$version.crx"
  if [[ ( -z $xpi && ! -f $default_xpi ) || ( -z $crx && ! -f $default_crx ) ]]; then
    run "$REPO/scripts/package.sh" xpi crx
  fi
  xpi=${xpi:-$default_xpi}
  crx=${crx:-$default_crx}
  # A dry run cannot read the id of a CRX it has not built: the text stands in for it.
  if ((dry_run)) && [[ ! -f $crx ]]; then crx_id=${crx_id:-'<the id of the CRX package.sh makes>'}; return 0; fi
  [[ -f $xpi ]] || die "--xpi: no such file: $xpi (scripts/package.sh xpi makes it)"
  [[ -f $crx ]] || die "--crx: no such file: $crx (scripts/package.sh crx makes it)"
  xpi=$(realpath -- "$xpi")
  crx=$(realpath -- "$crx")
  if [[ -z $crx_id ]]; then
    [[ -f $(dirname -- "$crx")/chromium-id.txt ]] || die "no chromium-id.txt beside $crx: give its id with --crx-id ID"
    crx_id=$(tr -d '[:space:]' <"$(dirname -- "$crx")/chromium-id.txt")
  fi
  [[ $crx_id =~ ^[a-p]{32}$ ]] || die "not a Chromium extension id: '$crx_id'"
}

# file_url PATH: a file:// URL for an absolute PATH, every byte outside [A-Za-z0-9/._~-] percent-encoded.
file_url() {
  local LC_ALL=C path=$1 url='file://' i c
  for ((i = 0; i < ${#path}; i++)); do
    c=${path:i:1}
    if [[ $c == [A-Za-z0-9/._~-] ]]; then url+=$c; else url+=$(printf '%%%02X' "'$c"); fi
  done
  printf '%s' "$url"
}

# install_packages: the .xpi, the .crx and Chromium's update manifest for it, under PREFIX/share/webauthn-bridge/.
install_packages() {
  make_dir "$share_dir"
  copy_file "$xpi" "$share_dir/$PRODUCT.xpi"
  copy_file "$crx" "$share_dir/$PRODUCT.crx"
  write_file "$share_dir/chromium-id.txt" "$crx_id"
  # Chromium's update protocol (gupdate): the policy names this file, it names the CRX. Chromium 156 reads both
  # from file:// URLs (docs/install.md).
  write_file "$share_dir/updates.xml" "<?xml version='1.0' encoding='UTF-8'?>
<gupdate xmlns='http://www.google.com/update2/response' protocol='2.0'>
  <app appid='$crx_id'>
    <updatecheck codebase='$(file_url "$share_dir/$PRODUCT.crx")' version='$(crx_version)' />
  </app>
</gupdate>"
}

crx_version() { tr -d '[:space:]' <"$REPO/VERSION"; }

# xpi_signed: the .xpi carries addons.mozilla.org's signature (META-INF/ in the archive).
xpi_signed() { grep -aqE 'META-INF/(mozilla\.rsa|cose\.sig)' -- "$xpi" 2>/dev/null; }

# firefox_policies: policies.json's text: Firefox installs the .xpi in every profile at its next start. An unsigned
# one only with xpinstall.signatures.required=false, which stops Firefox checking every add-on's signature: written
# only when the administrator asked for it (--firefox-unsigned-policy).
firefox_policies() {
  local preferences=''
  if ! xpi_signed; then
    preferences=',
    "Preferences": {
      "xpinstall.signatures.required": { "Value": false, "Status": "default" }
    }'
  fi
  cat <<JSON
{
  "policies": {
    "ExtensionSettings": {
      "$FIREFOX_ID": {
        "installation_mode": "force_installed",
        "install_url": "$(file_url "$share_dir/$PRODUCT.xpi")"
      }
    }$preferences
  }
}
JSON
}

# install_firefox_extension: a signed .xpi goes in by policy, which every Firefox honours. An unsigned one (what
# scripts/package.sh builds) goes into the system-wide extension directory, as Debian's webext-* packages ship
# theirs: Debian's Firefox ESR loads unsigned add-ons from there only (vendor.js: extensions.unsignedScopes = the
# application and system scopes), in a new profile (one used before does not scan the scope:
# extensions.startupScanScopes is 0; docs/install.md), and drops it once the file is gone. Nothing changes
# for other add-ons: a policy setting xpinstall.signatures.required=false would stop checking every add-on.
install_firefox_extension() {
  if xpi_signed; then install_firefox_policy; return; fi
  if ((firefox_unsigned_policy)); then
    say "warning: --firefox-unsigned-policy: Firefox will check no add-on's signature (xpinstall.signatures.required=false)"
    install_firefox_policy
    return
  fi
  make_dir "$(dirname -- "$FIREFOX_SYSTEM_EXTENSION")"
  copy_file "$xpi" "$FIREFOX_SYSTEM_EXTENSION"
  firefox_system_extension=1
}

# recorded PATH: an earlier run of this install wrote PATH (so it is ours to rewrite).
recorded() { [[ -f $root$record ]] && grep -qxF "file $1" "$root$record"; }

install_firefox_policy() {
  if [[ -e $root$FIREFOX_POLICIES || -L $root$FIREFOX_POLICIES ]] && ! recorded "$FIREFOX_POLICIES"; then
    # One file holds every policy: an administrator's is never replaced, nor merged by a script that may misread it.
    say "note: $root$FIREFOX_POLICIES exists and is not ours: left unchanged. For Firefox to install the extension,"
    say "      merge these entries into its \"policies\" object:"
    firefox_policies | sed -n '3,$p' | sed '$d' | sed '$d' | sed 's/^/      /'
    return 0
  fi
  make_dir "$(dirname -- "$FIREFOX_POLICIES")"
  write_file "$FIREFOX_POLICIES" "$(firefox_policies)"
  policy_firefox=1
}

# chromium_policy_name: ExtensionInstallForcelist, or ExtensionSettings when another file already sets the
# forcelist (Chromium would take one file's list and drop the other's: measured, docs/install.md), or nothing
# when other files set both.
chromium_policy_name() {
  local others=() f
  for f in "$root$CHROMIUM_POLICY_DIR"/*; do
    [[ -f $f && $f != "$root$CHROMIUM_POLICY_DIR/$PRODUCT.json" ]] && others+=("$f")
  done
  if ((${#others[@]} == 0)) || ! grep -qs '"ExtensionInstallForcelist"' -- "${others[@]}"; then
    echo ExtensionInstallForcelist
  elif ! grep -qs '"ExtensionSettings"' -- "${others[@]}"; then
    echo ExtensionSettings
  fi
}

install_chromium_policy() {
  local name update_url content
  name=$(chromium_policy_name)
  update_url=$(file_url "$share_dir/updates.xml")
  case "$name" in
    ExtensionInstallForcelist)
      content="{ \"ExtensionInstallForcelist\": [\"$crx_id;$update_url\"] }" ;;
    ExtensionSettings)
      content="{ \"ExtensionSettings\": { \"$crx_id\": { \"installation_mode\": \"force_installed\", \"update_url\": \"$update_url\" } } }" ;;
    *)
      say "note: other files in $root$CHROMIUM_POLICY_DIR set both ExtensionInstallForcelist and ExtensionSettings;"
      say "      Chromium would use only one file's. Add \"$crx_id;$update_url\" to your ExtensionInstallForcelist."
      return 0 ;;
  esac
  make_dir "$CHROMIUM_POLICY_DIR"
  write_file "$CHROMIUM_POLICY_DIR/$PRODUCT.json" "$content"
  policy_chromium=1
}
