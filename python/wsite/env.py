"""``wsite.make``: one site as a ``gymnasium.Env``.

An episode plays one task instance; ``reset(seed=...)`` draws it as a batch
seeded so would, and ``reset(options={"task": name})`` names it (a task name
draws among its instances). The observation is a dict of fixed-shape arrays
(:mod:`wsite.spaces`) or, with ``obs="text"``, the page in §5.2's text form
with the action table numbered by row. The action is a row of the action
table, ``Discrete(max_actions)``; ``info["action_mask"]`` and
:meth:`WsiteEnv.action_masks` say which rows the page offers.

A row the page does not offer changes nothing on the site, is penalised as a
rejected step (``invalid_action_penalty``) and counts against the task's step
budget; ``info["invalid_action"]`` says so. (Generic clients, like
Gymnasium's checker, sample any row of the action space.)
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple, Union

import gymnasium as gym
import numpy as np

from . import _args
from ._buffers import views
from ._wsite import Batch
from .spaces import PageText, dict_space, per_env_arrays


class WsiteEnv(gym.Env):
    """A wsite site as a Gymnasium environment (see the module docs)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        site: Any,
        task: Union[None, str, Sequence[str]] = None,
        *,
        obs: str = "dict",
        render_mode: Optional[str] = None,
        engine: str = "auto",
        reward: str = "dense",
        simulator: Optional[str] = None,
        simulator_timeout: float = 10.0,
        obs_spec: Optional[dict] = None,
        invalid_action_penalty: float = 0.2,
    ):
        _args.choice(obs, "obs", ("dict", "text"))
        _args.choice(render_mode, "render_mode", (None, "ansi"))
        _args.choice(engine, "engine", ("auto", "jit", "interp"))
        needs_text = obs == "text" or render_mode == "ansi"
        if needs_text and engine == "jit":
            raise ValueError('the text observation and "ansi" rendering need engine="interp" or "auto"')
        if simulator is not None and not isinstance(simulator, str):
            raise TypeError(f"`simulator` must be a shell command, not {simulator!r}")
        self._batch = Batch(
            _args.site_path(site),
            num_envs=1,
            tasks=_args.task_names(task),
            seed=0,
            threads=1,
            engine="interp" if needs_text else engine,
            reward=reward,
            autoreset="disabled",
            simulator=simulator,
            simulator_timeout=float(simulator_timeout),
            spec=_args.obs_spec(obs_spec),
        )
        self._fields = views(self._batch)
        self._obs_arrays = per_env_arrays(self._fields)
        self._text = obs == "text"
        self.render_mode = render_mode
        self.invalid_action_penalty = float(invalid_action_penalty)
        self.max_actions = self._fields["action_mask"].array.shape[1]
        self.action_space = gym.spaces.Discrete(self.max_actions)
        self.observation_space = PageText() if self._text else dict_space(self._fields)
        self._invalid = 0
        self._over = True

    # -- Gymnasium API -----------------------------------------------------

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[Any, Dict[str, Any]]:
        seed = _args.seed(seed)
        super().reset(seed=seed)
        instance = self._chosen_instance(options)
        self._batch.reset(0, seed=seed, instance=instance)
        self._invalid = 0
        self._over = False
        return self._observation(), self._info(invalid=False)

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        if self._over:
            raise gym.error.ResetNeeded("the episode is over (or never began): call reset() first")
        row = _args.row(action, self.max_actions)
        f = self._fields
        if not f["action_mask"].array[0, row]:
            return self._invalid_step()
        f["actions"].array[0] = row
        self._batch.step()
        terminated = bool(f["done"].array[0]) and not f["truncated"].array[0]
        truncated = bool(f["truncated"].array[0])
        self._over = terminated or truncated
        reward = float(f["reward"].array[0])
        return self._observation(), reward, terminated, truncated, self._info(invalid=False)

    def render(self) -> Optional[str]:
        if self.render_mode == "ansi":
            return self._batch.text(0)
        return None

    def close(self) -> None:
        self._over = True

    # -- beyond Gymnasium ----------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """Which rows of the action space the page offers (sb3-contrib's
        ``MaskablePPO`` asks for this)."""
        return self._fields["action_mask"].array[0].astype(bool)

    @property
    def instances(self) -> Sequence[str]:
        """The task instances this environment plays."""
        return self._batch.instances

    @property
    def engine(self) -> str:
        """``"jit"`` or ``"interp"``: the engine running the site."""
        return self._batch.engine

    # -- helpers ---------------------------------------------------------------

    def _chosen_instance(self, options: Optional[Dict[str, Any]]) -> Optional[int]:
        name = _args.options(options, ("task",)).get("task")
        if name is None:
            return None
        matching = _args.instances_named(name, self._batch.instances)
        return matching[int(self.np_random.integers(len(matching)))]

    def _invalid_step(self) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        self._invalid += 1
        steps = int(self._fields["steps"].array[0]) + self._invalid
        truncated = steps >= self._batch.horizon(0)
        self._over = truncated
        return self._observation(), -self.invalid_action_penalty, False, truncated, self._info(invalid=True)

    def _observation(self) -> Any:
        if self._text:
            return self._batch.text(0)
        return {key: array[0].copy() for key, array in self._obs_arrays.items()}

    def _info(self, invalid: bool) -> Dict[str, Any]:
        f = self._fields
        return {
            "task": self._batch.instance_of(0),
            "steps": int(f["steps"].array[0]) + self._invalid,
            "success": bool(f["success"].array[0]),
            "progress": float(f["progress"].array[0]),
            "action_mask": self.action_masks(),
            "invalid_action": invalid,
        }
