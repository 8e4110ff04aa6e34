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

Whole-history moves (resample-move): the opponent's turns are kept as rows of an event table
and each particle as a trajectory (its hidden cards now and the card it drew at each turn);
:func:`history_loglik` scores a trajectory on every recorded turn at once with the same model,
and :func:`rejuvenate` moves every particle by Metropolis-Hastings swaps of one or two hidden
cards for unseen ones, accepted on that likelihood.
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
            drawn, weight = stock_draw(h, u[k], d, d_hidden, pool)
            if drawn < 0:
                logw[k] = -np.inf
                continue
            logw[k] += weight
            h |= 1 << drawn
            hand |= 1 << drawn
        logw[k] += _discard_term(hand, d, forbidden, stock_after, disc_pile | top_bit, my_known, my_declined,
                                 knock_limit, fp, ip, log_knock_bad, inv_tau, kd, order, cands, scores)
        hidden[k] = h & ~dbit


@njit(cache=True)
def stock_draw(h: int, u: float, d: int, d_hidden: bool, pool: int) -> tuple[int, float]:
    """The card a particle holding ``h`` drew from the stock before discarding ``d`` (``u`` in [0, 1) picks it
    among the cards of ``pool`` it lacks), and the log-weight to add: forced to ``d`` where ``d`` was never seen
    and the particle does not hold it (weight ``-log |pool|``, the prior's). -1 where no draw fits."""
    p = pool & ~h
    n = popcount(p)
    if n == 0:
        return -1, 0.0
    if d_hidden and not (h >> d) & 1:
        if not (p >> d) & 1:
            return -1, 0.0
        return d, -np.log(n)
    return _nth_card(p, min(int(u * n), n - 1)), 0.0


@njit(cache=True)
def _discard_term(hand: int, d: int, forbidden: int, stock_after: int, seen_pile: int, my_known: int,
                  my_declined: int, knock_limit: int, fp: np.ndarray, ip: np.ndarray, log_knock_bad: float,
                  inv_tau: float, kd: np.ndarray, order: np.ndarray, cands: np.ndarray, scores: np.ndarray) -> float:
    """Log-likelihood of discarding ``d`` from the 11-card ``hand``: ``log eps_knock`` if the heuristic
    would have knocked, plus the softmax log-probability of ``d`` over the heuristic's discard scores."""
    n_cards = knock_deadwoods(hand, kd, order)
    nc = np.int64(0)
    low = 1 << 30
    for j in range(n_cards):
        c = order[j]
        if c != forbidden:
            cands[nc] = c
            nc += 1
            if kd[c] < low:
                low = kd[c]
    out = 0.0
    if low <= knock_limit and should_knock(low, stock_after, ip):
        out += log_knock_bad
    unseen_all = FULL & ~(hand | seen_pile | my_known)
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
    return out - (sd - m) * inv_tau - np.log(z)


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


# ---------------------------------------------------------------- whole-history moves
# One opponent turn as a row of an int64 event table (the keywords of :func:`opponent_turn`):
EV_KNOWN, EV_TOP, EV_KIND, EV_TOOK, EV_D, EV_D_HIDDEN, EV_POOL, EV_DISC_TOP, EV_DISC_PILE = range(9)
EV_MY_KNOWN, EV_MY_DECLINED, EV_STOCK_AFTER, EV_FORBIDDEN = range(9, 13)
EV_FIELDS = 13


@njit(cache=True)
def history_loglik(h_final: int, drawn: np.ndarray, ev: np.ndarray, n_ev: int, knock_limit: int, fp: np.ndarray,
                   ip: np.ndarray, eps_take: float, eps_knock: float, inv_tau: float, before: np.ndarray,
                   kd: np.ndarray, order: np.ndarray, cands: np.ndarray, scores: np.ndarray) -> float:
    """Log-likelihood of the opponent's first ``n_ev`` recorded turns (rows of ``ev``) for one
    trajectory: its hidden cards now (``h_final``) and the card it drew from the stock at each
    turn (``drawn[e]``, -1 where it took the offered card or did not draw). The hidden cards
    before each turn are rebuilt backwards (a hidden discard goes back in, the drawn card comes
    out); -inf where the trajectory cannot have made the moves seen. The prior of every
    trajectory consistent with the view is the same (uniform deal, uniform stock draws), so this
    is the posterior up to a constant."""
    h = h_final
    for e in range(n_ev - 1, -1, -1):
        d = ev[e, EV_D]
        if d >= 0 and ev[e, EV_D_HIDDEN]:
            h |= 1 << d
        if drawn[e] >= 0:
            h &= ~(1 << drawn[e])
        before[e] = h
    log_take_ok = np.log(1.0 - eps_take)
    log_take_bad = np.log(eps_take)
    log_knock_bad = np.log(eps_knock)
    ll = 0.0
    for e in range(n_ev):
        h = before[e]
        hand = h | ev[e, EV_KNOWN]
        top = ev[e, EV_TOP]
        took = ev[e, EV_TOOK] != 0
        if ev[e, EV_KIND] != KIND_FORCED and top >= 0:
            wants = wants_take(hand, top, ip, kd, order)
            ll += log_take_ok if wants == took else log_take_bad
        d = ev[e, EV_D]
        if d < 0:
            continue
        dbit = 1 << d
        if took:
            hand |= 1 << top
        else:
            if drawn[e] < 0:
                return -np.inf
            hand |= 1 << drawn[e]
        if ev[e, EV_D_HIDDEN] and not (hand & dbit):
            return -np.inf
        disc_top = ev[e, EV_DISC_TOP]
        seen_pile = ev[e, EV_DISC_PILE] | (0 if disc_top < 0 else (1 << disc_top))
        ll += _discard_term(hand, d, ev[e, EV_FORBIDDEN], ev[e, EV_STOCK_AFTER], seen_pile, ev[e, EV_MY_KNOWN],
                            ev[e, EV_MY_DECLINED], knock_limit, fp, ip, log_knock_bad, inv_tau, kd, order, cands,
                            scores)
    return ll


@njit(cache=True)
def _pick_two(n: int, u1: float, u2: float) -> tuple[int, int]:
    """Two distinct indices of ``range(n)`` (n >= 2), uniform over ordered pairs."""
    i = min(int(u1 * n), n - 1)
    j = min(int(u2 * (n - 1)), n - 2)
    if j >= i:
        j += 1
    return i, j


@njit(cache=True)
def rejuvenate(hidden: np.ndarray, drawn: np.ndarray, ev: np.ndarray, n_ev: int, pool: int, u: np.ndarray,
               p_pair: float, knock_limit: int, fp: np.ndarray, ip: np.ndarray, eps_take: float, eps_knock: float,
               inv_tau: float) -> int:
    """Metropolis-Hastings moves over whole hands: each of ``u.shape[1]`` steps per particle swaps
    one card (two with chance ``p_pair``) of its hidden cards for cards of ``pool`` it lacks (a
    swapped card drawn from the stock keeps its turn: ``drawn`` follows it), and accepts with
    chance ``min(1, L(new) / L(old))``, ``L`` the likelihood of the opponent's whole recorded
    history (:func:`history_loglik`). The proposal is symmetric and the prior uniform, so the
    posterior over trajectories is left invariant. ``u``: (particles, steps, 6) in [0, 1).
    Returns the number of accepted moves."""
    n_part, steps = u.shape[0], u.shape[1]
    before = np.zeros(max(n_ev, 1), np.int64)
    row = np.zeros(max(n_ev, 1), np.int64)
    kd = np.zeros(52, np.int64)
    order = np.zeros(52, np.int64)
    cands = np.zeros(52, np.int64)
    scores = np.zeros(52, np.float64)
    accepted = 0
    for k in range(n_part):
        h = hidden[k]
        ll = history_loglik(h, drawn[k], ev, n_ev, knock_limit, fp, ip, eps_take, eps_knock, inv_tau, before, kd,
                            order, cands, scores)
        for s in range(steps):
            out = pool & ~h
            n_in = popcount(h)
            n_out = popcount(out)
            if n_in == 0 or n_out == 0:
                break
            if u[k, s, 0] < p_pair and n_in >= 2 and n_out >= 2:
                i1, i2 = _pick_two(n_in, u[k, s, 1], u[k, s, 2])
                j1, j2 = _pick_two(n_out, u[k, s, 3], u[k, s, 4])
                x1, x2 = _nth_card(h, i1), _nth_card(h, i2)
                y1, y2 = _nth_card(out, j1), _nth_card(out, j2)
            else:
                x1 = _nth_card(h, min(int(u[k, s, 1] * n_in), n_in - 1))
                y1 = _nth_card(out, min(int(u[k, s, 3] * n_out), n_out - 1))
                x2 = y2 = -1
            h2 = (h & ~(1 << x1)) | (1 << y1)
            if x2 >= 0:
                h2 = (h2 & ~(1 << x2)) | (1 << y2)
            for e in range(n_ev):
                c = drawn[k, e]
                row[e] = y1 if c == x1 else (y2 if (x2 >= 0 and c == x2) else c)
            ll2 = history_loglik(h2, row, ev, n_ev, knock_limit, fp, ip, eps_take, eps_knock, inv_tau, before, kd,
                                 order, cands, scores)
            if ll2 > -np.inf and np.log(max(u[k, s, 5], 1e-300)) < ll2 - ll:
                h = h2
                ll = ll2
                for e in range(n_ev):
                    drawn[k, e] = row[e]
                accepted += 1
        hidden[k] = h
    return accepted
