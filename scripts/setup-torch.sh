#!/usr/bin/env bash
# Fetches PyTorch 2.11.0's C++ libraries for tch (the `train` feature) into
# .torch/torch: the torch wheel from PyPI without its Python dependencies,
# unpacked to its lib/ and include/, plus the two CUDA runtime libraries its
# CPU library is linked against (libcudart, libcupti: 15 MB; the rest of CUDA,
# 4 GB, is only needed on a GPU machine, which brings its own). Prints the
# directory, which is what LIBTORCH must name. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

dest=.torch
lib="$dest/torch/lib/libtorch_cpu.so"
if [ ! -f "$lib" ]; then
  python3 -m pip download --quiet --disable-pip-version-check \
    --no-deps --only-binary=:all: torch==2.11.0 -d "$dest/wheel" >&2
  python3 -m pip download --quiet --disable-pip-version-check \
    --only-binary=:all: "cuda-toolkit[cudart,cupti]==13.0.2" -d "$dest/wheel" >&2
  python3 - "$dest" <<'PY'
import glob, os, sys, zipfile
dest = sys.argv[1]
wheel = sorted(glob.glob(f"{dest}/wheel/torch-2.11.0-*.whl"))[-1]
with zipfile.ZipFile(wheel) as z:
    wanted = [n for n in z.namelist()
              if n.startswith(("torch/lib/", "torch/include/", "torch/share/"))
              or n == "torch/version.py"]
    z.extractall(dest, members=wanted)
for wheel in glob.glob(f"{dest}/wheel/nvidia_cuda_*.whl"):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            base = os.path.basename(name)
            if base in ("libcudart.so.13", "libcupti.so.13"):
                with open(f"{dest}/torch/lib/{base}", "wb") as out:
                    out.write(z.read(name))
PY
  rm -rf "$dest/wheel"
fi
echo "$PWD/$dest/torch"
