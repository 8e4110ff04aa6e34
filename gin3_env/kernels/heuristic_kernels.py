"""``HeuristicPolicy`` compiled: the same choice on every observation row.

Each function is the kernel twin of a method of
:class:`gin3_env.policies.heuristic.HeuristicPolicy`, with its floating-point operations in
the same order (so equal scores tie the same way) and its dict iterations in the same order.
The action ids, the phase codes and the observation's offsets are the engine's and the layout
table's own names (module globals, which numba compiles in as constants).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..engine.actions import DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, NUM_ACTIONS, PASS, TAKE_DISCARD
from ..engine.cards import FULL_MASK, NUM_CARDS
from ..engine.hand import HAND_SIZE
from ..engine.phases import Phase
from ..observation.layout import (
    HAND_PLANE,
    OPP_DECLINED_PLANE,
    OPP_KNOWN_PLANE,
    PHASE_OFFSET,
    PILE_PLANE,
    PLANE,
    STOCK_INDEX,
    STOCK_SCALE,
    TOP_PLANE,
)
from .jit import njit
from .meld_kernels import best_deadwood_cards, deadwood, knock_deadwoods, knock_min, popcount
from .tables import POINTS

SUIT = 0x1FFF
FULL = FULL_MASK
NUM_PHASES = len(Phase)
DISCARD = int(Phase.DISCARD)
# float params
F_OUTS, F_DANGER = 0, 1
# int params
I_KNOCK_LIMIT, I_TAKE_ON_KNOCK, I_EARLY_MAX, I_EARLY_STOCK, I_LATE_MAX, I_LATE_STOCK, I_OUTS_SCALE, I_SIMPLE = range(8)


@njit(cache=True)
def obs_plane(obs: np.ndarray, k: int, plane: int) -> int:
    m = 0
    base = plane * PLANE
    for c in range(PLANE):
        if obs[k, base + c] > 0.5:
            m |= 1 << c
    return m


@njit(cache=True)
def _single(m: int) -> int:
    if m == 0:
        return -1
    n = 51
    while not (m >> n) & 1:
        n -= 1
    return n


@njit(cache=True)
def meld_outs(hand: int) -> int:
    s0, s1, s2, s3 = hand & SUIT, (hand >> 13) & SUIT, (hand >> 26) & SUIT, (hand >> 39) & SUIT
    pairs = (s0 & s1) | (s0 & s2) | (s0 & s3) | (s1 & s2) | (s1 & s3) | (s2 & s3)
    out = 0
    for k in range(4):
        m = (hand >> (13 * k)) & SUIT
        runs = ((m << 1) & (m << 2)) | ((m >> 1) & (m << 1)) | ((m >> 1) & (m >> 2))
        out |= ((runs | pairs) & SUIT & ~m) << (13 * k)
    return out


@njit(cache=True)
def potential(hand: int, unseen: int) -> float:
    n = popcount(unseen)
    if not n:
        return 0.0
    base = deadwood(hand)
    gain = 0
    x = meld_outs(hand) & unseen
    while x:
        low = x & -x
        after = knock_min(hand | low)
        if after < base:
            gain += base - after
        x ^= low
    return gain / n


@njit(cache=True)
def _is_meld3(a: int, b: int, c: int) -> bool:
    r0, r1, r2 = a % 13, b % 13, c % 13
    if r0 > r1:
        r0, r1 = r1, r0
    if r1 > r2:
        r1, r2 = r2, r1
    if r0 > r1:
        r0, r1 = r1, r0
    if r0 == r2:
        return True
    return a // 13 == b // 13 and b // 13 == c // 13 and r1 == r0 + 1 and r2 == r1 + 1


@njit(cache=True)
def _chance(card: int, known: int, unseen: int, p_hidden: float) -> float:
    if (known >> card) & 1:
        return 1.0
    if (unseen >> card) & 1:
        return p_hidden
    return 0.0


@njit(cache=True)
def _pair_term(a: int, b: int, known: int, unseen: int, declined: int, p_hidden: float) -> float:
    p = _chance(a, known, unseen, p_hidden) * _chance(b, known, unseen, p_hidden)
    if p:
        x = declined
        while x:
            low = x & -x
            d = 0
            while not (low >> d) & 1:
                d += 1
            if _is_meld3(d, a, b):
                p *= 0.25
                break
            x ^= low
    return p


@njit(cache=True)
def danger(card: int, opp_declined: int, known: int, unseen: int, p_hidden: float) -> float:
    if (opp_declined >> card) & 1:
        return 0.0
    rank, suit = card % 13, card // 13
    o0 = o1 = o2 = -1
    for s in range(4):
        if s != suit:
            c = s * 13 + rank
            if o0 < 0:
                o0 = c
            elif o1 < 0:
                o1 = c
            else:
                o2 = c
    total = 0.0
    total += _pair_term(o0, o1, known, unseen, opp_declined, p_hidden)
    total += _pair_term(o0, o2, known, unseen, opp_declined, p_hidden)
    total += _pair_term(o1, o2, known, unseen, opp_declined, p_hidden)
    base = suit * 13
    for lo in range(rank - 2, rank + 1):
        if lo >= 0 and lo + 2 <= 12:
            first = -1
            second = -1
            for r in range(lo, lo + 3):
                if r != rank:
                    if first < 0:
                        first = r
                    else:
                        second = r
            total += _pair_term(base + first, base + second, known, unseen, opp_declined, p_hidden)
    return total


@njit(cache=True)
def hidden_share(known: int, unseen: int) -> float:
    """The chance that an unseen card is in the opponent's hand: its hidden cards (the hand's 10 less
    the ``known`` ones) over the ``unseen`` cards."""
    n_unseen = popcount(unseen)
    hidden = max(0, HAND_SIZE - popcount(known))
    return min(1.0, hidden / n_unseen) if n_unseen else 0.0


@njit(cache=True)
def discard_scores(hand: int, cands: np.ndarray, nc: int, kd: np.ndarray, unseen_all: int, known: int,
            opp_declined: int, stock: int, fp: np.ndarray, ip: np.ndarray, out: np.ndarray) -> None:
    """out[j] = score of discarding cands[j] (lower is better): _discard_scores."""
    if ip[I_SIMPLE]:
        dead = best_deadwood_cards(hand)
        for j in range(nc):
            c = cands[j]
            v = kd[c] - (100 if (dead >> c) & 1 else 0)
            out[j] = v - POINTS[c] / 100
        return
    p_hidden = hidden_share(known, unseen_all)
    unseen = unseen_all & ~hand
    best = 1 << 30
    for j in range(nc):
        if kd[cands[j]] < best:
            best = kd[cands[j]]
    outs_weight = fp[F_OUTS]
    if ip[I_OUTS_SCALE] > 0:
        outs_weight *= min(1.0, stock / ip[I_OUTS_SCALE])
    for j in range(nc):
        c = cands[j]
        score = float(kd[c])
        if kd[c] <= best + 12:
            score -= outs_weight * potential(hand & ~(1 << c), unseen)
        score += fp[F_DANGER] * danger(c, opp_declined, known, unseen_all, p_hidden)
        out[j] = score - POINTS[c] / 100


@njit(cache=True)
def _argmin(cands: np.ndarray, scores: np.ndarray, nc: int) -> int:
    """min(cands, key=(score, card))."""
    best = 0
    for j in range(1, nc):
        if scores[j] < scores[best] or (scores[j] == scores[best] and cands[j] < cands[best]):
            best = j
    return cands[best]


@njit(cache=True)
def should_knock(dw: int, stock: int, ip: np.ndarray) -> bool:
    if dw == 0 or ip[I_SIMPLE]:
        return True
    if stock > ip[I_EARLY_STOCK]:
        return dw <= ip[I_EARLY_MAX]
    if stock <= ip[I_LATE_STOCK]:
        return dw <= ip[I_LATE_MAX]
    return True


@njit(cache=True)
def take_drop(with_top: int, top: int, kd: np.ndarray, order: np.ndarray) -> tuple[int, int]:
    """(the least deadwood after taking ``top`` and discarding another card, the card the heuristic
    reckons it would drop) for the hand ``with_top`` (the hand with ``top``)."""
    n = knock_deadwoods(with_top, kd, order)
    after = 1 << 30
    drop = -1
    for j in range(n):
        c = order[j]
        if c == top:
            continue
        if kd[c] < after:
            after = kd[c]
        if drop < 0 or kd[c] < kd[drop] or (kd[c] == kd[drop] and -POINTS[c] < -POINTS[drop]):
            drop = c
    return after, drop


@njit(cache=True)
def wants_take(hand: int, top: int, ip: np.ndarray, kd: np.ndarray, order: np.ndarray) -> bool:
    with_top = hand | (1 << top)
    after, drop = take_drop(with_top, top, kd, order)
    now = deadwood(hand)
    in_meld = not (best_deadwood_cards(with_top & ~(1 << drop)) >> top) & 1
    if in_meld and after < now:
        return True
    return (not ip[I_SIMPLE]) and ip[I_TAKE_ON_KNOCK] != 0 and after <= ip[I_KNOCK_LIMIT] and ip[I_KNOCK_LIMIT] < now


@njit(cache=True)
def act_row(obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray) -> int:
    """HeuristicPolicy.act on row ``k`` of (observations, masks)."""
    n_legal = 0
    first = -1
    for a in range(NUM_ACTIONS):
        if mask[k, a]:
            n_legal += 1
            if first < 0:
                first = a
    if n_legal == 1:
        return first
    phase = 0
    for j in range(1, NUM_PHASES):
        if obs[k, PHASE_OFFSET + j] > obs[k, PHASE_OFFSET + phase]:
            phase = j
    hand = obs_plane(obs, k, HAND_PLANE)
    top = _single(obs_plane(obs, k, TOP_PLANE))
    pile = obs_plane(obs, k, PILE_PLANE)
    known = obs_plane(obs, k, OPP_KNOWN_PLANE)
    opp_declined = obs_plane(obs, k, OPP_DECLINED_PLANE)
    stock = int(np.rint(np.float64(obs[k, STOCK_INDEX]) * STOCK_SCALE))
    kd = np.zeros(NUM_CARDS, np.int64)
    order = np.zeros(NUM_CARDS, np.int64)
    if phase == DISCARD:
        top_bit = 0 if top < 0 else (1 << top)
        unseen_all = FULL & ~(hand | pile | top_bit | known)
        cands = np.zeros(NUM_CARDS, np.int64)
        scores = np.zeros(NUM_CARDS, np.float64)
        knock_deadwoods(hand, kd, order)
        nk = 0
        for c in range(NUM_CARDS):
            if mask[k, KNOCK_BASE + c]:
                cands[nk] = c
                nk += 1
        if nk:
            low = 1 << 30
            for j in range(nk):
                if kd[cands[j]] < low:
                    low = kd[cands[j]]
            if should_knock(low, stock, ip):
                nb = np.int64(0)  # an int64 from the start: a literal 0 would compile discard_scores again
                for j in range(nk):
                    if kd[cands[j]] == low:
                        cands[nb] = cands[j]
                        nb += 1
                if nb == 1:
                    return KNOCK_BASE + cands[0]
                discard_scores(hand, cands, nb, kd, unseen_all, known, opp_declined, stock, fp, ip, scores)
                return KNOCK_BASE + _argmin(cands, scores, nb)
        nd = np.int64(0)
        for c in range(NUM_CARDS):
            if mask[k, DISCARD_BASE + c]:
                cands[nd] = c
                nd += 1
        discard_scores(hand, cands, nd, kd, unseen_all, known, opp_declined, stock, fp, ip, scores)
        return DISCARD_BASE + _argmin(cands, scores, nd)
    if mask[k, TAKE_DISCARD] and top >= 0:
        if wants_take(hand, top, ip, kd, order):
            return TAKE_DISCARD
        return PASS if mask[k, PASS] else DRAW_STOCK
    return first


@njit(cache=True)
def act_serial(obs: np.ndarray, mask: np.ndarray, fp: np.ndarray, ip: np.ndarray, out: np.ndarray) -> None:
    for k in range(obs.shape[0]):
        out[k] = act_row(obs, mask, k, fp, ip)


@njit(cache=True, parallel=True)
def act_parallel(obs: np.ndarray, mask: np.ndarray, fp: np.ndarray, ip: np.ndarray, out: np.ndarray) -> None:
    for k in prange(obs.shape[0]):
        out[k] = act_row(obs, mask, k, fp, ip)


@njit(cache=True)
def first_empty_row(mask: np.ndarray) -> int:
    """Index of the first mask row with no legal action, or -1."""
    for k in range(mask.shape[0]):
        empty = True
        for a in range(mask.shape[1]):
            if mask[k, a]:
                empty = False
                break
        if empty:
            return k
    return -1


@njit(cache=True)
def random_legal(mask: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """out[k] = the floor(u[k] * count)-th legal action of row k (uniform for u uniform in [0, 1))."""
    for k in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            count += mask[k, a] != 0
        pick = int(u[k] * count)
        for a in range(mask.shape[1]):
            if mask[k, a]:
                if pick == 0:
                    out[k] = a
                    break
                pick -= 1
