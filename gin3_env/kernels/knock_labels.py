"""Labels of the knock decision on the true deal, in one compiled loop per deal.

Each deal is played by the *state policy* (the heuristic, or a gated player of
:mod:`.gate_kernels`) on both sides. At each discard decision where the heuristic would knock,
the two candidate moves are valued on the true deal (the opponent's real hand): *knock* (the
heuristic's knock discard) and *hold* (the heuristic's best plain discard). Each is played
from ``K`` continuations, the stock (``deck[POS:]``) reshuffled ``K`` ways, the same ``K``
shuffles for both moves (common random numbers), and both sides then play the
*continuation policy* (the same player as the state policy) to the end of the hand. The label
is ``D = value(hold) - value(knock)`` in the acting player's points; the features are
:func:`.gate_features.gate_features` of the acting player's own observation.

    out = label_deals(decks, seeds, K, R, fp, ip, gate..., max_dec)   # see :func:`label_deals`

A deal's shuffles come from ``np.random.seed(seeds[d])`` inside the kernel, so a deal's labels
do not depend on which thread played it or what was played before it.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..engine.actions import KNOCK_BASE, NUM_ACTIONS
from ..engine.cards import NUM_CARDS
from . import hand_kernels as hk
from .gate_kernels import NUM_GATE_FEATURES, gate_features, gated_act_row, hold_action
from .heuristic_kernels import act_row
from .jit import njit

__all__ = ["label_deals"]


@njit(cache=True)
def _copy(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray, S2: np.ndarray,
          M2: np.ndarray, deck2: np.ndarray, pile2: np.ndarray, mask2: np.ndarray) -> None:
    S2[0, :] = S[0, :]
    M2[0, :] = M[0, :]
    deck2[0, :] = deck[0, :]
    pile2[0, :] = pile[0, :]
    mask2[0, :] = mask[0, :]


@njit(cache=True)
def _finish(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray, R: np.ndarray,
            first: int, p: int, fp: np.ndarray, ip: np.ndarray, mean: np.ndarray, scale: np.ndarray,
            W1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: float, threshold: float, min_dw: int,
            obs: np.ndarray) -> float:
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
        act[0] = gated_act_row(obs, mask, 0, fp, ip, mean, scale, W1, b1, w2, b2, threshold, min_dw)
        hk.apply_rows(one, act, S, M, deck, pile, mask, R, rewards, ended)
    return rewards[0, p]


@njit(cache=True, parallel=True)
def label_deals(decks: np.ndarray, seeds: np.ndarray, K: int, R: np.ndarray, fp: np.ndarray, ip: np.ndarray,
                mean: np.ndarray, scale: np.ndarray, W1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: float,
                threshold: float, min_dw: int, feats: np.ndarray, hold_v: np.ndarray, hold_se: np.ndarray,
                knock_v: np.ndarray, player: np.ndarray, ndec: np.ndarray, team_points: np.ndarray) -> None:
    """Play deal ``d`` (``decks[d]``) and label its knock decisions (at most ``feats.shape[1]``).

    Writes, for decision ``j`` of deal ``d``: ``feats[d, j]`` (the gate features), ``hold_v[d, j]``
    (mean points of holding over the ``K`` shuffles, the acting player's), ``hold_se`` (its standard
    error), ``knock_v`` (points of knocking, the same shuffles), ``player`` (0 team, 1 box); and
    ``ndec[d]`` (the decisions labelled), ``team_points[d]`` (the team's points of the deal as the
    state policy played it). ``mean.shape[0] == 0`` means no gate: the heuristic plays."""
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
        x = np.zeros(NUM_GATE_FEATURES, np.float64)
        shuffled = np.zeros((K, NUM_CARDS), np.int8)
        vals = np.zeros(K, np.float64)
        one = np.zeros(1, np.int64)
        act = np.zeros(1, np.int64)
        who = np.full(1, -1, np.int64)
        rewards = np.zeros((1, 2), np.float32)
        ended = np.zeros(1, np.int64)
        S[0, hk.KNOCKER : hk.KNOCK_CARD + 1] = -1
        hk.deal_rows(one, decks[d : d + 1], S, M, deck, pile, mask, R)
        np.random.seed(seeds[d])
        j = 0
        while S[0, hk.PHASE] != hk.OVER:
            hk.observe_rows(one, who, S, M, pile, R, obs)
            a = gated_act_row(obs, mask, 0, fp, ip, mean, scale, W1, b1, w2, b2, threshold, min_dw)
            if j < max_dec and S[0, hk.PHASE] == hk.DISCARD:
                knock = act_row(obs, mask, 0, fp, ip)
                hold = hold_action(obs, mask, 0, fp, ip) if knock >= KNOCK_BASE else -1
                if knock >= KNOCK_BASE and 0 <= hold < KNOCK_BASE:
                    p = S[0, hk.PLAYER]
                    gate_features(obs, mask, 0, knock, hold, x)
                    feats[d, j, :] = x
                    pos = S[0, hk.POS]
                    for r in range(K):
                        shuffled[r, :] = deck[0, :]
                        np.random.shuffle(shuffled[r, pos:])
                    tot = 0.0
                    for r in range(K):
                        _copy(S, M, deck, pile, mask, S2, M2, deck2, pile2, mask2)
                        deck2[0, :] = shuffled[r, :]
                        vals[r] = _finish(S2, M2, deck2, pile2, mask2, R, hold, p, fp, ip, mean, scale, W1, b1, w2,
                                          b2, threshold, min_dw, obs2)
                        tot += vals[r]
                    m = tot / K
                    var = 0.0
                    for r in range(K):
                        var += (vals[r] - m) ** 2
                    hold_v[d, j] = m
                    hold_se[d, j] = np.sqrt(var / (K - 1) / K) if K > 1 else 0.0
                    # a knock ends the hand at once: its value is the same under every shuffle
                    _copy(S, M, deck, pile, mask, S2, M2, deck2, pile2, mask2)
                    knock_v[d, j] = _finish(S2, M2, deck2, pile2, mask2, R, knock, p, fp, ip, mean, scale, W1,
                                            b1, w2, b2, threshold, min_dw, obs2)
                    player[d, j] = p
                    j += 1
            act[0] = a
            hk.apply_rows(one, act, S, M, deck, pile, mask, R, rewards, ended)
        ndec[d] = j
        team_points[d] = rewards[0, 0]
