"""Steps per second of ``wsite.vector`` against the native batch, in one run.

    python python/bench/throughput.py [--site SITE] [--num-envs 64 256]
        [--threads 1 2] [--seconds 3]

For each batch size and thread count it opens one vector env (the JIT
engine) and measures, alternately so both see the same machine state:

- **native**: the batch stepped from Rust alone (``Batch.drive``: a uniformly
  random offered row per environment, chosen in Rust);
- **python**: ``envs.step`` called from Python with a uniformly random
  offered row per environment chosen by numpy — what a Python RL loop pays
  (argument checks, the mask check, the buffers handed back in place).

Prints one JSON line per configuration, with the ratio python/native.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import wsite

ROOT = Path(__file__).resolve().parents[2]


def python_rate(envs, seconds: float, rng) -> float:
    counts = envs._fields["action_count"].array
    n, steps = envs.num_envs, 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        for _ in range(50):
            rows = (rng.random(n) * np.maximum(counts, 1)).astype(np.int64)
            envs.step(rows)
        steps += 50
    return steps * n / (time.perf_counter() - started)


def native_rate(envs, seconds: float) -> float:
    steps, spent = 0, 0.0
    while spent < seconds:
        spent += envs._batch.drive(50, 7 + steps)
        steps += 50
    return steps * envs.num_envs / spent


def measure(site: str, num_envs: int, threads: int, seconds: float, rounds: int = 3) -> dict:
    envs = wsite.vector(site, num_envs=num_envs, threads=threads, seed=1)
    envs.reset(seed=1)
    rng = np.random.default_rng(0)
    python_rate(envs, 0.3, rng)  # warm the caches
    natives, pythons = [], []
    for _ in range(rounds):
        natives.append(native_rate(envs, seconds / rounds))
        pythons.append(python_rate(envs, seconds / rounds, rng))
    native, python = float(np.median(natives)), float(np.median(pythons))
    return {
        "site": Path(site).name,
        "engine": envs.engine,
        "num_envs": num_envs,
        "threads": threads,
        "native_steps_per_s": round(native),
        "python_steps_per_s": round(python),
        "ratio": round(python / native, 3),
    }


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--site", default=str(ROOT / "examples" / "ecommerce" / "trailhead.wsite"))
    p.add_argument("--num-envs", type=int, nargs="+", default=[64, 256])
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--seconds", type=float, default=3.0)
    a = p.parse_args(argv)
    for n in a.num_envs:
        for t in a.threads:
            print(json.dumps(measure(a.site, n, t, a.seconds)), flush=True)


if __name__ == "__main__":
    main()
