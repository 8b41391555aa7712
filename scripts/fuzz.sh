#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/, docs/fuzzing.md), or the TARGETs
# named, for SECONDS each (60 by default), one at a time and single-process, and prints a table of
# target, executions and crashes. Needs the nightly toolchain; installs
# cargo-fuzz when it is missing. Exit status: 0 when nothing crashed, 1 when
# something did (the inputs are in fuzz/artifacts/<target>/), 2 on bad usage or
# no nightly toolchain.
set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS [TARGET...]]   (seconds per target, default 60)" >&2
  exit 2
fi
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz.sh: cargo-fuzz needs the nightly toolchain: rustup toolchain install nightly" >&2
  exit 2
fi
if ! cargo fuzz --help >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

cd "$(dirname "$0")/../fuzz"
targets=(parse_check format agent_line lsp_message wsb_load simulator_reply serve_request)
if [ "$#" -gt 1 ]; then
  targets=("${@:2}")
fi
# No sanitizer: wsite is safe Rust but for the JIT, and ASan halves the
# executions; debug assertions and overflow checks stay on.
cargo +nightly fuzz build -s none
logs="$(mktemp -d)"
failed=0
declare -A execs crashes
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  before=$(find "artifacts/$t" -type f | wc -l)
  status=0
  cargo +nightly fuzz run -s none "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    >"$logs/$t.log" 2>&1 || status=$?
  # libFuzzer's `Done N runs`, or after a crash its last `#N` stats line.
  execs[$t]=$(grep -a -oE '^Done [0-9]+ runs' "$logs/$t.log" | grep -oE '[0-9]+' || true)
  if [ -z "${execs[$t]}" ]; then
    execs[$t]=$(grep -a -oE '^#[0-9]+' "$logs/$t.log" | tail -n 1 | tr -d '#' || true)
  fi
  after=$(find "artifacts/$t" -type f | wc -l)
  crashes[$t]=$((after - before))
  if [ "$status" -ne 0 ] || [ "${crashes[$t]}" -ne 0 ]; then
    failed=1
    echo "fuzz.sh: $t failed (exit $status); log: $logs/$t.log" >&2
  fi
done

printf '%-16s %14s %8s\n' target executions crashes
for t in "${targets[@]}"; do
  printf '%-16s %14s %8s\n' "$t" "${execs[$t]:-?}" "${crashes[$t]}"
done
exit "$failed"
