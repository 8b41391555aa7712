"""numpy arrays over a batch's buffers, in place.

The Rust batch allocates each buffer once and tells where it lives
(``Batch.fields``); each array here views that memory through numpy's array
interface, with no copy. An array holds a reference to the batch, so the
memory outlives every array that views it. Only the actions are written from
Python; every other array is read-only, because the batch keeps rows it wrote
once (those past the rows a page fills are left zero, not zeroed again).
"""

from __future__ import annotations

from typing import Any, Dict, NamedTuple, Tuple

import numpy as np


# The one buffer Python writes: the action of each environment.
WRITTEN_BY_PYTHON = "actions"


class Field(NamedTuple):
    """One buffer: its array (``[num_envs, ...]``) and the range of its values."""

    array: np.ndarray
    low: float
    high: float


class _Memory:
    """What numpy needs to view one buffer; keeps the batch alive."""

    def __init__(
        self, owner: Any, typestr: str, shape: Tuple[int, ...], address: int, readonly: bool
    ):
        self._owner = owner
        self.__array_interface__ = {
            "version": 3,
            "typestr": typestr,
            "shape": shape,
            "data": (address, readonly),
        }


def views(batch: Any) -> Dict[str, Field]:
    """Every buffer of ``batch`` by name, as arrays viewing it in place."""
    out: Dict[str, Field] = {}
    for name, typestr, shape, low, high, address in batch.fields():
        readonly = name != WRITTEN_BY_PYTHON
        array = np.asarray(_Memory(batch, typestr, tuple(shape), address, readonly))
        out[name] = Field(array, low, high)
    return out
