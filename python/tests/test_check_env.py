"""Gymnasium's own environment checker, a client nobody here wrote, passes
on every example and every stdlib sample site, in both observation forms."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import wsite

from conftest import EXAMPLES, STDLIB_SITES


def test_the_sites_are_there():
    # Six domains of examples and the stdlib samples: a glob that found
    # nothing would make the checks below vacuous.
    assert len(EXAMPLES) >= 6
    assert len(STDLIB_SITES) >= 8


@pytest.mark.parametrize("site", EXAMPLES + STDLIB_SITES, ids=lambda p: p.stem)
def test_check_env_passes_on_the_dict_observation(site):
    env = wsite.make(site)
    check_env(env, skip_render_check=True)


@pytest.mark.parametrize("site", EXAMPLES, ids=lambda p: p.stem)
def test_check_env_passes_on_the_text_observation_with_rendering(site):
    # Through `gymnasium.make`, so the checker also tries the other render modes.
    env = gym.make("wsite/Site-v0", site=str(site), obs="text", render_mode="ansi")
    check_env(env.unwrapped)
    assert env.unwrapped.engine == "interp"
