"""The knock learner (:mod:`.knock`) as a stable-baselines3 ``VecEnv``: ``MaskablePPO`` trains on it as is.

``KnockSB3VecEnv(64)`` is :class:`~gin3_env.vector.sb3_env.GinSB3VecEnv` with
:class:`~gin3_env.vector.knock.KnockHands` as its core: observations are the gate features,
actions 0 (hold) and 1 (knock), the mask two ``True``; ``infos[i]["result"]`` holds the learner's
points and the heuristic's on the same deal and seat.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from .knock import GATE_SIZE, KnockHands
from .sb3_env import GinSB3VecEnv


class KnockSB3VecEnv(GinSB3VecEnv):
    """See the module doc; keywords as :class:`~gin3_env.vector.knock.KnockHands`."""

    def __init__(self, num_envs: int = 64, **kwargs: Any) -> None:
        self.core = KnockHands(num_envs, **kwargs)  # type: ignore[assignment]
        VecEnv.__init__(self, self.core.num_envs, spaces.Box(0.0, 10.0, (GATE_SIZE,), np.float32), spaces.Discrete(2))
        self._actions = None
        self._first_reset = True
        self._started = False

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        if method_name == "set_opponent":
            raise ValueError("the knock learner's opponent is the heuristic (it is also the reward's baseline)")
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)
