"""wsite environment runners as Ray actors.

    python python/examples/ray_runners.py [--site SITE] [--workers 2]
        [--num-envs 64] [--steps 2000] [--address auto]

Each actor holds one ``wsite.vector`` batch and steps it with a uniformly
random policy over the offered rows, returning its step count and time; the
driver adds them up. Without ``--address`` it starts a local Ray; with
``--address auto`` (or ``ray://host:10001``) it joins a running cluster,
whose nodes each need wsite installed (docs/python.md, "Ray").
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import ray

ROOT = Path(__file__).resolve().parents[2]


@ray.remote(num_cpus=1)
class EnvRunner:
    """One batch of environments in its own process."""

    def __init__(self, site: str, num_envs: int, seed: int):
        import wsite

        self.envs = wsite.vector(site, num_envs=num_envs, seed=seed, threads=1)
        self.rng = np.random.default_rng(seed)
        self.envs.reset(seed=seed)

    def run(self, steps: int) -> dict:
        n = self.envs.num_envs
        counts = self.envs._fields["action_count"].array
        episodes = wins = 0
        started = time.perf_counter()
        for _ in range(steps):
            rows = (self.rng.random(n) * np.maximum(counts, 1)).astype(np.int64)
            _, _, terminated, truncated, info = self.envs.step(rows)
            done = terminated | truncated
            episodes += int(done.sum())
            wins += int((info["success"] & done).sum())
        seconds = time.perf_counter() - started
        return {"steps": steps * n, "seconds": seconds, "episodes": episodes, "successes": wins}

    def native(self, steps: int) -> dict:
        """The same batch stepped from Rust alone, for the overhead."""
        seconds = self.envs._batch.drive(steps, 7)
        return {"steps": steps * self.envs.num_envs, "seconds": seconds}


def run(site: str, workers: int, num_envs: int, steps: int, address=None) -> dict:
    if not ray.is_initialized():
        if address:
            ray.init(address=address)
        else:
            ray.init(num_cpus=max(2, workers), include_dashboard=False, log_to_driver=False)
    runners = [EnvRunner.remote(site, num_envs, seed) for seed in range(workers)]
    ray.get([r.run.remote(10) for r in runners])  # warm up: load and JIT once
    started = time.perf_counter()
    results = ray.get([r.run.remote(steps) for r in runners])
    wall = time.perf_counter() - started
    total = sum(r["steps"] for r in results)
    native = ray.get([r.native.remote(steps) for r in runners])
    native_rate = sum(r["steps"] / r["seconds"] for r in native)
    return {
        "workers": workers,
        "num_envs": num_envs,
        "steps": total,
        "episodes": sum(r["episodes"] for r in results),
        "steps_per_s": total / wall,
        "native_steps_per_s": native_rate,
    }


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--site", default=str(ROOT / "stdlib" / "sites" / "cart.wsite"))
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--address", default=None)
    a = p.parse_args(argv)
    result = run(a.site, a.workers, a.num_envs, a.steps, a.address)
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
