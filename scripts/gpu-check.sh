#!/usr/bin/env bash
# The trainer on a GPU machine, in two halves.
#
#   bash scripts/gpu-check.sh build    # here: a CUDA-linked wsitec and a corpus in target/gpu/
#   bash scripts/gpu-check.sh run      # there (the device tool, carrying target/gpu):
#                                      #   checks that CUDA is used and times 1,000,000 steps
#
# The GPU machine has no Rust toolchain and its own PyTorch 2.11.0 (CUDA) at
# TORCH_LIB below; the binary is built here against the same version and
# finds the libraries there through its rpath.
set -euo pipefail
cd "$(dirname "$0")/.."
TORCH_LIB=${TORCH_LIB:-/opt/torch/.venv/lib/python3.12/site-packages/torch/lib}
out=target/gpu

case "${1:-}" in
build)
  LIBTORCH=$(bash scripts/setup-torch.sh)
  export LIBTORCH
  WSITE_TORCH_CUDA="$TORCH_LIB" cargo build --release --locked -p wsitec --features train \
    --target-dir target/cuda-build
  mkdir -p "$out"
  cp target/cuda-build/release/wsitec "$out/wsitec"
  rm -rf "$out/corpus"
  "$out/wsitec" --version >/dev/null 2>&1 || true   # cannot start here: no CUDA libraries
  target/release/wsitec gen --split 60/0/0 --seed 1 -o "$out/corpus" >/dev/null 2>&1 \
    || cargo run --release -q -p wsitec -- gen --split 60/0/0 --seed 1 -o "$out/corpus" >/dev/null
  echo "built $out/wsitec; carry target/gpu and run: bash scripts/gpu-check.sh run"
  ;;
run)
  export LD_LIBRARY_PATH="$TORCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
  w="$out/wsitec"
  echo "== a missing device is a clear error on CPU-only builds; here CUDA must be found"
  "$w" train stdlib/sites/search.wsite --steps 2000 --device cuda --no-eval -o "$out/smoke" 2>&1 | tail -2
  echo "== 1,000,000 steps on 60 generated sites, on CUDA"
  /usr/bin/time -v "$w" train "$out/corpus/train" --steps 1000000 --device cuda --envs 1024 \
    --rollout 64 --no-eval --profile -o "$out/run" 2>&1 | tail -30 > "$out/time.txt" || true
  tail -3 "$out/run/metrics.jsonl" || true
  cat "$out/run/profile.json" || true
  grep -E "Elapsed|Maximum resident" "$out/time.txt" || true
  ;;
*)
  echo "usage: bash scripts/gpu-check.sh build|run" >&2
  exit 2
  ;;
esac
