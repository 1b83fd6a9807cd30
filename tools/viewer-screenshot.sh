#!/usr/bin/env bash
# The round viewer's screenshot in the docs (docs/manual/viewer.png): a round of four expert
# bots, written by `shengji view` and shot by headless Chromium at its 8th trick.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python -m shengji demo --rules v3 --seed 0 --bots expert --save "$work/round.json" >/dev/null
python -m shengji view "$work/round.json" -o "$work/round.html" >/dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
  --window-size=1280,760 --screenshot="$PWD/docs/manual/viewer.png" \
  "file://$work/round.html#step=8" 2>/dev/null
