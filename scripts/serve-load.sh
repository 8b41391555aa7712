#!/usr/bin/env bash
# Load figures for `wsitec serve`, in release: the banking example served by
# the real binary (a SQLite file under the temp directory), 64 sessions over
# 16 threads replaying the prover's witnesses as browsers over loopback HTTP
# (compiler/tests/serve/load.rs, `load_heavy`). Prints one line: sessions,
# requests, requests/s and latency p50/p90/p99. Every session's final state
# and rows are checked against the simulator as in the default test.
#
#   scripts/serve-load.sh [SESSIONS [THREADS]]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

export WSITE_LOAD_SESSIONS=${1:-64}
export WSITE_LOAD_THREADS=${2:-16}
cargo build --release --locked -p wsitec --bin wsitec
cargo test --release --locked -p wsitec --test serve load -- \
  --ignored --exact load::load_heavy --nocapture 2>&1 | grep -E '^serve load|panicked|FAILED|^test result'
