#!/usr/bin/env bash
# The experiment behind the project (docs/experiments.md): train on the
# generated training split, evaluate on the held-out test split, for raw vs
# verified sites × dense vs terminal reward, three seeds each.
#
#   bash scripts/experiment.sh [TRAIN_SITES] [TEST_SITES] [STEPS] [SEEDS]
#
# Defaults (60 training sites, 30 test sites, 100,000 steps, 3 seeds) fit a
# 2-core CPU in about an hour; the paper's scale is `350 75 1000000 3` on a GPU
# (add `--device cuda` through WSITE_TRAIN_FLAGS).
set -euo pipefail
cd "$(dirname "$0")/.."
train_sites=${1:-60}
test_sites=${2:-30}
steps=${3:-100000}
seeds=${4:-3}
extra=${WSITE_TRAIN_FLAGS:-}

LIBTORCH=$(bash scripts/setup-torch.sh)
export LIBTORCH
cargo build --release --locked -p wsitec --features train
wsitec=target/release/wsitec
out=runs/experiment
rm -rf "$out"
mkdir -p "$out/runs" "$out/eval"

# The same sites twice: clean, and with the defects that leave a site
# runnable. Raw training uses every task instance of the raw sites; verified
# training uses the same sites' proven instances (what `wsitec build
# --drop-infeasible` keeps). Both are tested on the clean held-out test split,
# whose page templates no training site has.
"$wsitec" gen --split "$train_sites/0/$test_sites" --seed 1 -o "$out/clean" >/dev/null
"$wsitec" gen --split "$train_sites/0/$test_sites" --seed 1 --raw --runnable --stats \
  -o "$out/raw" | tail -1

for reward in terminal dense; do
  for data in raw verified; do
    for seed in $(seq 0 $((seeds - 1))); do
      name="$data-$reward-$seed"
      flags=()
      [ "$data" = raw ] && flags+=(--unverified)
      echo "== $name"
      # shellcheck disable=SC2086
      "$wsitec" train "$out/raw/train" "${flags[@]}" --reward "$reward" --seed "$seed" \
        --steps "$steps" --no-eval -o "$out/runs/$name" $extra 2>&1 | tail -2
      "$wsitec" eval "$out/runs/$name/policy.safetensors" "$out/clean/test" \
        --seeds 1 --format json > "$out/eval/$name.json"
    done
  done
done

python3 - "$out" "$seeds" <<'PY'
import json, math, sys
out, seeds = sys.argv[1], int(sys.argv[2])
rows = []
for reward in ["terminal", "dense"]:
    for data in ["raw", "verified"]:
        rates, train = [], []
        for s in range(seeds):
            r = json.load(open(f"{out}/eval/{data}-{reward}-{s}.json"))["overall"]
            rates.append(r["success_rate"])
            # Training success: the episodes of the last five updates.
            lines = [json.loads(l) for l in open(f"{out}/runs/{data}-{reward}-{s}/metrics.jsonl")][-5:]
            eps = sum(l["episodes"] for l in lines)
            train.append(sum(l["success_rate"] * l["episodes"] for l in lines) / max(eps, 1))
        m = sum(rates) / len(rates)
        sd = math.sqrt(sum((x - m) ** 2 for x in rates) / (len(rates) - 1)) if len(rates) > 1 else 0.0
        t = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776}.get(len(rates), 1.96)
        half = t * sd / math.sqrt(len(rates))
        rows.append((data, reward, m, half, rates, sum(train) / len(train)))
with open(f"{out}/results.md", "w") as f:
    f.write("| training sites | reward | test success (mean of seeds) | 95% interval | per seed | training success (end) |\n|---|---|---|---|---|---|\n")
    for data, reward, m, half, rates, tr in rows:
        f.write(f"| {data} | {reward} | {100*m:.1f}% | ±{100*half:.1f} | {', '.join(f'{100*x:.1f}%' for x in rates)} | {100*tr:.1f}% |\n")
print(open(f"{out}/results.md").read())
PY
