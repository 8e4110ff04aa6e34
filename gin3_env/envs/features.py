"""Derived features for learning agents, computed from an observation alone.

The environments' observation is kept minimal (what the player knows). A learner
trains faster when meld arithmetic is handed to it, so :func:`augment` appends
features that are pure functions of the player's own cards and the top discard,
both already in the observation. Policies apply the same function at play time,
so a trained agent still acts from its observation only.

| slice (after the base 374) | feature                                                        |
|----------------------------|----------------------------------------------------------------|
| +0:52                      | per card in hand: deadwood of the others / 100 (the discard's effect) |
| +52:104                    | cards that are in a meld of the hand's best arrangement        |
| +104                       | deadwood after taking the top discard and the best discard / 100 (draw phases) |
| +105                       | 1 if taking the top discard lowers the deadwood (draw phases)  |
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from ..engine.melds import best_arrangement, deadwood_of_mask, knock_deadwoods
from .observation import HAND_PLANE, OBS_SIZE, PHASE_OFFSET, PLANE, TOP_PLANE

EXTRA_SIZE = 2 * PLANE + 2
AUGMENTED_SIZE = OBS_SIZE + EXTRA_SIZE
_PHASE_DISCARD = 3
_BITS = 1 << np.arange(PLANE, dtype=np.uint64)


def _plane_mask(obs: np.ndarray, plane: int) -> int:
    start = plane * PLANE
    return int(_BITS[obs[start : start + PLANE] > 0.5].sum())


def augment(observation: np.ndarray) -> np.ndarray:
    """The base observation (any length >= 374) followed by the derived features."""
    obs = np.asarray(observation, dtype=np.float32)
    extra = np.zeros(EXTRA_SIZE, dtype=np.float32)
    hand = _plane_mask(obs, HAND_PLANE)
    if hand:
        for card, dw in knock_deadwoods(hand).items():
            extra[card] = dw / 100.0
        for meld in best_arrangement(hand).melds:
            extra[PLANE + np.asarray(meld)] = 1.0
    top = _plane_mask(obs, TOP_PLANE)
    if top and obs[PHASE_OFFSET + _PHASE_DISCARD] < 0.5 and not hand & top:
        after = min(knock_deadwoods(hand | top).values())
        extra[2 * PLANE] = after / 100.0
        extra[2 * PLANE + 1] = float(after < deadwood_of_mask(hand))
    return np.concatenate([obs[:OBS_SIZE], extra])


def augment_dict(observation: dict[str, np.ndarray]) -> np.ndarray:
    return augment(observation["observation"])


class AugmentedObservation(gym.ObservationWrapper):
    """Gymnasium wrapper: ``Box(374)`` observations become ``Box(480)`` via :func:`augment`."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.observation_space = gym.spaces.Box(0.0, 1.0, (AUGMENTED_SIZE,), np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return augment(observation)

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()


__all__ = ["AUGMENTED_SIZE", "EXTRA_SIZE", "AugmentedObservation", "augment", "augment_dict"]
