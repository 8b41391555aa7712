"""Stable-Baselines3 (sb3-contrib's MaskablePPO) learning a stdlib sample site.

    python python/examples/sb3_maskable.py [SITE] [--task NAME] [--steps N]

MaskablePPO reads the page's action mask through ``env.action_masks()``;
the policy is SB3's own ``MultiInputPolicy`` over the dict observation.
Prints the success rate of the greedy policy over 100 episodes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import wsite

HERE = Path(__file__).resolve().parent
DEFAULT_SITE = HERE.parents[1] / "stdlib" / "sites" / "cart.wsite"


def train(site: str, task: str, steps: int, seed: int = 0):
    from sb3_contrib import MaskablePPO

    env = wsite.make(site, task=task)
    model = MaskablePPO(
        "MultiInputPolicy", env, n_steps=256, batch_size=64, learning_rate=3e-4,
        ent_coef=0.01, seed=seed, verbose=0, device="cpu",
    )
    model.learn(total_timesteps=steps)
    return model, env


def success_rate(model, env, episodes: int = 100) -> float:
    wins = 0
    for k in range(episodes):
        obs, info = env.reset(seed=k)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, _, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        wins += info["success"]
    return wins / episodes


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("site", nargs="?", default=str(DEFAULT_SITE))
    p.add_argument("--task", default="two_different_items")
    p.add_argument("--steps", type=int, default=8192)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    model, env = train(a.site, a.task, a.steps, a.seed)
    rate = success_rate(model, env)
    print(f"MaskablePPO on {a.site} ({a.task}), {a.steps} steps: success {rate:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
