"""Batched :func:`gin3_env.observation.features.augment`: the 586-entry learner input, compiled.

Row for row equal to the scalar ``augment`` (``tests/test_vector_players.py``), so a model
trained on the batched env plays the same through :class:`~gin3_env.policies.SB3Policy`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..engine.cards import FULL_MASK, NUM_CARDS
from ..engine.phases import Phase
from ..observation.features import AUGMENTED_SIZE, DANGER_AT, DEADWOOD_AT, IN_MELD_AT, OUTS_AT, SCALARS_AT
from ..observation.layout import HAND_PLANE, OBS_SIZE, OPP_KNOWN_PLANE, PHASE_OFFSET, PILE_PLANE, TOP_PLANE
from .heuristic_kernels import meld_outs, obs_plane
from .jit import njit
from .meld_kernels import best_deadwood_cards, deadwood, knock_deadwoods, knock_min, popcount
from .threads import use_threads

FULL = FULL_MASK
DISCARD_AT = PHASE_OFFSET + int(Phase.DISCARD)  # the discard phase's entry of the phase one-hot


@njit(cache=True)
def _augment_row(obs: np.ndarray, k: int, out: np.ndarray) -> None:
    for j in range(OBS_SIZE):
        out[k, j] = obs[k, j]
    e = OBS_SIZE
    for j in range(AUGMENTED_SIZE - OBS_SIZE):
        out[k, e + j] = 0.0
    hand = obs_plane(obs, k, HAND_PLANE)
    top = obs_plane(obs, k, TOP_PLANE)
    known = obs_plane(obs, k, OPP_KNOWN_PLANE)
    seen = hand | top | obs_plane(obs, k, PILE_PLANE) | known
    unseen = FULL & ~seen
    danger = meld_outs(known)
    if hand:
        kd = np.zeros(NUM_CARDS, np.int64)
        order = np.zeros(NUM_CARDS, np.int64)
        n = knock_deadwoods(hand, kd, order)
        for j in range(n):
            card = order[j]
            out[k, e + DEADWOOD_AT + card] = kd[card] / 100.0
            outs = popcount(meld_outs(hand & ~(1 << card)) & unseen)
            out[k, e + OUTS_AT + card] = min(outs / 20.0, 1.0)
            out[k, e + DANGER_AT + card] = 1.0 if (danger >> card) & 1 else 0.0
        in_melds = hand & ~best_deadwood_cards(hand)
        for c in range(NUM_CARDS):
            if (in_melds >> c) & 1:
                out[k, e + IN_MELD_AT + c] = 1.0
    base = e + SCALARS_AT
    if top and obs[k, DISCARD_AT] < 0.5 and not hand & top:
        after = knock_min(hand | top)
        out[k, base] = after / 100.0
        out[k, base + 1] = 1.0 if after < deadwood(hand) else 0.0
        out[k, base + 2] = 1.0 if (meld_outs(hand) & top) != 0 else 0.0
    out[k, base + 3] = popcount(unseen) / 52.0


@njit(cache=True, parallel=True)
def _augment_parallel(obs: np.ndarray, out: np.ndarray) -> None:
    for k in prange(obs.shape[0]):
        _augment_row(obs, k, out)


@njit(cache=True)
def _augment_serial(obs: np.ndarray, out: np.ndarray) -> None:
    for k in range(obs.shape[0]):
        _augment_row(obs, k, out)


def augment_batch(observations: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """float32 (B, 586): each row's first 374 entries and the derived features."""
    obs = np.ascontiguousarray(observations, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] < OBS_SIZE:
        raise ValueError(f"observations must have shape (B, >= {OBS_SIZE}), got {obs.shape}")
    if out is None:
        out = np.empty((len(obs), AUGMENTED_SIZE), dtype=np.float32)

    (_augment_parallel if use_threads(len(obs)) else _augment_serial)(obs, out)
    return out
