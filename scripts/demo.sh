#!/usr/bin/env bash
# Sets up and runs the main job: build the compiler, check every example site,
# prove one site's tasks and build its artifact, prove a site made of
# standard-library modules, generate a small corpus and a raw one, train a
# policy briefly on CPU (success before and after, curve.png), compare the interpreter with the JIT, show how an
# impossible task is explained, let an external agent play a task, and open
# the sites from Python as Gymnasium environments.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

# The trainer needs PyTorch 2.11.0's C++ libraries (fetched from PyPI once).
LIBTORCH=$(bash scripts/setup-torch.sh)
export LIBTORCH
cargo build --release --locked -p wsitec --features train
wsitec=target/release/wsitec

echo "== checking the example sites (every analysis, the prover included)"
"$wsitec" check --color never examples/*/*.wsite

echo
echo "== proving every task of the banking site: verdicts and shortest witnesses"
"$wsitec" prove examples/banking/cascade_cu.wsite

echo
echo "== building it into a certified artifact"
mkdir -p target/demo
"$wsitec" build examples/banking/cascade_cu.wsite -o target/demo/cascade_cu.wsb

echo
echo "== a site built from standard-library modules (std::cart bound to its own table)"
"$wsitec" prove stdlib/sites/cart.wsite

echo
echo "== a small generated corpus: 36 sites split 24/6/6 by page template, every task proven"
"$wsitec" gen --split 24/6/6 --seed 1 --stats -o target/demo/corpus

echo
echo "== the same sites with the defects language models make, and what the checker finds"
"$wsitec" gen --split 24/6/6 --seed 1 --raw --stats -o target/demo/raw

echo
echo "== the interpreter against the JIT on one site (steps/s, batched buffers, prover)"
"$wsitec" bench --seconds 0.3 examples/ecommerce/trailhead.wsite

echo
echo "== an impossible task, explained (exit code 1 is expected)"
"$wsitec" check --color never tests/ui/F401_precondition_never_met.wsite || true

echo
echo "== a file with planted mistakes (exit code 1 is expected)"
"$wsitec" check --color never tests/ui/E001_unexpected_token.wsite || true

echo
echo "== the same as JSON, for repair loops (first defect)"
"$wsitec" check --format json tests/ui/E001_unexpected_token.wsite | head -c 700 || true
echo

echo
echo "== an external agent completes a task over the JSON-lines protocol"
site=examples/ecommerce/trailhead.wsite
python3 - "$wsitec" "$site" <<'PY' || true
import json, subprocess, sys
wsitec, site = sys.argv[1], sys.argv[2]
p = subprocess.Popen([wsitec, "agent", site, "--task", "cancel_unshipped_order"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(req):
    p.stdin.write(json.dumps(req) + "\n"); p.stdin.flush()
    return json.loads(p.stdout.readline())
def click(reply, key):
    for e in reply["obs"]["elements"]:
        if e["key"] == key or e["text"].startswith(key):
            return send({"act": {"kind": "click", "element": e["index"]}})
    raise SystemExit(f"no element {key}")
r = send({"reset": {"task": "cancel_unshipped_order"}})
print("instruction:", r["obs"]["instruction"])
for key in ["#orders_link", "Order #4 ", "#cancel_order"]:
    r = click(r, key)
    print(f"click {key!r:16} -> {r['obs']['url']:12} reward {r['reward']:+.4f} progress {r['info']['progress']:.3f} done {r['done']} success {r['success']}")
p.stdin.close(); p.wait()
PY

echo
echo "== training a policy with PPO on CPU on two small sites (30,000 steps)"
"$wsitec" train stdlib/sites/search.wsite stdlib/sites/profile.wsite \
  --steps 30000 -o target/demo/run
echo "learning curve: target/demo/run/curve.png; metrics: target/demo/run/metrics.jsonl"
"$wsitec" eval target/demo/run/policy.safetensors stdlib/sites/search.wsite stdlib/sites/profile.wsite

echo
echo "== the same sites from Python: Gymnasium environments (scripts/setup-python.sh core)"
python=$(bash scripts/setup-python.sh core)
"$python" - <<'PY'
import time
import numpy as np
import wsite
from gymnasium.utils.env_checker import check_env

site = "stdlib/sites/cart.wsite"
env = wsite.make(site, task="two_different_items", obs="text")
text, info = env.reset(seed=0)
print(text, end="")
check_env(wsite.make(site), skip_render_check=True)
print("gymnasium's check_env on", site, "passed")

envs = wsite.vector("examples/ecommerce/trailhead.wsite", num_envs=64)
envs.reset(seed=0)
rng = np.random.default_rng(0)
steps, ended, started = 0, 0, time.perf_counter()
while time.perf_counter() - started < 2.0:
    rows = (rng.random(64) * np.maximum(envs.action_masks().sum(axis=1), 1)).astype(np.int64)
    _, _, terminated, truncated, _ = envs.step(rows)
    steps, ended = steps + 64, ended + int((terminated | truncated).sum())
rate = steps / (time.perf_counter() - started)
print(f"wsite.vector, 64 trailhead envs on the JIT: {rate:,.0f} steps/s from Python, {ended} episodes")
PY
