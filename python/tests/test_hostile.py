"""Random calls with random arguments, good and bad, at volume: each call
either works (and what it returns lies in the declared spaces) or raises an
ordinary Python exception, and the environment stays usable throughout."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import wsite

from conftest import CART, SHOP

EXPECTED = (TypeError, ValueError, gym.error.ResetNeeded)

VALUES = [
    None, 0, 1, 3, -1, 2**64, 2**70, 1.5, float("nan"), "2", "", b"x", True,
    [], [0], {"task": 1}, {"task": "nope"}, {"task": "two_different_items"},
    np.int64(2), np.array(1), np.array([1, 2]), np.uint8(255), object(),
]


def hostile_single(seed: int, calls: int = 400) -> int:
    rng = np.random.default_rng(seed)
    env = wsite.make(CART)
    ok = 0
    for _ in range(calls):
        pick = VALUES[rng.integers(len(VALUES))]
        try:
            if rng.random() < 0.3:
                obs, info = env.reset(seed=pick if rng.random() < 0.5 else None,
                                      options=pick if rng.random() < 0.5 else None)
            else:
                row = pick if rng.random() < 0.4 else int(rng.integers(env.max_actions))
                obs, reward, terminated, truncated, info = env.step(row)
                assert isinstance(reward, float) and isinstance(terminated, bool)
            assert obs in env.observation_space
            ok += 1
        except EXPECTED:
            pass
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    return ok


@pytest.mark.parametrize("seed", range(4))
def test_random_calls_on_a_single_env(seed):
    assert hostile_single(seed) > 50


def test_random_calls_on_a_vector_env():
    rng = np.random.default_rng(9)
    envs = wsite.vector(SHOP, num_envs=4)
    envs.reset(seed=0)
    ok = 0
    for _ in range(600):
        pick = VALUES[rng.integers(len(VALUES))]
        try:
            roll = rng.random()
            if roll < 0.1:
                obs, _ = envs.reset(seed=pick, options=pick if rng.random() < 0.5 else None)
            elif roll < 0.3:
                obs, *_ = envs.step(pick)
            else:
                mask = envs.action_masks()
                rows = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
                if rng.random() < 0.2:
                    rows[rng.integers(4)] = rng.integers(-3, envs.max_actions + 3)
                obs, *_ = envs.step(rows)
            assert obs in envs.observation_space
            ok += 1
        except EXPECTED:
            pass
    assert ok > 300
