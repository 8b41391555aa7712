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
cargo build --workspace --all-targets --locked
cargo test --workspace --locked
