"""Derived features for learning agents, computed from an observation alone.

The environments' observation is kept minimal (what the player knows). A learner
trains far faster when meld arithmetic is handed to it, so :func:`augment`
appends features that are pure functions of what the observation already shows
(own cards, the discard pile, the opponent's known cards). Trained policies
apply the same function at play time, so they still act from the observation only.

Per-card planes (52 each, after the base 374 entries), read by the card-aware
policy head (``training/network.py``) for the discard and knock logits:

| plane | feature for card ``c`` of the hand                                          |
|-------|-----------------------------------------------------------------------------|
| 0     | deadwood of the hand without ``c`` / 100 (the effect of discarding it)      |
| 1     | 1 if ``c`` is in a meld of the hand's best arrangement                      |
| 2     | unseen cards that would join the hand without ``c`` into a meld / 20 (outs) |
| 3     | 1 if ``c`` would join the opponent's known cards into a meld (danger)        |

Then four scalars, meaningful in the draw phases: deadwood after taking the top
discard and the best discard / 100; 1 if that lowers the deadwood; 1 if the top
discard joins a meld of the hand; unseen cards / 52.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from ..engine.melds import best_arrangement, deadwood_of_mask, knock_deadwoods
from ..envs.observation import (
    HAND_PLANE,
    OBS_SIZE,
    OPP_KNOWN_PLANE,
    PHASE_OFFSET,
    PILE_PLANE,
    PLANE,
    TOP_PLANE,
)

CARD_PLANES = 4
EXTRA_SCALARS = 4
EXTRA_SIZE = CARD_PLANES * PLANE + EXTRA_SCALARS
AUGMENTED_SIZE = OBS_SIZE + EXTRA_SIZE  # 586
CARD_PLANES_OFFSET = OBS_SIZE  # where the per-card planes start in an augmented vector
SUIT = 0x1FFF
_PHASE_DISCARD = 3
_BITS = 1 << np.arange(PLANE, dtype=np.uint64)


def _plane_mask(obs: np.ndarray, plane: int) -> int:
    start = plane * PLANE
    return int(_BITS[obs[start : start + PLANE] > 0.5].sum())


def meld_outs(hand: int) -> int:
    """Cards that would make a 3-card meld with two cards of ``hand`` or extend a run of it."""
    s = (hand & SUIT, hand >> 13 & SUIT, hand >> 26 & SUIT, hand >> 39 & SUIT)
    pairs = (s[0] & s[1]) | (s[0] & s[2]) | (s[0] & s[3]) | (s[1] & s[2]) | (s[1] & s[3]) | (s[2] & s[3])
    out = 0
    for k, m in enumerate(s):
        near = (m << 1 & m << 2) | (m >> 1 & m << 1) | (m >> 1 & m >> 2)
        out |= ((near | pairs) & SUIT & ~m) << (13 * k)
    return out


def augment(observation: np.ndarray) -> np.ndarray:
    """The base observation (first 374 entries of any observation) and the derived features."""
    obs = np.asarray(observation, dtype=np.float32)
    extra = np.zeros(EXTRA_SIZE, dtype=np.float32)
    hand = _plane_mask(obs, HAND_PLANE)
    top = _plane_mask(obs, TOP_PLANE)
    seen = hand | top | _plane_mask(obs, PILE_PLANE) | _plane_mask(obs, OPP_KNOWN_PLANE)
    unseen = ((1 << 52) - 1) & ~seen
    danger = meld_outs(_plane_mask(obs, OPP_KNOWN_PLANE))
    if hand:
        for card, dw in knock_deadwoods(hand).items():
            extra[card] = dw / 100.0
            outs = bin(meld_outs(hand & ~(1 << card)) & unseen).count("1")
            extra[2 * PLANE + card] = min(outs / 20.0, 1.0)
            extra[3 * PLANE + card] = float(danger >> card & 1)
        for meld in best_arrangement(hand).melds:
            extra[PLANE + np.asarray(meld)] = 1.0
    base = CARD_PLANES * PLANE
    if top and obs[PHASE_OFFSET + _PHASE_DISCARD] < 0.5 and not hand & top:
        after = min(knock_deadwoods(hand | top).values())
        extra[base] = after / 100.0
        extra[base + 1] = float(after < deadwood_of_mask(hand))
        extra[base + 2] = float(bool(meld_outs(hand) & top))
    extra[base + 3] = bin(unseen).count("1") / 52.0
    return np.concatenate([obs[:OBS_SIZE], extra])


class AugmentedObservation(gym.ObservationWrapper):
    """Gymnasium wrapper: ``Box(374)`` observations become ``Box(586)`` via :func:`augment`."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.observation_space = gym.spaces.Box(0.0, 1.0, (AUGMENTED_SIZE,), np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return augment(observation)

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()
