"""Labels of a learnt decision on the true deal, in one compiled loop per deal.

Each deal is played by the *state policy* (the heuristic, or a gated player of :mod:`.gates`) on both
sides. At each decision of the kind labelled (a code of :data:`.decisions.DECISIONS`), the heuristic's
choice (*base*) and each of the decision's alternatives (:func:`.decision_features.alternatives`: for
the knock, hold; for the draw, the other move of a take-or-not choice; for the discard, the heuristic's
second and third best plain discards) are valued on the true deal (the opponent's real hand), each
alternative on a row of its own (``rank`` 1, 2, ...) against the same base value and the same shuffles.

Each move is played from ``K`` continuations, the stock (``deck[POS:]``) reshuffled ``K`` ways,
the same ``K`` shuffles for every move (common random numbers), and both sides then play the
*continuation policy* (the same player as the state policy) to the end of the hand; a knock ends
the hand at once, so it is played once. The label is ``D = value(alt) - value(base)`` in the
acting player's points; the features are the alternative's (:func:`.decision_features.features`) of the
acting player's own observation, a hand within the rules' knock limit counted as knockable.

    label_deals(kind, decks, seeds, K, rate, R, fp, ip, gates, feats, alt_v, alt_se, base_v, rank, ...)

A deal's shuffles (and, with ``rate < 1``, which of its decisions are labelled) come from
``np.random.seed(seeds[d])`` inside the kernel, so a deal's labels do not depend on which thread
played it or what was played before it.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from gin3_env.engine.actions import KNOCK_BASE, NUM_ACTIONS
from gin3_env.engine.cards import NUM_CARDS
from gin3_env.kernels import hand_kernels as hk
from gin3_env.kernels.decision_features import alternatives
from gin3_env.kernels.decisions import MAX_ALTERNATIVES, MAX_FEATURES
from gin3_env.kernels.gates import gated_act_row, gated_choice
from gin3_env.kernels.heuristic_kernels import act_row
from gin3_env.kernels.jit import njit

__all__ = ["label_deals"]


@njit(cache=True)
def _copy(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray, i: int,
          S2: np.ndarray, M2: np.ndarray, deck2: np.ndarray, pile2: np.ndarray, mask2: np.ndarray) -> None:
    """Row ``i`` of the state arrays into the one-row arrays ``S2``, ...."""
    S2[0, :] = S[i, :]
    M2[0, :] = M[i, :]
    deck2[0, :] = deck[i, :]
    pile2[0, :] = pile[i, :]
    mask2[0, :] = mask[i, :]


@njit(cache=True)
def finish_hand(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray, R: np.ndarray,
            first: int, p: int, fp: np.ndarray, ip: np.ndarray, gates: tuple, obs: np.ndarray) -> float:
    """Play ``first`` then the continuation policy to the end; player ``p``'s points."""
    one = np.zeros(1, np.int64)
    act = np.zeros(1, np.int64)
    who = np.full(1, -1, np.int64)
    rewards = np.zeros((1, 2), np.float32)
    ended = np.zeros(1, np.int64)
    act[0] = first
    hk.apply_rows(one, act, S, M, deck, pile, mask, R, rewards, ended)
    while S[0, hk.PHASE] != hk.OVER:
        hk.observe_rows(one, who, S, M, pile, R, obs)
        act[0] = gated_act_row(obs, mask, np.int64(0), fp, ip, gates, R[hk.R_KNOCK_LIMIT])
        hk.apply_rows(one, act, S, M, deck, pile, mask, R, rewards, ended)
    return rewards[0, p]


@njit(cache=True)
def mean_points(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray, i: int,
                R: np.ndarray, first: int, p: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
                shuffled: np.ndarray, n: int, vals: np.ndarray, S2: np.ndarray, M2: np.ndarray, deck2: np.ndarray,
                pile2: np.ndarray, mask2: np.ndarray, obs2: np.ndarray) -> tuple[float, float]:
    """(mean, standard error) of player ``p``'s points after ``first`` from row ``i`` of the state arrays, over
    the first ``n`` decks of ``shuffled`` (the row's deck replaced by each), the continuation policy playing on
    (:func:`finish_hand`); ``vals`` and the one-row arrays are scratch."""
    tot = 0.0
    for r in range(n):
        _copy(S, M, deck, pile, mask, i, S2, M2, deck2, pile2, mask2)
        deck2[0, :] = shuffled[r, :]
        vals[r] = finish_hand(S2, M2, deck2, pile2, mask2, R, first, p, fp, ip, gates, obs2)
        tot += vals[r]
    m = tot / n
    var = 0.0
    for r in range(n):
        var += (vals[r] - m) ** 2
    return m, (np.sqrt(var / (n - 1) / n) if n > 1 else 0.0)


@njit(cache=True, parallel=True)
def label_deals(kind: int, decks: np.ndarray, seeds: np.ndarray, K: int, rate: float, R: np.ndarray,
                fp: np.ndarray, ip: np.ndarray, gates: tuple, feats: np.ndarray,
                alt_v: np.ndarray, alt_se: np.ndarray, base_v: np.ndarray, rank: np.ndarray, player: np.ndarray,
                ndec: np.ndarray, team_points: np.ndarray) -> None:
    """Play deal ``d`` (``decks[d]``) and label its decisions of ``kind`` (each with probability
    ``rate``, at most ``feats.shape[1]`` rows: one per alternative).

    Writes, for row ``j`` of deal ``d``: ``feats[d, j]`` (the gate features), ``alt_v[d, j]``
    (mean points of the alternative over the ``K`` shuffles, the acting player's), ``alt_se`` (its
    standard error), ``base_v`` (points of the heuristic's choice, the same shuffles), ``rank`` (the
    alternative's number in its decision, from 1), ``player`` (0 team, 1 box); and ``ndec[d]`` (the
    rows written), ``team_points[d]`` (the team's points of the deal as the state policy played it).
    The state and continuation policy is the gated player of ``gates`` (stacked, :func:`.gates.stack_gates`;
    no gates: the heuristic)."""
    n = decks.shape[0]
    max_dec = feats.shape[1]
    for d in prange(n):
        S = np.zeros((1, hk.NUM_COLS), np.int64)
        M = np.zeros((1, 6), np.int64)
        deck = np.zeros((1, NUM_CARDS), np.int8)
        pile = np.zeros((1, NUM_CARDS), np.int8)
        mask = np.zeros((1, NUM_ACTIONS), np.int8)
        S2 = np.zeros((1, hk.NUM_COLS), np.int64)
        M2 = np.zeros((1, 6), np.int64)
        deck2 = np.zeros((1, NUM_CARDS), np.int8)
        pile2 = np.zeros((1, NUM_CARDS), np.int8)
        mask2 = np.zeros((1, NUM_ACTIONS), np.int8)
        obs = np.zeros((1, hk.OBS_SIZE), np.float32)
        obs2 = np.zeros((1, hk.OBS_SIZE), np.float32)
        x = np.zeros((MAX_ALTERNATIVES, MAX_FEATURES), np.float64)
        alts = np.zeros(MAX_ALTERNATIVES, np.int64)
        nf = feats.shape[2]
        limit = R[hk.R_KNOCK_LIMIT]
        shuffled = np.zeros((K, NUM_CARDS), np.int8)
        vals = np.zeros(K, np.float64)
        one = np.zeros(1, np.int64)
        act = np.zeros(1, np.int64)
        who = np.full(1, -1, np.int64)
        row = np.int64(0)  # the one row's index as an int64, not the literal 0 (see kernels/jit.py)
        rewards = np.zeros((1, 2), np.float32)
        ended = np.zeros(1, np.int64)
        S[0, hk.KNOCKER : hk.KNOCK_CARD + 1] = -1
        hk.deal_rows(one, decks[d : d + 1], S, M, deck, pile, mask, R)
        np.random.seed(seeds[d])
        j = 0
        while S[0, hk.PHASE] != hk.OVER:
            hk.observe_rows(one, who, S, M, pile, R, obs)
            base = act_row(obs, mask, row, fp, ip)
            a = gated_choice(base, obs, mask, row, fp, ip, gates, limit)
            if j < max_dec:
                na = alternatives(kind, obs, mask, row, base, fp, ip, limit, x, alts)
                if na > 0 and j + na <= max_dec and (rate >= 1.0 or np.random.random() < rate):
                    p = S[0, hk.PLAYER]
                    pos = S[0, hk.POS]
                    for r in range(K):
                        shuffled[r, :] = deck[0, :]
                        np.random.shuffle(shuffled[r, pos:])
                    if base >= KNOCK_BASE:  # a knock ends the hand at once: the same under every shuffle
                        _copy(S, M, deck, pile, mask, row, S2, M2, deck2, pile2, mask2)
                        bv = finish_hand(S2, M2, deck2, pile2, mask2, R, base, p, fp, ip, gates, obs2)
                    else:
                        bv = mean_points(S, M, deck, pile, mask, row, R, base, p, fp, ip, gates, shuffled, K, vals,
                                         S2, M2, deck2, pile2, mask2, obs2)[0]
                    for i in range(na):
                        feats[d, j, :] = x[i, :nf]
                        alt_v[d, j], alt_se[d, j] = mean_points(S, M, deck, pile, mask, row, R, alts[i], p, fp, ip,
                                                                gates, shuffled, K, vals, S2, M2, deck2, pile2,
                                                                mask2, obs2)
                        base_v[d, j] = bv
                        rank[d, j] = i + 1
                        player[d, j] = p
                        j += 1
            act[0] = a
            hk.apply_rows(one, act, S, M, deck, pile, mask, R, rewards, ended)
        ndec[d] = j
        team_points[d] = rewards[0, 0]
