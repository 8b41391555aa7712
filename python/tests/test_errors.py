"""Bad arguments raise Python exceptions that say what was wrong; none
aborts the interpreter, and a refused call leaves the environment usable."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import wsite

from conftest import CART, ROOT, SHOP

BAD_MAKE = [
    (dict(site=ROOT / "nowhere.wsite"), FileNotFoundError, "no site at"),
    (dict(site=42), TypeError, "`site` must be a path"),
    (dict(site=CART, task="nope"), ValueError, "has no task `nope`"),
    (dict(site=CART, task=[]), ValueError, "empty list"),
    (dict(site=CART, task=3), TypeError, "`task` must be"),
    (dict(site=CART, obs="pixels"), ValueError, "`obs` must be one of"),
    (dict(site=CART, render_mode="human"), ValueError, "`render_mode` must be one of"),
    (dict(site=CART, engine="gpu"), ValueError, "`engine` must be one of"),
    (dict(site=CART, engine="jit", obs="text"), ValueError, "need engine=\"interp\""),
    (dict(site=CART, reward="shaped"), ValueError, "unknown reward `shaped`"),
    (dict(site=CART, obs_spec={"max_elementz": 3}), ValueError, "unknown observation width"),
    (dict(site=CART, obs_spec={"max_actions": 0}), ValueError, "positive integer"),
    (dict(site=CART, obs_spec={"max_actions": 10**9}), ValueError, "must be 1 to 4096"),
    (dict(site=CART, obs_spec=[1, 2]), TypeError, "`obs_spec` must be a dict"),
    (dict(site=CART, simulator=5), TypeError, "`simulator` must be a shell command"),
]


@pytest.mark.parametrize("kwargs,error,message", BAD_MAKE, ids=lambda x: str(x)[:40])
def test_bad_make_arguments_raise(kwargs, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace('"', '"')):
        wsite.make(**kwargs)


BAD_VECTOR = [
    (dict(num_envs=0), ValueError, "`num_envs` must be a positive integer"),
    (dict(num_envs=2.5), ValueError, "`num_envs` must be a positive integer"),
    (dict(threads=0), ValueError, "`threads` must be a positive integer"),
    (dict(threads=5000), ValueError, "`threads` must be 1 to 1024"),
    (dict(seed=-1), ValueError, "between 0 and 2\\*\\*64 - 1"),
    (dict(seed=2**64), ValueError, "between 0 and 2\\*\\*64 - 1"),
    (dict(seed="1"), TypeError, "`seed` must be an integer"),
    (dict(autoreset="same_step"), ValueError, "`autoreset` must be one of"),
]


@pytest.mark.parametrize("kwargs,error,message", BAD_VECTOR, ids=lambda x: str(x)[:40])
def test_bad_vector_arguments_raise(kwargs, error, message):
    with pytest.raises(error, match=message):
        wsite.vector(CART, **{"num_envs": 2, **kwargs})


def test_a_site_with_errors_raises_its_diagnostics(tmp_path):
    broken = tmp_path / "broken.wsite"
    broken.write_text('site "x" {\n  page Home { text "{missing}" }\n')
    with pytest.raises(wsite.SiteError) as caught:
        wsite.make(broken)
    assert "broken.wsite" in str(caught.value) and "error" in str(caught.value)
    assert isinstance(caught.value, ValueError)
    binary = tmp_path / "junk.wsb"
    binary.write_bytes(b"\x00\xff" * 100)
    with pytest.raises(wsite.SiteError):
        wsite.make(binary)


def test_bad_steps_and_resets_raise_and_change_nothing():
    env = wsite.make(SHOP)
    obs, _ = env.reset(seed=0)
    for action, error in [("3", TypeError), (1.5, TypeError), (-1, ValueError), (env.max_actions, ValueError), (True, TypeError)]:
        with pytest.raises(error):
            env.step(action)
    for seed, error in [(-5, ValueError), ("x", TypeError), (1.0, TypeError)]:
        with pytest.raises(error):
            env.reset(seed=seed)
    with pytest.raises(TypeError, match="`options` must be a dict"):
        env.reset(options=["task"])
    # Still the same episode, and it steps.
    now = env._observation()
    assert all((now[k] == obs[k]).all() for k in obs)
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_bad_vector_steps_raise():
    envs = wsite.vector(CART, num_envs=3)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="expected 3 actions"):
        envs.step([0, 0])
    with pytest.raises(TypeError, match="must be integers"):
        envs.step(np.array([0.0, 0.0, 0.0]))
    with pytest.raises(ValueError, match="outside the action space"):
        envs.step(np.array([0, -1, 0]))
    with pytest.raises(ValueError, match="expected 3 seeds"):
        envs.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": [True]})
    envs.step(np.zeros(3, dtype=np.int64))


def test_stepping_before_reset_is_refused():
    env = wsite.make(CART)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)


def test_nothing_aborts_the_interpreter():
    # A child interpreter runs every misuse above and more; it must end
    # normally, having caught each one as an exception.
    code = f"""
import numpy as np, wsite
site = {str(CART)!r}
b = wsite.Batch(site, num_envs=2)
calls = [
    lambda: b.reset(99), lambda: b.text(0), lambda: b.instance_of(7), lambda: b.horizon(-1),
    lambda: b.reset(0, instance=10**6), lambda: wsite.Batch(site, num_envs=0),
    lambda: wsite.Batch(site, spec={{"vocab": 0}}), lambda: wsite.Batch(site, autoreset="x"),
    lambda: wsite.instances("/dev/null"), lambda: wsite.Batch("/"),
]
caught = 0
for call in calls:
    try:
        call()
    except (ValueError, TypeError, OverflowError, OSError):
        caught += 1
fields = dict((f[0], f) for f in b.fields())
actions = np.asarray(wsite._buffers._Memory(b, "<i4", (2,), fields["actions"][5], False))
actions[:] = 10**6
try:
    b.step()
except ValueError:
    caught += 1
print(caught)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "11", out.stdout + out.stderr


def test_unknown_options_are_named():
    env = wsite.make(CART)
    with pytest.raises(ValueError, match="unknown option 'reset_mask'; known: task"):
        env.reset(options={"reset_mask": [True]})
