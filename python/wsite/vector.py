"""``wsite.vector``: N environments of one site as a
``gymnasium.vector.VectorEnv``, stepped together by the batched engine.

Observations, rewards and flags are numpy arrays over the engine's own
buffers: no step copies them (pass ``copy=True`` to get copies). They are
overwritten by the next ``step`` or ``reset``, like EnvPool's and the native
trainer's. Finished environments restart on their next step, whose action is
ignored (Gymnasium's ``NEXT_STEP`` autoreset); with ``autoreset="disabled"``
they wait for ``reset(options={"reset_mask": ...})``.

Every action must be a row the environment's page offers: the observation's
``action_mask`` (also ``infos["action_mask"]`` and :meth:`action_masks`)
says which. A masked-out row is a ``ValueError`` and nothing steps.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import batch_space

from . import _args
from ._buffers import views
from ._wsite import Batch
from .spaces import dict_space, per_env_arrays

try:  # Gymnasium 1.1 and later name the autoreset modes.
    from gymnasium.vector import AutoresetMode

    _MODES = {"next_step": AutoresetMode.NEXT_STEP, "disabled": AutoresetMode.DISABLED}
except ImportError:  # pragma: no cover - Gymnasium 1.0
    _MODES = {"next_step": "next_step", "disabled": "disabled"}


class WsiteVectorEnv(gym.vector.VectorEnv):
    """A batch of wsite environments (see the module docs)."""

    def __init__(
        self,
        site: Any,
        num_envs: int = 64,
        task: Union[None, str, Sequence[str]] = None,
        *,
        seed: int = 0,
        threads: Optional[int] = None,
        engine: str = "auto",
        reward: str = "dense",
        autoreset: str = "next_step",
        copy: bool = False,
        simulator: Optional[str] = None,
        simulator_timeout: float = 10.0,
        obs_spec: Optional[dict] = None,
        render_memo: int = 4096,
    ):
        num_envs = _args.positive(num_envs, "num_envs")
        _args.choice(autoreset, "autoreset", tuple(_MODES))
        _args.choice(engine, "engine", ("auto", "jit", "interp"))
        if threads is None:
            threads = max(1, min(num_envs, os.cpu_count() or 1))
        self._batch = Batch(
            _args.site_path(site),
            num_envs=num_envs,
            tasks=_args.task_names(task),
            seed=_args.seed(seed),
            threads=_args.positive(threads, "threads"),
            engine=engine,
            reward=reward,
            autoreset=autoreset,
            simulator=simulator,
            simulator_timeout=float(simulator_timeout),
            spec=_args.obs_spec(obs_spec),
            render_memo=_args.count(render_memo, "render_memo"),
        )
        self.metadata = {"autoreset_mode": _MODES[autoreset]}
        self.num_envs = num_envs
        self.copy = bool(copy)
        self._fields = views(self._batch)
        self._obs = per_env_arrays(self._fields)
        self.max_actions = self._fields["action_mask"].array.shape[1]
        self.single_observation_space = dict_space(self._fields)
        self.single_action_space = gym.spaces.Discrete(self.max_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = gym.spaces.MultiDiscrete(np.full(num_envs, self.max_actions))
        self._actions = self._fields["actions"].array
        self._mask = self._fields["action_mask"].array
        self._done = self._fields["done"].array.view(np.bool_)
        self._truncated = self._fields["truncated"].array.view(np.bool_)
        self._reward = self._fields["reward"].array
        self._envs = np.arange(num_envs)
        self._next_step = autoreset == "next_step"
        f = self._fields
        # Views made once: every step hands out the same memory.
        self._info_views = {
            "success": f["success"].array.view(np.bool_),
            "progress": f["progress"].array,
            "steps": f["steps"].array,
            "action_mask": self._mask.view(np.bool_),
            "episode_return": f["episode_return"].array,
            "episode_length": f["episode_length"].array,
        }

    def reset(
        self, *, seed: Union[None, int, Sequence[Optional[int]]] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        seeds = self._seeds(seed)
        options = _args.options(options, ("reset_mask", "task"))
        if seed is not None:
            self._np_random_seed = seeds[0]
            self._np_random = np.random.default_rng(seeds[0])
        mask = np.ones(self.num_envs, dtype=bool)
        if options.get("reset_mask") is not None:
            mask = np.asarray(options["reset_mask"], dtype=bool)
            if mask.shape != (self.num_envs,):
                raise ValueError(f'options["reset_mask"] must have shape ({self.num_envs},)')
        chosen = None
        if options.get("task") is not None:
            chosen = _args.instances_named(options["task"], self._batch.instances)
        for i in np.flatnonzero(mask):
            # A list seeds each environment; one seed seeds the batch as a new one would be.
            instance = None if chosen is None else chosen[int(self.np_random.integers(len(chosen)))]
            self._batch.reset(int(i), seed=seeds[i], instance=instance)
        return self._observation(), self._infos()

    def step(self, actions: Any):
        rows = _args.rows(actions, self.num_envs, self.max_actions)
        offered = self._mask[self._envs, rows] != 0
        if self._next_step:
            # Finished environments restart on this step, whatever their row.
            offered |= self._done
        if not offered.all():
            i = int(np.flatnonzero(~offered)[0])
            count = int(self._fields["action_count"].array[i])
            raise ValueError(
                f"environment {i} offers rows 0..{count - 1}; row {int(rows[i])} is masked out "
                f'(sample with the observation\'s "action_mask")'
            )
        self._actions[:] = rows
        self._batch.step()
        truncated = self._truncated
        terminated = self._done & ~truncated
        reward = self._reward
        if self.copy:
            reward, truncated = reward.copy(), truncated.copy()
        return self._observation(), reward, terminated, truncated, self._infos()

    def action_masks(self) -> np.ndarray:
        """``[num_envs, max_actions]``: the rows each page offers."""
        return self._info_views["action_mask"]

    def close_extras(self, **kwargs: Any) -> None:
        pass

    @property
    def engine(self) -> str:
        """``"jit"`` or ``"interp"``: the engine running the site."""
        return self._batch.engine

    @property
    def instances(self) -> Sequence[str]:
        """The task instances the batch draws from."""
        return self._batch.instances

    def _seeds(self, seed: Any) -> list:
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, (list, tuple)):
            if len(seed) != self.num_envs:
                raise ValueError(f"expected {self.num_envs} seeds, got {len(seed)}")
            return [_args.seed(s) for s in seed]
        one = _args.seed(seed)
        return [one] * self.num_envs

    def _observation(self) -> Dict[str, np.ndarray]:
        if self.copy:
            return {k: a.copy() for k, a in self._obs.items()}
        return dict(self._obs)

    def _infos(self) -> Dict[str, Any]:
        if self.copy:
            return {k: v.copy() for k, v in self._info_views.items()}
        # A dict of its own (wrappers add keys), over the same arrays.
        return dict(self._info_views)
