#!/bin/sh
# Renders the extension's icons from their one source, extension/icons/icon.svg: icon-<size>.png for the
# manifest and the toolbar, and icon-off-<size>.png, the same mark in grey, which the toolbar shows while the
# host cannot be reached (background/main.js). The PNGs are committed; run this after changing the SVG.
# Needs rsvg-convert (Debian: librsvg2-bin).
set -eu

cd "$(dirname "$0")/../extension/icons"
command -v rsvg-convert >/dev/null || { echo "icons.sh: rsvg-convert not found (apt-get install librsvg2-bin)" >&2; exit 1; }

BLUE='#1a5fb4'
GREY='#77767b'
grey_svg=$(mktemp)
trap 'rm -f "$grey_svg"' EXIT
grep -q "fill=\"$BLUE\"" icon.svg || { echo "icons.sh: icon.svg no longer has the shield colour $BLUE" >&2; exit 1; }
sed "s/fill=\"$BLUE\"/fill=\"$GREY\"/" icon.svg >"$grey_svg"

for size in 16 32 48 128; do
    rsvg-convert --width "$size" --height "$size" icon.svg --output "icon-$size.png"
    rsvg-convert --width "$size" --height "$size" "$grey_svg" --output "icon-off-$size.png"
done
echo "icons.sh: wrote icon-{16,32,48,128}.png and icon-off-*.png in extension/icons"
