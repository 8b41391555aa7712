"""Real clients: Stable-Baselines3's MaskablePPO learns a stdlib sample
site, the CleanRL-style example trains, and wsite environments run as Ray
actors on a local cluster."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from conftest import CART, ROOT

EXAMPLES = ROOT / "python" / "examples"


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_maskable_ppo_learns_the_cart_site():
    example = load_example("sb3_maskable")
    model, env = example.train(str(CART), "two_different_items", steps=8192, seed=0)
    rate = example.success_rate(model, env, episodes=100)
    assert rate >= 0.95, f"MaskablePPO reached {rate:.0%}"


def test_maskable_ppo_without_training_does_not_succeed():
    # The bar above is not met by chance: an untrained policy fails.
    example = load_example("sb3_maskable")
    model, env = example.train(str(CART), "two_different_items", steps=0, seed=0)
    assert example.success_rate(model, env, episodes=50) < 0.5


def test_the_cleanrl_style_example_trains():
    example = load_example("cleanrl_ppo")
    rate = example.main(["--total-timesteps", "4096", "--num-envs", "8", "--num-steps", "64"])
    assert 0.0 <= rate <= 1.0


@pytest.fixture(scope="module")
def ray_cluster():
    import ray
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_env_runners_run_as_ray_actors(ray_cluster):
    example = load_example("ray_runners")
    one = example.run(str(CART), workers=1, num_envs=16, steps=200)
    two = example.run(str(CART), workers=2, num_envs=16, steps=200)
    assert one["steps"] == 16 * 200 and two["steps"] == 2 * 16 * 200
    assert one["episodes"] > 0 and two["episodes"] > 0
    assert one["steps_per_s"] > 0 and two["native_steps_per_s"] > 0
