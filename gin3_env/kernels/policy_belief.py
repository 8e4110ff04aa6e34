"""Compiled steps of a belief whose likelihood is the opponent's own policy.

The particle belief of :mod:`.belief_kernels` scores the opponent's moves under a model of the
heuristic written into the kernel. Here any player with a batched form (``act(observations,
masks) -> actions``) is the model instead: for one opponent turn and every particle (a guess of
the opponent's hidden cards),

1. :func:`decision_rows` builds the observation and the legal mask the opponent had at its
   pickup decision (take the face-up card, pass, draw) holding the particle's cards, exactly as
   the batched core encodes them (:func:`.hand_kernels.observe_rows`, :func:`.hand_kernels.legal_row`);
2. the model plays every row (outside the kernels: a model may be a network);
3. :func:`score_rows` adds ``log((1 - eps) [model's move = the move seen] + eps / legal moves)``
   to each particle's log-weight;
4. :func:`draw_step` adds the card a stock draw brought (drawn from the unseen pool; forced where
   the discard was a card never seen that the particle does not hold, with the prior's weight
   ``1 / |pool|``), then steps 1-3 again at the discard decision, then the discard leaves the hand.
"""

from __future__ import annotations

import numpy as np

from . import hand_kernels as hk
from .belief_kernels import stock_draw
from .jit import njit


@njit(cache=True)
def decision_rows(hands: np.ndarray, phase: int, player: int, turns: int, stock_only: int, taken: int,
                  stock: int, pile_mask: int, top: int, known_other: int, declined_other: int, declined_own: int,
                  R: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
    """``obs[k]``, ``mask[k]``: ``player``'s observation and legal mask holding ``hands[k]`` at a decision
    whose public part is the other arguments (``known_other``/``declined_other``: the other player's known
    and declined cards; ``declined_own``: ``player``'s; ``top`` -1: no face-up card)."""
    n = hands.shape[0]
    S = np.zeros((n, hk.NUM_COLS), np.int64)
    M = np.zeros((n, hk.NUM_MASKS), np.int64)
    pile = np.zeros((n, 52), np.int8)
    kd = np.zeros(52, np.int64)
    order = np.zeros(52, np.int64)
    rows = np.arange(n)
    who = np.full(n, -1, np.int64)
    other = 1 - player
    n_pile = 0
    for c in range(52):
        if (pile_mask >> c) & 1:
            for k in range(n):
                pile[k, n_pile] = c
            n_pile += 1
    if top >= 0:
        for k in range(n):
            pile[k, n_pile] = top
        n_pile += 1
    for k in range(n):
        S[k, hk.PHASE] = phase
        S[k, hk.PLAYER] = player
        S[k, hk.TURNS] = turns
        S[k, hk.STOCK_ONLY] = stock_only
        S[k, hk.TAKEN] = taken
        S[k, hk.POS] = 52 - stock
        S[k, hk.PILE_LEN] = n_pile
        S[k, hk.KNOCKER] = -1
        M[k, hk.HAND0 + player] = hands[k]
        M[k, hk.KNOWN0 + other] = known_other
        M[k, hk.DECLINED0 + other] = declined_other
        M[k, hk.DECLINED0 + player] = declined_own
        hk.legal_row(k, S, M, mask, R, kd, order)
    hk.observe_rows(rows, who, S, M, pile, R, obs)


@njit(cache=True)
def score_rows(logw: np.ndarray, model: np.ndarray, seen: int, mask: np.ndarray, eps: float) -> None:
    """``logw[k] += log((1 - eps) [model[k] = seen] + eps / legal moves of row k)``; rows already at
    ``-inf`` stay there."""
    for k in range(logw.shape[0]):
        if logw[k] == -np.inf:
            continue
        n_legal = 0
        for a in range(mask.shape[1]):
            n_legal += mask[k, a]
        p = eps / max(n_legal, 1)
        if model[k] == seen:
            p += 1.0 - eps
        logw[k] += np.log(p)


@njit(cache=True)
def draw_step(hidden: np.ndarray, logw: np.ndarray, u: np.ndarray, took: bool, d: int, d_hidden: bool,
              pool: int) -> None:
    """Every particle's hidden cards after the turn's pickup: a stock draw adds a card of ``pool`` the
    particle lacks (``u[k]`` picks it), forced to ``d`` where the discard ``d`` was never seen and the
    particle does not hold it (weight ``1 / |pool|``). A particle that cannot have made the turn's
    moves (it took the card, yet its hidden discard is not among its cards) gets ``-inf``."""
    for k in range(hidden.shape[0]):
        if logw[k] == -np.inf:
            continue
        h = hidden[k]
        dbit = np.int64(1) << d
        if took:
            if d_hidden and not (h & dbit):
                logw[k] = -np.inf
            continue
        drawn, weight = stock_draw(h, u[k], d, d_hidden, pool)
        if drawn < 0:
            logw[k] = -np.inf
            continue
        logw[k] += weight
        hidden[k] = h | (np.int64(1) << drawn)
