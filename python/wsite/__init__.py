"""wsite: verified web-agent training worlds as Gymnasium environments.

``wsite.make(site, task=...)`` opens a site (a ``.wsite`` file, a directory of
them, or a built ``.wsb``) as a ``gymnasium.Env``; ``wsite.vector(site,
num_envs=...)`` as a ``gymnasium.vector.VectorEnv`` stepped by the batched
JIT engine, whose numpy buffers are read in place. See docs/python.md.
"""

from __future__ import annotations

from typing import Any, List

import gymnasium

from ._wsite import Batch, SiteError, __version__
from ._wsite import instances as _instances
from .env import WsiteEnv
from .vector import WsiteVectorEnv

__all__ = [
    "Batch",
    "SiteError",
    "WsiteEnv",
    "WsiteVectorEnv",
    "__version__",
    "instances",
    "make",
    "vector",
]


def make(site: Any, task: Any = None, **kwargs: Any) -> WsiteEnv:
    """One environment over ``site``'s tasks (all of them, or ``task``: a
    name or a list of names). Keywords: ``obs`` (``"dict"`` or ``"text"``),
    ``render_mode`` (``"ansi"``), ``engine``, ``reward``, ``simulator``,
    ``simulator_timeout``, ``obs_spec``, ``invalid_action_penalty``."""
    return WsiteEnv(site, task, **kwargs)


def vector(site: Any, num_envs: int = 64, task: Any = None, **kwargs: Any) -> WsiteVectorEnv:
    """``num_envs`` environments over ``site``'s tasks, stepped together.
    Keywords: ``seed``, ``threads``, ``engine``, ``reward``, ``autoreset``
    (``"next_step"`` or ``"disabled"``), ``copy``, ``simulator``,
    ``simulator_timeout``, ``obs_spec``, ``render_memo``."""
    return WsiteVectorEnv(site, num_envs, task, **kwargs)


def instances(site: Any) -> List[str]:
    """The names of every task instance of ``site``."""
    from ._args import site_path

    return _instances(site_path(site))


# `gymnasium.make("wsite/Site-v0", site=..., task=...)` builds a WsiteEnv.
if "wsite/Site-v0" not in gymnasium.registry:
    gymnasium.register(id="wsite/Site-v0", entry_point="wsite.env:WsiteEnv")
