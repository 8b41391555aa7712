"""Checks of the arguments users pass, each failing with a sentence that
names the argument and what it takes (a bad argument never reaches Rust as
something it must guess about)."""

from __future__ import annotations

import numbers
import os
from typing import Any, List, Optional, Sequence, Union

import numpy as np

#: The largest seed: the batch's generators are seeded with 64 bits.
SEED_MAX = (1 << 64) - 1


def site_path(site: Any) -> str:
    """A path to a ``.wsite`` file, a directory of them or a ``.wsb``."""
    try:
        path = os.fspath(site)
    except TypeError:
        raise TypeError(
            f"`site` must be a path to a .wsite file, a directory or a .wsb, "
            f"not {type(site).__name__}"
        ) from None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no site at `{path}`")
    return path


def task_names(task: Union[None, str, Sequence[str]]) -> Optional[List[str]]:
    """``None`` (every task), one name, or a list of names."""
    if task is None:
        return None
    if isinstance(task, str):
        return [task]
    if isinstance(task, (list, tuple)) and all(isinstance(t, str) for t in task):
        if not task:
            raise ValueError("`task` is an empty list: name at least one task")
        return list(task)
    raise TypeError(f"`task` must be a task name or a list of names, not {task!r}")


def seed(value: Any, name: str = "seed") -> Optional[int]:
    """``None`` or an integer in ``0 .. 2**64 - 1``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"`{name}` must be an integer or None, not {value!r}")
    value = int(value)
    if not 0 <= value <= SEED_MAX:
        raise ValueError(f"`{name}` must be between 0 and 2**64 - 1, not {value}")
    return value


def positive(value: Any, name: str) -> int:
    """An integer of at least 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"`{name}` must be a positive integer, not {value!r}")
    return int(value)


def count(value: Any, name: str) -> int:
    """An integer of at least 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"`{name}` must be an integer of at least 0, not {value!r}")
    return int(value)


def choice(value: Any, name: str, allowed: Sequence[Any]) -> Any:
    """One of ``allowed``."""
    if value not in allowed:
        names = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"`{name}` must be one of {names}, not {value!r}")
    return value


def obs_spec(spec: Any) -> Optional[dict]:
    """``None`` or a dict of observation widths (checked again in Rust)."""
    if spec is None:
        return None
    if not isinstance(spec, dict) or not all(isinstance(k, str) for k in spec):
        raise TypeError(f"`obs_spec` must be a dict of widths by name, not {spec!r}")
    for key, width in spec.items():
        positive(width, f"obs_spec[{key!r}]")
    return {k: int(v) for k, v in spec.items()}


def options(value: Any, known: Sequence[str]) -> dict:
    """``None`` or a dict whose keys are among ``known``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TypeError(f"`options` must be a dict, not {value!r}")
    unknown = [k for k in value if k not in known]
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r}; known: {', '.join(known)}")
    return value


def instances_named(name: Any, names: Sequence[str]) -> List[int]:
    """The indices in ``names`` of the instance called ``name``, or of every
    instance of the task called ``name``."""
    if not isinstance(name, str):
        raise TypeError(f'options["task"] must be a task name, not {name!r}')
    if name in names:
        return [list(names).index(name)]
    matching = [i for i, n in enumerate(names) if n.split("[")[0] == name]
    if not matching:
        raise ValueError(f"this environment plays no task `{name}`; it plays: {', '.join(names)}")
    return matching


def row(action: Any, max_actions: int) -> int:
    """One action: an integer row of the action table."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if isinstance(action, bool) or not isinstance(action, numbers.Integral):
        raise TypeError(f"an action is an integer row of the action table, not {action!r}")
    action = int(action)
    if not 0 <= action < max_actions:
        raise ValueError(f"action {action} is outside the action space 0..{max_actions - 1}")
    return action


def rows(actions: Any, num_envs: int, max_actions: int) -> np.ndarray:
    """One integer row per environment."""
    array = np.asarray(actions)
    if array.shape != (num_envs,):
        raise ValueError(f"expected {num_envs} actions (one per environment), got shape {array.shape}")
    if array.dtype.kind not in "iu":
        raise TypeError(f"actions must be integers, not {array.dtype}")
    # One pass: a negative row, seen as unsigned, is as large as any.
    if (array.astype(np.uint64, copy=False) >= max_actions).any():
        bad = int(array[(array < 0) | (array >= max_actions)][0])
        raise ValueError(f"action {bad} is outside the action space 0..{max_actions - 1}")
    return array
