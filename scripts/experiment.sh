#!/usr/bin/env bash
# The experiment behind the project (docs/experiments.md), at the paper's
# scale by default: train on the generated training split, evaluate on the
# held-out test split (page templates disjoint from training) and on the
# hand-written sites of heldout/ (reported apart), for raw vs
# verified sites × terminal vs dense reward, SEEDS seeds each. Writes
# runs/experiment/results.md (tables with 95% t-intervals per condition and
# per domain, beside the paper's figures) and runs/experiment/curves.png
# (the four learning curves), both by `wsitec report`.
#
#   bash scripts/experiment.sh [TRAIN_SITES] [TEST_SITES] [STEPS] [SEEDS]
#
# Defaults: 350 75 1000000 3, the paper's split (350/75/75) and ≥10⁶ steps a
# run. Smaller scales for a laptop: `bash scripts/experiment.sh 60 30 100000 3`.
#
# Environment:
#   WSITE_TRAIN_FLAGS  extra `wsitec train` flags (e.g. `--device cuda --envs 256`)
#   WSITE_EVAL_FLAGS   extra `wsitec eval` flags (e.g. `--device cuda`)
#   WSITE_JOBS         runs trained at once (default 1; more only when cores or
#                      a GPU allow: each run already uses every core it gets)
#   WSITE_MAX_SEEDS    add seeds, one at a time to every condition, while a
#                      raw/verified pair of intervals overlaps (default SEEDS)
#   WSITE_ABLATE       policy inputs to ablate, one run set each on verified
#                      sites with the dense reward (e.g. "context page history";
#                      `wsitec train --ablate`), named verified-dense-no_X
#   WSITE_ABLATE_SEEDS seeds per ablation (default 1)
#   WSITE_REWARDS      rewards to compare (default "terminal dense"; add
#                      `decomposed` for WebFactory's action reward, docs/tasks.md)
#   WSITE_DATA         site sets to compare (default "raw verified")
#   WSITE_OUT          the experiment directory (default runs/experiment)
#   WSITE_RESUME=1     keep WSITE_OUT and skip runs already evaluated
#   WSITEC             a wsitec built with `--features train` (default: build it)
set -euo pipefail
cd "$(dirname "$0")/.."
train_sites=${1:-350}
test_sites=${2:-75}
steps=${3:-1000000}
seeds=${4:-3}
max_seeds=${WSITE_MAX_SEEDS:-$seeds}
jobs=${WSITE_JOBS:-1}
out=${WSITE_OUT:-runs/experiment}
train_flags=${WSITE_TRAIN_FLAGS:-}
eval_flags=${WSITE_EVAL_FLAGS:-}

if [ -z "${WSITEC:-}" ]; then
  LIBTORCH=${LIBTORCH:-$(bash scripts/setup-torch.sh)}
  export LIBTORCH
  export LD_LIBRARY_PATH="$LIBTORCH/lib:${LD_LIBRARY_PATH:-}"
  cargo build --release --locked -p wsitec --features train
  WSITEC=${CARGO_TARGET_DIR:-target}/release/wsitec
fi
wsitec=$WSITEC
[ "${WSITE_RESUME:-0}" = 1 ] || rm -rf "$out"
mkdir -p "$out/runs" "$out/eval" "$out/logs"

# The same sites twice: clean, and with the defects that leave a site
# runnable. Raw training uses every task instance of the raw sites; verified
# training uses the same sites' proven instances (what `wsitec build
# --drop-infeasible` keeps). Both are tested on the clean test split.
split="$train_sites/$test_sites/$test_sites"
if [ ! -d "$out/raw/train" ]; then
  "$wsitec" gen --split "$split" --seed 1 -o "$out/clean" >/dev/null
  "$wsitec" gen --split "$split" --seed 1 --raw --runnable --stats -o "$out/raw" \
    > "$out/raw-corpus.txt"
fi
corpus=$(grep -v '^wrote' "$out/raw-corpus.txt" | tail -1)
echo "raw corpus: $corpus"
heldout=()
if compgen -G "heldout/*.wsite" >/dev/null; then
  heldout=(heldout/*.wsite)
  mkdir -p "$out/eval-heldout"
fi

# Trains, then evaluates, one run (skipped when its evaluation exists).
# Called in a `||` list, where `set -e` does not reach: every step checks.
run_one() {
  local data=$1 reward=$2 seed=$3 ablate=${4:-}
  local name="$data-$reward-$seed" flags=()
  if [ -n "$ablate" ]; then
    name="$data-$reward-no_$ablate-$seed"
    flags+=(--ablate "$ablate")
  fi
  [ -f "$out/eval/$name.json" ] && return 0
  [ "$data" = raw ] && flags+=(--unverified)
  echo "== $name: training (log: $out/logs/$name.log)"
  # shellcheck disable=SC2086
  "$wsitec" train "$out/raw/train" "${flags[@]}" --reward "$reward" --seed "$seed" \
    --steps "$steps" --no-eval -o "$out/runs/$name" $train_flags \
    > "$out/logs/$name.log" 2>&1 || return 1
  local trained
  trained=$(grep -v "^wrote" "$out/logs/$name.log" | tail -1)
  local policy="$out/runs/$name/policy.safetensors"
  if [ ${#heldout[@]} -gt 0 ]; then
    # shellcheck disable=SC2086
    "$wsitec" eval "$policy" "${heldout[@]}" --seeds 1 --format json $eval_flags \
      > "$out/eval-heldout/$name.json" 2>> "$out/logs/$name.log" || return 1
  fi
  # shellcheck disable=SC2086
  "$wsitec" eval "$policy" "$out/clean/test" --seeds 1 --format json $eval_flags \
    > "$out/eval/$name.json.part" 2>> "$out/logs/$name.log" || return 1
  mv "$out/eval/$name.json.part" "$out/eval/$name.json" || return 1
  echo "== $name: $trained"
}

# Every condition for seeds FROM..TO-1, WSITE_JOBS at a time; a run that
# fails is named in $out/failed and the others go on.
run_seeds() {
  local from=$1 to=$2 seed reward data
  for seed in $(seq "$from" $((to - 1))); do
    for reward in ${WSITE_REWARDS:-terminal dense}; do
      for data in ${WSITE_DATA:-raw verified}; do
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
        {
          run_one "$data" "$reward" "$seed" || {
            echo "== $data-$reward-$seed failed: see $out/logs/$data-$reward-$seed.log" >&2
            echo "$data-$reward-$seed" >> "$out/failed"
          }
        } &
      done
    done
  done
  wait
}

# One run per ablated input and seed, verified sites, dense reward.
run_ablations() {
  local seed what
  for seed in $(seq 0 $((${WSITE_ABLATE_SEEDS:-1} - 1))); do
    for what in ${WSITE_ABLATE:-}; do
      while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
      {
        run_one verified dense "$seed" "$what" || {
          echo "== ablation $what-$seed failed" >&2
          echo "verified-dense-no_$what-$seed" >> "$out/failed"
        }
      } &
    done
  done
  wait
}

rm -f "$out/failed"
run_seeds 0 "$seeds"
run_ablations
while [ "$seeds" -lt "$max_seeds" ]; do
  report=$("$wsitec" report "$out" 2>/dev/null || true)
  [[ $report == *"intervals overlap"* ]] || break
  echo "== raw and verified intervals overlap at $seeds seeds: adding seed $seeds"
  run_seeds "$seeds" $((seeds + 1))
  seeds=$((seeds + 1))
done

{
  echo "# Experiment: ${WSITE_DATA:-raw verified} sites × ${WSITE_REWARDS:-terminal dense} reward"
  echo
  echo "\`bash scripts/experiment.sh $train_sites $test_sites $steps $seeds\`" \
    "(WSITE_TRAIN_FLAGS='$train_flags' WSITE_REWARDS='${WSITE_REWARDS:-terminal dense}' WSITE_DATA='${WSITE_DATA:-raw verified}'): $train_sites training and $test_sites test sites" \
    "(\`wsitec gen --split $split --seed 1\`), $steps steps a run, seeds a condition: $seeds;" \
    "hand-written held-out sites: ${#heldout[@]}. Raw corpus: $corpus."
  echo
  echo "![learning curves](curves.png)"
  echo
  "$wsitec" report "$out" -o "$out/curves.png"
} > "$out/results.md"
cat "$out/results.md"
if [ -f "$out/failed" ]; then
  echo "error: $(wc -l < "$out/failed") runs failed (listed in $out/failed); the report leaves them out" >&2
  exit 1
fi
