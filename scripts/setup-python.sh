#!/usr/bin/env bash
# Sets up the project's Python virtualenv (.venv) and installs the wsite
# package into it, its Rust extension built in release by maturin from
# python/. Usage: setup-python.sh [core|all]: `core` installs what the
# package needs (numpy, Gymnasium); `all` (the default) adds what its tests,
# examples and benchmarks use (pytest, PyTorch 2.11.0, Stable-Baselines3,
# sb3-contrib, Ray), all from PyPI. Prints the virtualenv's python.
# Idempotent: a second run installs nothing new and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-all}
case "$what" in
  core) requirements=python/requirements-core.txt ;;
  all) requirements=python/requirements-test.txt ;;
  *) echo "usage: $0 [core|all]" >&2; exit 2 ;;
esac
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

venv=.venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check --quiet)
"${pip[@]}" install -r "$requirements" >&2
# `maturin develop` builds the extension (abi3, release) into target/ and
# installs the package in editable form: python/wsite is what is imported.
(
  cd python
  VIRTUAL_ENV="$PWD/../$venv" PATH="$PWD/../$venv/bin:$PATH" \
    maturin develop --release --locked --quiet >&2
)
echo "$PWD/$venv/bin/python"
