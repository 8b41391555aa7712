#!/usr/bin/env bash
# Sets up and runs every test of the workspace. Needs only a Rust toolchain
# (rustup's stable; installed here if cargo is missing) and crates.io.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "cargo not found: install Rust from rustup (https://rustup.rs) first" >&2
    exit 2
  fi
fi

# Snapshots are compared, never rewritten, when testing.
export INSTA_UPDATE=no
# A clean checkout gains nothing from incremental caches, which take
# gigabytes.
export CARGO_INCREMENTAL=0
# The compiler and the runtime compile without the trainer (checked, not
# linked: a second set of test binaries would double the disk used)...
cargo check --workspace --all-targets --locked
# ...and every test runs with it: PyTorch 2.11.0's C++ libraries for tch,
# fetched from PyPI into .torch/ (about 1 GB unpacked; once).
LIBTORCH=$(bash scripts/setup-torch.sh)
export LIBTORCH
export LD_LIBRARY_PATH="$LIBTORCH/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
features=(--features wsitec/train,wsite-runtime/train)
# The Python extension (python/) has no Rust tests: pytest tests it below,
# built by maturin without the trainer.
rust=(--workspace --exclude wsite-python)
cargo build "${rust[@]}" --all-targets --locked "${features[@]}"

# The Python package in .venv, with what its tests use (PyPI).
python=$(bash scripts/setup-python.sh all)

# Headless Chromium and its driver for the served-site browser tests
# (Debian's packages). Where they cannot be installed the browser tests say
# so and pass; where they are, a browser test that cannot start fails.
if browser=$(bash scripts/setup-chromium.sh); then
  WSITE_CHROMEDRIVER=$(sed -n 1p <<<"$browser")
  WSITE_CHROMIUM=$(sed -n 2p <<<"$browser")
  export WSITE_CHROMEDRIVER WSITE_CHROMIUM WSITE_REQUIRE_BROWSER=1
else
  echo "Chromium could not be installed: the browser tests will be skipped" >&2
fi

# Run every suite, keep cargo's output, and close with one total line.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test "${rust[@]}" --locked --no-fail-fast "${features[@]}" 2>&1 | tee "$log" || status=$?
# The Python package's suite (Gymnasium's checker, SB3, Ray, the examples).
WSITEC="$PWD/target/debug/wsitec" "$python" -m pytest -q -p no:cacheprovider python/tests 2>&1 |
  tee -a "$log" || status=$?
# The VS Code extension's grammar, snapshot and unit tests (npm registry).
if command -v npm >/dev/null 2>&1; then
  bash editors/vscode/test.sh 2>&1 | tee -a "$log" || status=$?
else
  echo "npm not found: the VS Code extension's tests were skipped" >&2
fi
# cargo's `test result:` lines, and pytest's closing `N passed, M failed in Xs`.
read -r passed failed < <(awk '
/^test result:/ {
  for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^failed/) f += $(i-1) }
}
/^=* *[0-9]+ (passed|failed|error)/ && / in [0-9.]+s/ {
  for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^(failed|errors?)/) f += $(i-1) }
} END { print p + 0, f + 0 }' "$log")
echo
echo "total: ${passed} passed, ${failed} failed"
exit "$status"
