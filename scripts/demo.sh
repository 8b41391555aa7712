#!/usr/bin/env bash
# Sets up and runs the main job: build the compiler, check every example site
# and show what the checker reports on a file with planted mistakes.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

cargo build --release --locked -p wsitec
wsitec=target/release/wsitec

echo "== checking the example sites"
"$wsitec" check --color never examples/*/*.wsite

echo
echo "== a file with planted mistakes (exit code 1 is expected)"
"$wsitec" check --color never tests/ui/E001_unexpected_token.wsite || true

echo
echo "== the same as JSON, for repair loops (first defect)"
"$wsitec" check --format json tests/ui/E001_unexpected_token.wsite | head -c 700 || true
echo
