#!/usr/bin/env bash
# The process-reward benchmark of docs/prm.md, end to end: export exactly
# labelled step preferences from the six example sites and from a generated
# test split, judge them with every baseline (random, text overlap, the
# trained policy's action scores, its value head on the next state, and the
# exact oracle, which must score 100%), and print WebArbiter's table for
# each. Then best-of-N search with the value judge against the plain policy.
#
#   bash scripts/prm-bench.sh [OUT]
#
# Environment:
#   WSITE_POLICY  a checkpoint (policy.safetensors) whose run trained on the
#                 training split of the same `gen --split` (default: train
#                 one briefly here on that split, decomposed reward)
#   WSITE_SPLIT   the corpus split (default 80/20/20, seed 1, as the
#                 experiment of docs/experiments.md)
#   WSITE_STEPS   training steps when no policy is given (default 60000)
#   WSITEC        a wsitec built with `--features train` (default: build it)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-runs/prm}
split=${WSITE_SPLIT:-80/20/20}
steps=${WSITE_STEPS:-60000}
if [ -z "${WSITEC:-}" ]; then
  LIBTORCH=${LIBTORCH:-$(bash scripts/setup-torch.sh)}
  export LIBTORCH
  export LD_LIBRARY_PATH="$LIBTORCH/lib:${LD_LIBRARY_PATH:-}"
  cargo build --release --locked -p wsitec --features train
  WSITEC=${CARGO_TARGET_DIR:-target}/release/wsitec
fi
wsitec=$WSITEC
mkdir -p "$out"

if [ ! -d "$out/corpus/test" ]; then
  "$wsitec" gen --split "$split" --seed 1 -o "$out/corpus" >/dev/null
fi
policy=${WSITE_POLICY:-}
if [ -z "$policy" ]; then
  policy="$out/policy/policy.safetensors"
  if [ ! -f "$policy" ]; then
    echo "== training a policy briefly ($steps steps) on $out/corpus/train"
    "$wsitec" train "$out/corpus/train" --reward decomposed --steps "$steps" \
      --no-eval -o "$out/policy" > "$out/train.log" 2>&1
    tail -1 "$out/train.log"
  fi
fi

# bench NAME SITES…: export, judge with every baseline, print the table.
bench() {
  local name=$1
  shift
  echo
  echo "== $name: exporting"
  "$wsitec" prm export "$@" -o "$out/$name.jsonl" --per-domain all
  local judged=()
  for judge in random overlap policy value oracle; do
    local flags=(--baseline "$judge" --sites "$@")
    case $judge in policy | value) flags+=(--policy "$policy") ;; esac
    "$wsitec" prm judge "$out/$name.jsonl" "${flags[@]}" -o "$out/$name.$judge.jsonl"
    judged+=("$out/$name.$judge.jsonl")
  done
  echo "== $name: WebArbiter's table (Pairwise / Best-of-N accuracy, %)"
  "$wsitec" prm eval "$out/$name.jsonl" "${judged[@]}" | tee "$out/$name.table.txt"
  "$wsitec" prm eval "$out/$name.jsonl" "${judged[@]}" --format json > "$out/$name.table.json"
}

bench examples examples/*/*.wsite
bench test "$out/corpus/test"

echo
echo "== reward-guided search on the test split: the policy alone vs best-of-4 judged by its value head"
"$wsitec" eval "$policy" "$out/corpus/test" --seeds 1 --search best-of-4 --prm value \
  | tee "$out/search.txt"
