#!/usr/bin/env bash
# Screenshots of a results folder's page (report.html) with headless Chromium (Debian's chromium,
# installed by scripts/setup.sh): PREFIX-1280.png at desktop width and PREFIX-390.png at phone
# width, full height. For the demo: bash scripts/screenshot.sh results/demo
set -euo pipefail
folder=${1:?usage: scripts/screenshot.sh RESULTS [PREFIX] (PREFIX defaults to RESULTS/report)}
prefix=${2:-$folder/report}
page="$(realpath "$folder")/report.html"
[ -f "$page" ] || { echo "screenshot: no $page (run: tempo report $folder)" >&2; exit 1; }
for size in 1280,5000 390,9000; do
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$size" \
    --screenshot="$prefix-${size%,*}.png" "file://$page" 2>/dev/null
  echo "$prefix-${size%,*}.png"
done
