"""A Gymnasium wrapper that adds the derived card features to a single-agent env's observations."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from ..observation.features import AUGMENTED, FeatureSet

__all__ = ["AugmentedObservation"]


class AugmentedObservation(gym.ObservationWrapper):
    """``Box(374)`` observations become ``Box(586)``: :func:`~gin3_env.observation.features.augment`
    (``features``: another :class:`~gin3_env.observation.features.FeatureSet`, its own size).

    On the package's single-agent envs the features are computed from the learner's
    view (the env's ``learner_view()``) rather than decoded from the vector again;
    on any other env from the vector. Both give the same numbers."""

    def __init__(self, env: gym.Env, features: FeatureSet = AUGMENTED) -> None:
        super().__init__(env)
        self.features = features
        self.observation_space = gym.spaces.Box(0.0, 1.0, (features.size,), np.float32)
        self._view_of: Any = getattr(env.unwrapped, "learner_view", None)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        if self._view_of is not None:
            return self.features.encode_view(self._view_of(), observation)
        return self.features.encode(observation)

    def action_masks(self) -> np.ndarray:
        masks: np.ndarray = self.env.unwrapped.action_masks()  # type: ignore[attr-defined]
        return masks
