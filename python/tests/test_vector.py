"""`wsite.vector`: buffers read in place, Gymnasium's NEXT_STEP autoreset,
partial resets, masked-out rows refused, and the vector env against single
environments and against the other engine."""

from __future__ import annotations

import numpy as np
import pytest

import wsite

from conftest import CART, SHOP


def random_rows(envs, rng):
    counts = envs._fields["action_count"].array
    return (rng.random(envs.num_envs) * np.maximum(counts, 1)).astype(np.int64)


def test_spaces_describe_what_step_returns():
    envs = wsite.vector(SHOP, num_envs=4)
    obs, infos = envs.reset(seed=0)
    assert obs in envs.observation_space
    assert envs.single_action_space.n == envs.max_actions
    obs, reward, terminated, truncated, infos = envs.step(random_rows(envs, np.random.default_rng(0)))
    assert obs in envs.observation_space
    assert reward.shape == terminated.shape == truncated.shape == (4,)
    assert terminated.dtype == truncated.dtype == bool


def test_observations_are_the_engine_buffers_not_copies():
    envs = wsite.vector(SHOP, num_envs=4)
    obs, _ = envs.reset(seed=0)
    before = {k: v.ctypes.data for k, v in obs.items()}
    rng = np.random.default_rng(1)
    for _ in range(20):
        obs, *_ = envs.step(random_rows(envs, rng))
    assert {k: v.ctypes.data for k, v in obs.items()} == before
    assert all(not v.flags.owndata for v in obs.values())
    # copy=True hands out arrays of their own.
    copied = wsite.vector(SHOP, num_envs=4, copy=True)
    first, _ = copied.reset(seed=0)
    snapshot = {k: v.copy() for k, v in first.items()}
    copied.step(random_rows(copied, rng))
    assert all((first[k] == snapshot[k]).all() for k in first)


def test_observations_in_place_are_read_only():
    # The batch leaves rows it zeroed once alone, so an observation written
    # from Python would leak into later ones: numpy refuses the write.
    envs = wsite.vector(SHOP, num_envs=2)
    obs, _ = envs.reset(seed=0)
    for key, array in obs.items():
        assert not array.flags.writeable, key
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0
    obs, *_ = envs.step(random_rows(envs, np.random.default_rng(2)))
    assert obs["action_count"].min() >= 1


def test_a_finished_environment_shows_its_end_then_restarts_on_the_next_step():
    envs = wsite.vector(CART, num_envs=3, seed=4)
    envs.reset(seed=4)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(400):
        obs, reward, terminated, truncated, infos = envs.step(random_rows(envs, rng))
        done = terminated | truncated
        steps = infos["steps"].copy()
        if done.any():
            ended += int(done.sum())
            assert (steps[done] > 0).all(), "a final observation shows the steps taken"
            obs, reward, terminated, truncated, infos = envs.step(random_rows(envs, rng))
            assert (infos["steps"][done] == 0).all() and (reward[done] == 0).all()
            assert not (terminated[done] | truncated[done]).any()
    assert ended > 0


def test_the_vector_env_plays_what_single_environments_play():
    # Environment i of a vector seeded s, and a single environment reset with
    # the seeds the batch gives it, see the same pages for the same rows.
    envs = wsite.vector(SHOP, num_envs=3, seed=9)
    obs, infos = envs.reset(seed=9)
    singles = [wsite.make(SHOP) for _ in range(3)]
    tasks = [envs._batch.instance_of(i) for i in range(3)]
    single_obs = [s.reset(options={"task": t})[0] for s, t in zip(singles, tasks)]
    rng = np.random.default_rng(3)
    for _ in range(15):
        for i in range(3):
            for key in ("text", "action_text", "instruction"):
                assert (obs[key][i] == single_obs[i][key]).all(), key
        rows = random_rows(envs, rng)
        obs, reward, terminated, truncated, _ = envs.step(rows)
        if (terminated | truncated).any():
            break
        for i in range(3):
            single_obs[i], r, *_ = singles[i].step(int(rows[i]))
            assert r == pytest.approx(float(reward[i]))


def assert_play_alike(first, second, seed, steps):
    """Steps two vector envs with the same random rows, demanding equal
    observations, rewards and ends after every step."""
    rng = np.random.default_rng(seed)
    a, _ = first.reset(seed=seed)
    b, _ = second.reset(seed=seed)
    for step in range(steps):
        for key in a:
            assert (a[key] == b[key]).all(), (step, key)
        rows = random_rows(first, rng)
        a, ra, ta, ua, _ = first.step(rows)
        b, rb, tb, ub, _ = second.step(rows)
        assert (ra == rb).all() and (ta == tb).all() and (ua == ub).all()


def test_the_jit_and_the_interpreter_vectors_agree():
    jit = wsite.vector(SHOP, num_envs=6, engine="jit", seed=2)
    interp = wsite.vector(SHOP, num_envs=6, engine="interp", seed=2)
    assert_play_alike(jit, interp, 2, 200)


def test_remembered_pages_change_no_observation():
    remembering = wsite.vector(SHOP, num_envs=6, engine="jit", seed=4)
    rendering = wsite.vector(SHOP, num_envs=6, engine="jit", seed=4, render_memo=0)
    assert_play_alike(remembering, rendering, 4, 300)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "big", 1 << 20])
def test_a_bad_render_memo_is_refused(bad):
    with pytest.raises(ValueError, match="render_memo"):
        wsite.vector(CART, num_envs=1, render_memo=bad)


def test_a_masked_out_row_is_refused_and_nothing_steps():
    envs = wsite.vector(CART, num_envs=2)
    obs, _ = envs.reset(seed=0)
    snapshot = {k: v.copy() for k, v in obs.items()}
    rows = np.zeros(2, dtype=np.int64)
    rows[1] = envs.max_actions - 1
    with pytest.raises(ValueError, match="environment 1 offers rows"):
        envs.step(rows)
    assert all((obs[k] == snapshot[k]).all() for k in obs)


def test_a_reset_mask_restarts_only_the_chosen_environments():
    envs = wsite.vector(CART, num_envs=3, autoreset="disabled")
    envs.reset(seed=1)
    rng = np.random.default_rng(4)
    envs.step(random_rows(envs, rng))
    steps = envs._fields["steps"].array
    assert (steps == 1).all()
    envs.reset(options={"reset_mask": np.array([True, False, True])})
    assert steps.tolist() == [0, 1, 0]


def test_seeds_reproduce_and_differ():
    a = wsite.vector(SHOP, num_envs=8)
    b = wsite.vector(SHOP, num_envs=8)
    oa, _ = a.reset(seed=11)
    ob, _ = b.reset(seed=11)
    assert (oa["instruction"] == ob["instruction"]).all()
    oc, _ = b.reset(seed=[1, 2, 3, 4, 5, 6, 7, 8])
    tasks = {b._batch.instance_of(i) for i in range(8)}
    assert len(tasks) > 1


def test_options_name_a_task_for_the_reset_environments():
    envs = wsite.vector(CART, num_envs=4)
    envs.reset(seed=0, options={"task": "add_then_remove"})
    tasks = {envs._batch.instance_of(i) for i in range(4)}
    assert tasks <= {"add_then_remove[i=1]", "add_then_remove[i=2]"}
    envs.reset(options={"task": "two_different_items", "reset_mask": [True, False, False, False]})
    assert envs._batch.instance_of(0) == "two_different_items"
    with pytest.raises(ValueError, match="unknown option 'tsak'"):
        envs.reset(options={"tsak": "x"})
