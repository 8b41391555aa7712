#!/usr/bin/env bash
# Serves each example and takes a screenshot of its start page with headless
# Chromium (scripts/setup-chromium.sh), for docs/serve.md:
# docs/images/serve-<domain>.png. Usage: scripts/serve-screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."

browser=$(bash scripts/setup-chromium.sh | sed -n 2p)
cargo build --release --locked -p wsitec >&2
mkdir -p docs/images
for site in examples/*/*.wsite; do
  domain=$(basename "$(dirname "$site")")
  out=$(mktemp)
  target/release/wsitec serve "$site" --port 0 >"$out" &
  server=$!
  for _ in $(seq 50); do grep -q 'http://' "$out" && break; sleep 0.1; done
  url=$(grep -o 'http://[^ ]*' "$out")
  "$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size=1100,1100 --screenshot="docs/images/serve-$domain.png" "$url" 2>/dev/null
  kill "$server"; wait "$server" 2>/dev/null || true
  rm -f "$out"
  echo "docs/images/serve-$domain.png"
done
