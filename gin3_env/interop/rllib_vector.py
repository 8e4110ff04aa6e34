"""The batched core as a Gymnasium vector env for RLlib's single-agent env runner (extra ``rllib``).

``gin3 train --backend rllib`` with ``policies: vs_heuristic`` trains through this
env: ``num_envs`` hands of :func:`gin3_env.vector_env` (the learner against the
heuristic, its seat drawn for every hand), stepped together by the compiled core,
one learner decision per step. It differs from ``vector_env`` in what RLlib's
``SingleAgentEnvRunner`` needs:

- observations are ``{"observations": float32[n], "action_mask": float32[107]}`` per
  hand (batched: a dict of ``(num_envs, ...)`` arrays), as for
  :mod:`gin3_env.interop.rllib`'s multi-agent envs; ``n`` is 374, or 586 with
  ``features="augmented"``;
- autoreset is ``NEXT_STEP`` (RLlib's runner reads it that way): the step that ends a
  hand returns that hand's last observation (its mask all zero); the next step
  returns the next hand's first observation for that slot, reward 0, and ignores
  the slot's action. The core deals the next hand at once (``SAME_STEP``); that
  deal is given back unplayed (an illegal action redeals a slot, as the core
  documents) and the slot's next hand is the one dealt after it, so every hand a
  slot plays starts at a fresh decision of the learner;
- infos are empty (RLlib stores them with every step).

The reward is the learner's game points at the end of its hand times
``reward_scale``. :func:`make_vector_env` is the env creator RLlib calls with
``gym_env_vectorize_mode="vector_entry_point"``: its config holds ``num_envs``
(added by RLlib) and the env config keys ``features``, ``reward_scale``, ``rules``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..engine.actions import NUM_ACTIONS
from ..observation.features import FEATURE_NAMES
from ..vector.gym_env import vector_env

ENV_CONFIG_KEYS = ("features", "reward_scale", "rules")

__all__ = ["HandsVectorEnv", "make_vector_env"]


def observation_space(size: int) -> gym.spaces.Dict:
    """One hand's observation space: the model input and the action mask."""
    return gym.spaces.Dict(
        {
            "observations": gym.spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        }
    )


class HandsVectorEnv(VectorEnv):
    """``num_envs`` learner hands against the heuristic, for RLlib (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        features: str = "augmented",
        reward_scale: float = 1.0,
        rules: Mapping[str, Any] | None = None,
        opponent: Any = "heuristic",
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        if features not in FEATURE_NAMES:
            raise ValueError(f"env config 'features' must be one of {list(FEATURE_NAMES)}, got {features!r}")
        self.core = vector_env(num_envs, opponent=opponent, learner="random", features=features,
                               reward_scale=reward_scale, **dict(rules or {}))
        if self.core.metadata.get("autoreset_mode") != AutoresetMode.SAME_STEP:
            raise RuntimeError(f"HandsVectorEnv needs the core's same-step autoreset, got "
                               f"{self.core.metadata.get('autoreset_mode')}")
        self.num_envs = num_envs
        self.single_observation_space = observation_space(self.core.core.obs_size)
        self.single_action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self._ended = np.zeros(num_envs, dtype=bool)  # slots whose hand ended at the last step
        self._masks = np.zeros((num_envs, NUM_ACTIONS), dtype=np.int8)  # the core's masks after the last call

    def _batch(self, obs: np.ndarray, masks: np.ndarray) -> dict[str, np.ndarray]:
        self._masks = masks
        return {"observations": obs, "action_mask": masks.astype(np.float32)}

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if isinstance(seed, list | tuple):  # one seed per slot: the core takes one for all
            seed = seed[0] if seed else None
        obs, infos = self.core.reset(seed=seed, options=options)
        self._ended[:] = False
        return self._batch(obs, infos["action_mask"]), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        acts = self.core.core.check_actions(actions)  # an error naming the slot, before anything changes
        held = self._ended
        if held.any():  # the hand dealt when these slots' hands ended goes back unplayed
            rows = np.flatnonzero(held)
            unplayable = np.argmin(self._masks[rows], axis=1)  # an illegal action (every decision has one)
            if self._masks[rows, unplayable].any():
                raise RuntimeError("a dealt hand allows every action: it cannot be given back unplayed")
            acts = acts.copy()
            acts[rows] = unplayable
        obs, rewards, terminated, truncated, infos = self.core.step(acts)
        rewards[held], terminated[held], truncated[held] = 0.0, False, False
        ended = terminated | truncated
        observations = self._batch(obs, infos["action_mask"])
        if ended.any():  # this step returns the ended hands' last observations
            observations["observations"] = np.where(ended[:, None], infos["final_obs"], obs)
            observations["action_mask"][ended] = 0.0
        self._ended = ended
        return observations, rewards.astype(np.float32), terminated, truncated, {}


def make_vector_env(config: Mapping[str, Any]) -> HandsVectorEnv:
    """RLlib's env creator: ``config`` is the env config plus ``num_envs`` (see the module docstring)."""
    config = dict(config)
    num_envs = config.pop("num_envs", 1)
    unknown = sorted(set(config) - set(ENV_CONFIG_KEYS))
    if unknown:
        raise ValueError(f"unknown env config key(s) {unknown}; known: {', '.join(ENV_CONFIG_KEYS)}")
    return HandsVectorEnv(num_envs, **config)
