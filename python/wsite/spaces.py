"""The observation and action spaces of wsite environments.

The dict observation has one entry per buffer the policy reads (the §5.2
observation: instruction, page label, alert, elements, action table, recent
actions) plus ``action_mask``; counts have shape ``(1,)``. Token ids are
``int32`` below the vocabulary size, small codes ``uint8``. The text
observation is a string of any characters (:class:`PageText`).
"""

from __future__ import annotations

from typing import Any, Dict

import numpy as np
from gymnasium import spaces

from ._buffers import Field

#: The buffers a dict observation holds, in order.
OBS_KEYS = (
    "instruction",
    "page",
    "alert",
    "element_count",
    "role",
    "flags",
    "text",
    "value",
    "context",
    "sibling",
    "action_count",
    "action_kind",
    "action_element",
    "action_text",
    "action_mask",
    "history_kind",
    "history_text",
)

#: Buffers of one number per environment, shown with shape ``(1,)``.
COUNTS = ("element_count", "action_count")


def per_env_arrays(fields: Dict[str, Field]) -> Dict[str, np.ndarray]:
    """The observation buffers, ``[num_envs, ...]``, counts as ``[num_envs, 1]``."""
    out = {}
    for key in OBS_KEYS:
        array = fields[key].array
        out[key] = array.reshape(array.shape[0], 1) if key in COUNTS else array
    return out


def dict_space(fields: Dict[str, Field]) -> spaces.Dict:
    """One environment's dict observation space."""
    entries = {}
    for key, array in per_env_arrays(fields).items():
        f = fields[key]
        shape = array.shape[1:]
        dtype = array.dtype
        entries[key] = spaces.Box(
            low=np.full(shape, f.low, dtype=dtype),
            high=np.full(shape, f.high, dtype=dtype),
            shape=shape,
            dtype=dtype,
        )
    return spaces.Dict(entries)


class PageText(spaces.Text):
    """A page in §5.2's text form: any string of up to ``max_length``
    characters (a page holds whatever characters its site writes, so no
    character set is imposed)."""

    def __init__(self, max_length: int = 1 << 20):
        super().__init__(max_length=max_length, min_length=0)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"PageText({self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, PageText) and other.max_length == self.max_length
