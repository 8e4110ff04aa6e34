"""``gin3_env.sb3_vec_env(...)``: the batched learner env as a stable-baselines3 ``VecEnv``.

``MaskablePPO("MlpPolicy", gin3_env.sb3_vec_env(64))`` trains with no wrapper:
sb3-contrib's ``get_action_masks`` calls ``env_method("action_masks")``, answered here with
one mask per slot. A finished episode's slot is dealt again within the same step (SB3's
convention); its last observation is ``infos[i]["terminal_observation"]``,
``infos[i]["TimeLimit.truncated"]`` marks hands stopped at ``max_turns`` and
``infos[i]["result"]`` holds the outcome and points. ``env_method("set_opponent", specs,
weights)`` swaps the opponent pool (as ``gin3 train`` does). Keywords as :func:`gin3_env.vector_env`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from ..engine.actions import NUM_ACTIONS
from ..engine.hand import PLAYER_NAMES
from .hands import OUTCOME_NAMES
from .learner import LearnerHands

METHODS = ("action_masks", "set_opponent")


class GinSB3VecEnv(VecEnv):
    """See the module doc."""

    def __init__(self, num_envs: int = 64, **kwargs: Any) -> None:
        self.core = LearnerHands(num_envs, **kwargs)
        observation_space = spaces.Box(0.0, 1.0, (self.core.obs_size,), np.float32)
        super().__init__(self.core.num_envs, observation_space, spaces.Discrete(NUM_ACTIONS))
        self._actions: np.ndarray | None = None
        self._first_reset = True

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        obs = self.core.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        obs, rewards, terminated, truncated, extra = self.core.step(self._actions.reshape(-1))
        self._actions = None
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i] = {
                "terminal_observation": extra["final_obs"][i],
                "TimeLimit.truncated": bool(truncated[i]),
                "result": {
                    "outcome": "illegal" if extra["illegal"][i] else OUTCOME_NAMES[extra["outcome"][i]],
                    "learner": PLAYER_NAMES[extra["learner"][i]],
                    "points": float(extra["points"][i]),
                    "baseline_points": float(extra["baseline_points"][i]),
                },
            }
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        pass

    # ------------------------------------------------------------ VecEnv plumbing
    def action_masks(self) -> np.ndarray:
        return self.core.action_masks()

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.core.action_masks()
            return [masks[i] for i in idx]
        if method_name == "set_opponent":
            if len(idx) != self.num_envs:
                raise ValueError("set_opponent applies to every slot of the batched env at once")
            self.core.set_opponent(*method_args, **method_kwargs)
            return [None] * len(idx)
        raise AttributeError(f"the batched gin env has no method {method_name!r} (it has {', '.join(METHODS)})")

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in METHODS or hasattr(self.core, attr_name)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        idx = list(self._get_indices(indices))
        if attr_name == "render_mode":
            return [None] * len(idx)
        value = getattr(self.core, attr_name)
        return [value] * len(idx)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if attr_name not in ("reward_scale", "illegal_penalty"):
            raise AttributeError(f"cannot set {attr_name!r} on the batched gin env")
        setattr(self.core, attr_name, value)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def seed(self, seed: int | None = None) -> Sequence[None | int]:
        self._seeds = [seed] + [None] * (self.num_envs - 1)
        return self._seeds


def sb3_vec_env(num_envs: int = 64, **kwargs: Any) -> GinSB3VecEnv:
    """An SB3 ``VecEnv`` of ``num_envs`` learner hands (see :mod:`gin3_env.vector.sb3_env`)."""
    return GinSB3VecEnv(num_envs, **kwargs)
