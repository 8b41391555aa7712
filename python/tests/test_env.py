"""`wsite.make`: episodes, seeds and options, the action mask, the text form,
invalid rows, artifacts, and the single environment against the batch."""

from __future__ import annotations

import numpy as np
import pytest
import gymnasium as gym

import wsite

from conftest import CART, ECHO, HELPDESK, SHOP


def play(env, seed, policy, limit=500):
    """Plays one episode; returns (observations, rewards, final info)."""
    obs, info = env.reset(seed=seed)
    seen, rewards = [obs], []
    for _ in range(limit):
        obs, reward, terminated, truncated, info = env.step(policy(env, info))
        seen.append(obs)
        rewards.append(reward)
        if terminated or truncated:
            return seen, rewards, info
    raise AssertionError("the episode never ended")


def first_offered(env, info):
    return int(np.flatnonzero(info["action_mask"])[0])


def test_a_seed_replays_the_same_episode():
    env = wsite.make(SHOP)
    a = play(env, 5, first_offered)
    b = play(env, 5, first_offered)
    assert [o["text"].tolist() for o in a[0]] == [o["text"].tolist() for o in b[0]]
    assert a[1] == b[1]


def test_seeds_draw_different_instances():
    env = wsite.make(SHOP)
    tasks = {env.reset(seed=s)[1]["task"] for s in range(40)}
    assert len(tasks) > 3, tasks


def test_options_name_the_instance_or_the_task():
    env = wsite.make(CART)
    _, info = env.reset(options={"task": "add_then_remove[i=2]"})
    assert info["task"] == "add_then_remove[i=2]"
    drawn = {env.reset(seed=s, options={"task": "add_then_remove"})[1]["task"] for s in range(20)}
    assert drawn == {"add_then_remove[i=1]", "add_then_remove[i=2]"}
    with pytest.raises(ValueError, match="plays no task `nope`"):
        env.reset(options={"task": "nope"})


def test_the_task_argument_restricts_the_instances():
    env = wsite.make(CART, task="two_different_items")
    assert list(env.instances) == ["two_different_items"]
    assert all(env.reset(seed=s)[1]["task"] == "two_different_items" for s in range(5))


def test_the_mask_marks_the_offered_rows_and_the_observation_agrees():
    env = wsite.make(SHOP)
    obs, info = env.reset(seed=2)
    mask = env.action_masks()
    count = int(obs["action_count"][0])
    assert mask.dtype == bool and mask.sum() == count > 0
    assert (obs["action_mask"] == mask).all() and (info["action_mask"] == mask).all()
    assert (obs["action_kind"][:count] > 0).all() and (obs["action_kind"][count:] == 0).all()


def test_an_offered_row_steps_and_an_episode_ends_then_needs_a_reset():
    env = wsite.make(CART, task="two_different_items")
    _, _, info = play(env, 0, first_offered)
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    env.reset()
    env.step(first_offered(env, {"action_mask": env.action_masks()}))


def test_a_row_the_page_does_not_offer_changes_nothing_but_costs_a_step():
    env = wsite.make(CART, task="two_different_items", invalid_action_penalty=0.5)
    obs, info = env.reset(seed=1)
    row = int(np.flatnonzero(~env.action_masks())[0])
    after, reward, terminated, truncated, info2 = env.step(row)
    assert reward == -0.5 and not terminated and info2["invalid_action"]
    assert info2["steps"] == 1
    for key in obs:
        assert (after[key] == obs[key]).all(), key
    # Enough of them run out the step budget.
    truncated = False
    for _ in range(10_000):
        _, _, terminated, truncated, _ = env.step(row)
        if truncated:
            break
    assert truncated and not terminated


def test_the_text_form_numbers_the_rows_as_actions():
    env = wsite.make(SHOP, obs="text", render_mode="ansi")
    text, info = env.reset(seed=0)
    assert text.startswith("url: /") and "instruction:" in text and "[1] " in text
    listed = [line for line in text.splitlines() if line[:1].isdigit() and ": " in line]
    assert len(listed) == int(info["action_mask"].sum())
    assert listed[0].startswith("0: ")
    assert env.render() == text
    # Taking row k does what line k says: a click on a link changes the page.
    cart = next(line for line in text.splitlines() if line.startswith("[") and "Cart" in line)
    element = cart.split("]")[0] + "]"
    link = next(line for line in listed if line.endswith(f"click {element}"))
    row = int(link.split(":")[0])
    text2, *_ = env.step(row)
    assert text2.splitlines()[0] != text.splitlines()[0]


def test_a_built_artifact_opens_like_its_source(cart_wsb):
    a, b = wsite.make(CART), wsite.make(cart_wsb)
    assert list(a.instances) == list(b.instances)
    oa, _ = a.reset(seed=3)
    ob, _ = b.reset(seed=3)
    assert all((oa[k] == ob[k]).all() for k in oa)


def test_both_engines_give_the_same_episodes():
    jit = wsite.make(SHOP, engine="jit")
    interp = wsite.make(SHOP, engine="interp")
    assert (jit.engine, interp.engine) == ("jit", "interp")
    rng = np.random.default_rng(0)
    for episode in range(5):
        oj, ij = jit.reset(seed=episode)
        oi, ii = interp.reset(seed=episode)
        for _ in range(60):
            assert all((oj[k] == oi[k]).all() for k in oj), k
            for key in ("task", "steps", "success", "progress"):
                assert ij[key] == ii[key], key
            assert (ij["action_mask"] == ii["action_mask"]).all()
            row = int(rng.choice(np.flatnonzero(ij["action_mask"])))
            oj, rj, tj, uj, ij = jit.step(row)
            oi, ri, ti, ui, ii = interp.step(row)
            assert (rj, tj, uj) == (ri, ti, ui)
            if tj or uj:
                break


def _click_draft(env):
    """Clicks the helpdesk's `#draft` button (the extern marker) by its row."""
    text, _ = env.reset(seed=0)
    draft = next(l for l in text.splitlines() if "button \"Draft" in l)
    element = draft.split("]")[0] + "]"
    row = next(l for l in text.splitlines() if l.endswith(f"click {element}")).split(":")[0]
    return env.step(int(row))


def test_a_simulator_proposes_the_extern_markers_effects():
    delta = '{"set": [{"table": "Ticket", "id": "{t}", "field": "reply", "value": "On it"}]}'
    command = f"python3 {ECHO} '{delta}'"
    env = wsite.make(HELPDESK, task="answer_printer", obs="text", simulator=command)
    assert env.engine == "interp"
    text, reward, terminated, _, info = _click_draft(env)
    assert "Reply: On it" in text and info["success"] and terminated
    # Without a simulator the marker's `default` body runs.
    plain = wsite.make(HELPDESK, task="answer_printer", obs="text")
    text, *_ = _click_draft(plain)
    assert "Reply: Thanks for writing" in text


def test_a_refused_proposal_is_a_rejected_step():
    delta = '{"set": [{"table": "Ticket", "id": "{t}", "field": "subject", "value": "x"}]}'
    env = wsite.make(HELPDESK, task="answer_printer", obs="text", simulator=f"python3 {ECHO} '{delta}'")
    text, reward, terminated, _, info = _click_draft(env)
    assert 'alert: "proposal refused:' in text and not terminated and not info["success"]
    assert reward < 0


def test_the_simulator_arguments_are_checked():
    with pytest.raises(ValueError, match="simulator_timeout"):
        wsite.make(HELPDESK, simulator="cat", simulator_timeout=-1)
    with pytest.raises(ValueError, match='engine="jit" runs neither a simulator'):
        wsite.make(HELPDESK, simulator="cat", engine="jit")


def test_gymnasium_make_finds_the_registered_id():
    env = gym.make("wsite/Site-v0", site=str(SHOP), obs="text", render_mode="ansi")
    text, _ = env.reset(seed=1)
    assert text.startswith("url: ")
    from gymnasium.utils.env_checker import check_env

    check_env(env.unwrapped)
