"""``gin3_env.sb3_vec_env(...)``: the batched learner env as a stable-baselines3 ``VecEnv``.

``MaskablePPO("MlpPolicy", gin3_env.sb3_vec_env(64))`` trains with no wrapper:
sb3-contrib's ``get_action_masks`` calls ``env_method("action_masks")``, answered here with
one mask per slot. A finished episode's slot is dealt again within the same step (SB3's
convention); its last observation is ``infos[i]["terminal_observation"]``,
``infos[i]["TimeLimit.truncated"]`` marks hands stopped at ``max_turns`` and
``infos[i]["result"]`` holds the outcome (a code of ``gin3_env/envs/infos.py``: 1 gin, 2 knock,
3 undercut, 4 dead, 5 truncated; 0 after an illegal action, with ``illegal_action`` True), the
learner (0 team, 1 box) and the points, numbers only. ``env_method("set_opponent", specs,
weights)`` swaps the opponent pool (as ``gin3 train`` does). Keywords as :func:`gin3_env.vector_env`.

Misuse: ``step``/``step_async``/``step_wait``/``action_masks`` before ``reset`` raise
``ResetNeededError``; ``step_wait`` without ``step_async`` ``CallOrderError``; bad actions are
refused in ``step_async`` (an ``InvalidActionError`` naming the hand and the action); ``seed``
with a bad seed ``InvalidSeedError``; an unknown attribute or method ``UnknownAttributeError``
(an ``AttributeError``, as SB3 expects); a refused call changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from ..engine.actions import NUM_ACTIONS
from ..envs.aec_base import check_reward_scale
from ..envs.errors import check_illegal_penalty
from ..errors import CallOrderError, InvalidIndicesError, ResetNeededError, UnknownAttributeError, check_seed
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
        self._started = False

    def _check_started(self, call: str) -> None:
        if not self._started:
            raise ResetNeededError(f"sb3_vec_env: {call}() before reset(); call reset() first")

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        obs = self.core.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self._actions = None
        self._started = True
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._check_started("step_async")
        if isinstance(actions, list | tuple) and any(isinstance(a, bool | np.bool_) for a in actions):
            self.core.check_actions(actions)  # a bool in a list: refused, as numpy would read it as 1
        try:
            arr = np.asarray(actions)
        except (ValueError, TypeError):
            arr = actions  # check_actions names the problem
        else:
            if arr.ndim > 1 and arr.size == self.num_envs:
                arr = arr.reshape(-1)  # (num_envs, 1) from some policies
        self._actions = self.core.check_actions(arr)  # refused before anything changes

    def step_wait(self):
        self._check_started("step_wait")
        if self._actions is None:
            raise CallOrderError("sb3_vec_env: step_wait() without step_async() first")
        obs, rewards, terminated, truncated, extra = self.core.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i] = {
                "terminal_observation": extra["final_obs"][i],
                "TimeLimit.truncated": bool(truncated[i]),
                "result": {
                    "outcome": int(extra["outcome"][i]),
                    "illegal_action": bool(extra["illegal"][i]),
                    "learner": int(extra["learner"][i]),
                    "points": float(extra["points"][i]),
                    "baseline_points": float(extra["baseline_points"][i]),
                },
            }
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        pass

    # ------------------------------------------------------------ VecEnv plumbing
    def action_masks(self) -> np.ndarray:
        self._check_started("action_masks")
        return self.core.action_masks()

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        """The slots ``indices`` names, or :class:`InvalidIndicesError`."""
        try:
            idx = [int(i) for i in self._get_indices(indices)]
            ok = all(0 <= i < self.num_envs for i in idx)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise InvalidIndicesError(f"indices must be slots 0..{self.num_envs - 1}, got {indices!r:.60}")
        return idx

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        if method_name == "set_opponent":
            if len(idx) != self.num_envs:
                raise InvalidIndicesError("set_opponent applies to every slot of the batched env at once")
            self.core.set_opponent(*method_args, **method_kwargs)
            return [None] * len(idx)
        raise UnknownAttributeError(f"the batched gin env has no method {method_name!r} (it has {', '.join(METHODS)})")

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in METHODS or hasattr(self.core, attr_name)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        idx = self._indices(indices)
        if attr_name == "render_mode":
            return [None] * len(idx)
        if attr_name in METHODS:
            return [getattr(self, attr_name)] * len(idx)
        if attr_name.startswith("_") or not hasattr(self.core, attr_name):
            raise UnknownAttributeError(f"the batched gin env has no attribute {attr_name!r:.60}")
        value = getattr(self.core, attr_name)
        return [value] * len(idx)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if attr_name not in ("reward_scale", "illegal_penalty"):
            raise UnknownAttributeError(f"cannot set {attr_name!r:.60} on the batched gin env "
                                        "(only reward_scale and illegal_penalty)")
        check = check_reward_scale if attr_name == "reward_scale" else check_illegal_penalty
        setattr(self.core, attr_name, check(value))  # a bad value: ValueError naming it, nothing set

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """The seed of the next ``reset`` (one generator for all slots); ``InvalidSeedError`` if not an int >= 0."""
        self._seeds = [check_seed(seed)] + [None] * (self.num_envs - 1)
        return self._seeds


def sb3_vec_env(num_envs: int = 64, **kwargs: Any) -> GinSB3VecEnv:
    """An SB3 ``VecEnv`` of ``num_envs`` learner hands (see :mod:`gin3_env.vector.sb3_env`)."""
    return GinSB3VecEnv(num_envs, **kwargs)
