"""Compiled particle updates for a belief over the opponent's hidden cards.

A particle is one guess of the opponent's hidden cards (a 52-bit mask). One opponent turn,
as the player saw it, updates every particle at once (:func:`opponent_turn`):

1. its pickup decision (take the offered card, or pass / draw from the stock) is scored
   under the heuristic's take rule (``heuristic_kernels.wants_take``): ``1 - eps_take`` if
   the heuristic holding the particle's hand would have done the same, else ``eps_take``;
2. a stock draw adds a card drawn from ``pool`` (the cards the player had not seen, less the
   particle's). Where the opponent then discards a card the player never saw and the particle
   does not hold, the draw must have been that card: it is forced, with the importance weight
   ``1 / |pool|`` of the prior (the draw is uniform), so no particle dies of it;
3. its discard decision: the heuristic knocks whenever it can, so a hand that could have
   knocked and did not scores ``eps_knock``; the discard ``d`` scores its softmax probability
   ``exp(-score(d) / tau) / sum_c exp(-score(c) / tau)`` over the heuristic's own discard scores
   (``heuristic_kernels.discard_scores``, the opponent's view: its hand, the pile, the player's known
   and declined cards).

Log-weights are added to ``logw``; the particles' hidden cards are updated in place.
"""

from __future__ import annotations

import numpy as np

from .heuristic_kernels import discard_scores, should_knock, wants_take
from .jit import njit
from .meld_kernels import knock_deadwoods, popcount

FULL = (1 << 52) - 1
KIND_OFFER, KIND_DRAW, KIND_FORCED = 0, 1, 2


@njit(cache=True)
def _nth_card(mask: int, j: int) -> int:
    """The ``j``-th lowest card of ``mask``."""
    x = mask
    while j > 0:
        x &= x - 1
        j -= 1
    low = x & -x
    c = 0
    while not (low >> c) & 1:
        c += 1
    return c


@njit(cache=True)
def opponent_turn(hidden: np.ndarray, logw: np.ndarray, u: np.ndarray, known_opp: int, top: int, kind: int,
                  took: bool, d: int, d_hidden: bool, pool: int, disc_top: int, disc_pile: int, my_known: int,
                  my_declined: int, stock_after: int, forbidden: int, knock_limit: int, fp: np.ndarray,
                  ip: np.ndarray, eps_take: float, eps_knock: float, inv_tau: float) -> None:
    """Update every particle by one opponent turn (see the module doc). ``d`` is -1 when the
    turn had no discard (a pass at the opening); ``u[k]`` in [0, 1) picks particle ``k``'s draw."""
    kd = np.zeros(52, np.int64)
    order = np.zeros(52, np.int64)
    cands = np.zeros(52, np.int64)
    scores = np.zeros(52, np.float64)
    log_take_ok = np.log(1.0 - eps_take)
    log_take_bad = np.log(eps_take)
    log_knock_bad = np.log(eps_knock)
    top_bit = 0 if disc_top < 0 else (1 << disc_top)
    for k in range(hidden.shape[0]):
        if logw[k] == -np.inf:
            continue
        h = hidden[k]
        hand = h | known_opp
        if kind != KIND_FORCED and top >= 0:
            wants = wants_take(hand, top, ip, kd, order)
            logw[k] += log_take_ok if wants == took else log_take_bad
        if d < 0:
            continue
        dbit = 1 << d
        if took:
            if d_hidden and not (h & dbit):
                logw[k] = -np.inf
                continue
            hand |= 1 << top
        else:
            p = pool & ~h
            n = popcount(p)
            if n == 0:
                logw[k] = -np.inf
                continue
            if d_hidden and not (h & dbit):
                if not (p & dbit):
                    logw[k] = -np.inf
                    continue
                drawn = d
                logw[k] -= np.log(n)
            else:
                j = int(u[k] * n)
                if j >= n:
                    j = n - 1
                drawn = _nth_card(p, j)
            h |= 1 << drawn
            hand |= 1 << drawn
        # the discard decision of the 11-card hand
        n_cards = knock_deadwoods(hand, kd, order)
        nc = 0
        low = 1 << 30
        for j in range(n_cards):
            c = order[j]
            if c != forbidden:
                cands[nc] = c
                nc += 1
                if kd[c] < low:
                    low = kd[c]
        if low <= knock_limit and should_knock(low, stock_after, ip):
            logw[k] += log_knock_bad
        unseen_all = FULL & ~(hand | disc_pile | top_bit | my_known)
        discard_scores(hand, cands, nc, kd, unseen_all, my_known, my_declined, stock_after, fp, ip, scores)
        m = np.inf
        sd = 0.0
        for j in range(nc):
            if scores[j] < m:
                m = scores[j]
            if cands[j] == d:
                sd = scores[j]
        z = 0.0
        for j in range(nc):
            z += np.exp(-(scores[j] - m) * inv_tau)
        logw[k] += -(sd - m) * inv_tau - np.log(z)
        hidden[k] = h & ~dbit


@njit(cache=True)
def repair(hidden: np.ndarray, card: int, pool: int, u: np.ndarray) -> None:
    """The player drew ``card`` from the stock: particles holding it get a card of ``pool`` instead."""
    bit = 1 << card
    for k in range(hidden.shape[0]):
        h = hidden[k]
        if h & bit:
            p = pool & ~h
            n = popcount(p)
            h &= ~bit
            if n:
                j = int(u[k] * n)
                if j >= n:
                    j = n - 1
                h |= 1 << _nth_card(p, j)
            hidden[k] = h


@njit(cache=True)
def sample_hidden(n_particles: int, pool: int, size: int, forced: int, u: np.ndarray) -> np.ndarray:
    """``n_particles`` uniform draws of ``size`` cards of ``pool``, each holding the ``forced`` cards."""
    out = np.zeros(n_particles, np.int64)
    rest = pool & ~forced
    m = popcount(rest)
    need = size - popcount(forced)
    idx = np.arange(m)
    for k in range(n_particles):
        h = forced
        # a partial Fisher-Yates shuffle of rest's indices
        for j in range(need):
            r = j + int(u[k, j] * (m - j))
            if r >= m:
                r = m - 1
            idx[j], idx[r] = idx[r], idx[j]
            h |= 1 << _nth_card(rest, idx[j])
        out[k] = h
    return out


@njit(cache=True)
def jitter(hidden: np.ndarray, pool: int, u: np.ndarray) -> None:
    """Roughening after a resampling: each particle swaps one of its cards for one of ``pool`` it lacks."""
    for k in range(hidden.shape[0]):
        h = hidden[k]
        n_in = popcount(h)
        p = pool & ~h
        n_out = popcount(p)
        if n_in == 0 or n_out == 0:
            continue
        i = min(int(u[k, 0] * n_in), n_in - 1)
        j = min(int(u[k, 1] * n_out), n_out - 1)
        hidden[k] = (h & ~(1 << _nth_card(h, i))) | (1 << _nth_card(p, j))


@njit(cache=True)
def sample_weighted(n_particles: int, pool: int, size: int, weights: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``n_particles`` draws of ``size`` cards of ``pool`` without replacement, each pick in
    proportion to ``weights[card]`` (cards of weight 0 only when nothing else is left)."""
    out = np.zeros(n_particles, np.int64)
    cards = np.zeros(52, np.int64)
    w = np.zeros(52, np.float64)
    m = 0
    for c in range(52):
        if (pool >> c) & 1:
            cards[m] = c
            w[m] = max(weights[c], 1e-12)
            m += 1
    left = np.zeros(52, np.float64)
    for k in range(n_particles):
        h = 0
        total = 0.0
        for i in range(m):
            left[i] = w[i]
            total += w[i]
        for j in range(min(size, m)):
            r = u[k, j] * total
            acc = 0.0
            pick = m - 1
            for i in range(m):
                if left[i] > 0:
                    acc += left[i]
                    if acc > r:
                        pick = i
                        break
            while left[pick] <= 0:
                pick -= 1
            h |= 1 << cards[pick]
            total -= left[pick]
            left[pick] = 0.0
        out[k] = h
    return out
