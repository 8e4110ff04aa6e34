"""Every legal action of a decision valued on the true deal, in one compiled loop per decision.

A decision is a row of the batched core's arrays (:mod:`.hand_kernels`: ``S``, ``M``, ``deck``,
``pile``, ``mask``), taken from a hand in play with the real hands of both players and the real
stock. Each legal action of the row is played, then both players play the *continuation policy*
(the gated player of :mod:`.gates`: the heuristic with the knock, draw and discard gates
given, the shipped ``trained`` player for its file) to the end of the hand, from ``K`` copies of
the hand whose stock (``deck[POS:]``) is reshuffled ``K`` ways. The ``K`` reshuffles are the same
for every action of the decision (common random numbers: what differs between two actions' values
is the action, not the luck of the draw). A knock ends the hand at once: it is played once.

    value_rows(S, M, deck, pile, mask, R, seeds, K, fp, ip, gates, values, se)

writes ``values[i, a]``, the acting player's mean points after action ``a`` over the ``K``
reshuffles (NaN where ``a`` is not legal), and ``se[i, a]`` its standard error. Row ``i``'s
reshuffles come from ``np.random.seed(seeds[i])`` inside the kernel, so its values do not depend on
the thread that played it or on the other rows.

The cost is the continuations: (legal non-knock actions) x ``K`` hands played to their end, each
move of which is one call of the continuation policy (:func:`.gates.gated_act_row`, played by
:func:`.decision_labels.mean_points`, as the gate labels).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from gin3_env.engine.actions import KNOCK_BASE, NUM_ACTIONS
from gin3_env.engine.cards import NUM_CARDS
from gin3_env.kernels import hand_kernels as hk
from gin3_env.kernels.jit import njit
from gin3_training.gates.label_kernels import mean_points

__all__ = ["reshuffles", "value_rows", "value_rows_serial"]


@njit(cache=True)
def reshuffles(deck: np.ndarray, pos: int, K: int, seed: int) -> np.ndarray:
    """``K`` copies of ``deck`` (one row's 52 cards) with the stock ``deck[pos:]`` shuffled, seeded by ``seed``."""
    np.random.seed(seed)
    out = np.empty((K, NUM_CARDS), np.int8)
    for r in range(K):
        out[r, :] = deck[:]
        np.random.shuffle(out[r, pos:])
    return out


@njit(cache=True)
def _value_row(i: int, S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray,
               R: np.ndarray, seeds: np.ndarray, K: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
               values: np.ndarray, se: np.ndarray) -> None:
    S2 = np.zeros((1, S.shape[1]), np.int64)
    M2 = np.zeros((1, M.shape[1]), np.int64)
    deck2 = np.zeros((1, NUM_CARDS), np.int8)
    pile2 = np.zeros((1, NUM_CARDS), np.int8)
    mask2 = np.zeros((1, NUM_ACTIONS), np.int8)
    obs = np.zeros((1, hk.OBS_SIZE), np.float32)
    vals = np.zeros(K, np.float64)
    p = S[i, hk.PLAYER]
    shuffled = reshuffles(deck[i], S[i, hk.POS], K, seeds[i])
    for a in range(NUM_ACTIONS):
        values[i, a] = np.nan
        se[i, a] = np.nan
        if not mask[i, a]:
            continue
        n = 1 if a >= KNOCK_BASE else K  # a knock ends the hand: the same under every reshuffle
        values[i, a], se[i, a] = mean_points(S, M, deck, pile, mask, i, R, a, p, fp, ip, gates, shuffled, n, vals,
                                             S2, M2, deck2, pile2, mask2, obs)


@njit(cache=True, parallel=True)
def value_rows(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray, R: np.ndarray,
               seeds: np.ndarray, K: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
               values: np.ndarray, se: np.ndarray) -> None:
    """Value every legal action of each row (see the module doc), rows spread over numba's threads."""
    for i in prange(S.shape[0]):
        _value_row(i, S, M, deck, pile, mask, R, seeds, K, fp, ip, gates, values, se)


@njit(cache=True)
def value_rows_serial(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray,
                      R: np.ndarray, seeds: np.ndarray, K: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
               values: np.ndarray, se: np.ndarray) -> None:
    """:func:`value_rows` on one thread."""
    for i in range(S.shape[0]):
        _value_row(i, S, M, deck, pile, mask, R, seeds, K, fp, ip, gates, values, se)
