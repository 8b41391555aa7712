#!/usr/bin/env bash
# The prover's soundness campaign at scale: N random small sites (default
# 10000) from seed SEED on (default 0), every task instance proven on both
# engines with and without pruning, in release mode. Prints one summary line
# (sites, task instances, verdicts, disagreements, time); the full log, with
# the source of every site that disagreed, is kept in
# target/soundness/seed-SEED-N.log (or under $CARGO_TARGET_DIR).
#
#   scripts/soundness.sh [N] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

sites=${1:-10000}
seed=${2:-0}
target=${CARGO_TARGET_DIR:-target}
mkdir -p "$target/soundness"
log="$target/soundness/seed-$seed-$sites.log"

cargo build --release --locked -p wsite-tests --test soundness
status=0
WSITE_SOUNDNESS_SITES=$sites WSITE_SOUNDNESS_SEED=$seed \
  cargo test --release --locked -p wsite-tests --test soundness -- \
  --exact generated_sites_compile_and_prove_alike_four_ways --nocapture \
  >"$log" 2>&1 || status=$?
grep '^soundness generated' "$log" || tail -n 20 "$log"
echo "log: $log"
exit "$status"
