"""Compiled meld arithmetic: deadwood, knock deadwoods, the best arrangement, the showdown.

Each function mirrors its scalar twin in :mod:`gin3_env.engine.melds` and
:mod:`gin3_env.engine.showdown` and is checked against it in ``tests/test_vector_core.py``.
Masks are 52-bit ``int64`` values (bit ``card`` set for each card held). Where the scalar code
keeps the first of equal candidates (``min`` over a generator), the kernels walk the candidates
in the same order, so ties fall the same way.
"""

from __future__ import annotations

import numpy as np

from ..engine.result import UNDERCUT
from ..engine.showdown import knock_score as scalar_knock_score
from .jit import njit
from .tables import MELD_START, MELDS, POINTS, RUN_COVER, RUN_DW

# The score of a knock: the scalar engine's own function, compiled (written once).
knock_score = njit(cache=True)(scalar_knock_score)

SUIT = 0x1FFF
# combinations(range(4), 3) as suit masks, in itertools order
TRIOS4 = np.array([0b0111, 0b1011, 0b1101, 0b1110], dtype=np.int64)


@njit(cache=True)
def next_choice(dig: np.ndarray, nopt: np.ndarray, n: int) -> bool:
    """Advance the mixed-radix counter ``dig[:n]`` (digit ``i`` runs ``0..nopt[i]-1``, the last the
    fastest); False when it wraps round to all zeros, after the last choice."""
    i = n - 1
    while i >= 0:
        dig[i] += 1
        if dig[i] < nopt[i]:
            return True
        dig[i] = 0
        i -= 1
    return False


@njit(cache=True)
def popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def lowest_card(x: int) -> int:
    n = 0
    while not (x >> n) & 1:
        n += 1
    return n


@njit(cache=True)
def _set_option(held: int, j: int) -> int:
    """Option ``j`` of one rank whose held suits are ``held``: none, each trio, the quad."""
    if j == 0:
        return 0
    if held == 0b1111:
        if j <= 4:
            return TRIOS4[j - 1]
        return 0b1111
    return held


@njit(cache=True)
def set_choices(mask: int) -> np.ndarray:
    """Suit masks left for runs after each choice of sets, in the scalar generator's order.

    Row k holds the four 13-bit suit masks of choice k. The scalar code pushes each rank's
    options (none, trios, quad) on a stack, so it meets them last first, lowest rank outermost."""
    a, b, c, d = mask & SUIT, (mask >> 13) & SUIT, (mask >> 26) & SUIT, (mask >> 39) & SUIT
    ranks = (a & b & (c | d)) | (c & d & (a | b))
    nr = popcount(ranks)
    rk = np.empty(max(nr, 1), np.int64)
    held = np.empty(max(nr, 1), np.int64)
    nopt = np.empty(max(nr, 1), np.int64)
    total = 1
    k = 0
    for r in range(13):
        if (ranks >> r) & 1:
            h = ((a >> r) & 1) | (((b >> r) & 1) << 1) | (((c >> r) & 1) << 2) | (((d >> r) & 1) << 3)
            rk[k] = r
            held[k] = h
            nopt[k] = 6 if h == 0b1111 else 2
            total *= nopt[k]
            k += 1
    out = np.empty((total, 4), np.int64)
    dig = np.zeros(max(nr, 1), np.int64)
    for row in range(total):
        s0, s1, s2, s3 = a, b, c, d
        for i in range(nr):
            opt = _set_option(held[i], nopt[i] - 1 - dig[i])
            bit = 1 << rk[i]
            if opt & 1:
                s0 &= ~bit
            if opt & 2:
                s1 &= ~bit
            if opt & 4:
                s2 &= ~bit
            if opt & 8:
                s3 &= ~bit
        out[row, 0] = s0
        out[row, 1] = s1
        out[row, 2] = s2
        out[row, 3] = s3
        next_choice(dig, nopt, nr)
    return out


@njit(cache=True)
def deadwood(mask: int) -> int:
    """Minimum deadwood of the cards of ``mask`` (up to 12 cards; the vector core holds at most 11)."""
    a, b, c, d = mask & SUIT, (mask >> 13) & SUIT, (mask >> 26) & SUIT, (mask >> 39) & SUIT
    if not ((a & b & (c | d)) | (c & d & (a | b))):
        return RUN_DW[a] + RUN_DW[b] + RUN_DW[c] + RUN_DW[d]
    ch = set_choices(mask)
    best = 1 << 30
    for k in range(ch.shape[0]):
        v = RUN_DW[ch[k, 0]] + RUN_DW[ch[k, 1]] + RUN_DW[ch[k, 2]] + RUN_DW[ch[k, 3]]
        if v < best:
            best = v
    return best


@njit(cache=True)
def _suit_drop_min(m: int, base: int, best: int) -> int:
    x = m
    while x:
        low = x & -x
        v = base + RUN_DW[m & ~low]
        if v < best:
            best = v
        x ^= low
    return best


@njit(cache=True)
def knock_min(mask: int) -> int:
    """min(knock_deadwoods(mask).values()): the least deadwood left after dropping one card."""
    a, b, c, d = mask & SUIT, (mask >> 13) & SUIT, (mask >> 26) & SUIT, (mask >> 39) & SUIT
    best = 1 << 30
    if not ((a & b & (c | d)) | (c & d & (a | b))):  # no set possible: no allocation
        ra, rb, rc, rd = RUN_DW[a], RUN_DW[b], RUN_DW[c], RUN_DW[d]
        total = ra + rb + rc + rd
        best = _suit_drop_min(a, total - ra, best)
        best = _suit_drop_min(b, total - rb, best)
        best = _suit_drop_min(c, total - rc, best)
        return _suit_drop_min(d, total - rd, best)
    ch = set_choices(mask)
    for k in range(ch.shape[0]):
        total = RUN_DW[ch[k, 0]] + RUN_DW[ch[k, 1]] + RUN_DW[ch[k, 2]] + RUN_DW[ch[k, 3]]
        for s in range(4):
            m = ch[k, s]
            best = _suit_drop_min(m, total - RUN_DW[m], best)
    return best


@njit(cache=True)
def _choice_drops(s0: int, s1: int, s2: int, s3: int, kd: np.ndarray, order: np.ndarray, seen: int, n: int):
    """One set choice's contribution to knock_deadwoods (suits s0..s3 left for runs)."""
    total = RUN_DW[s0] + RUN_DW[s1] + RUN_DW[s2] + RUN_DW[s3]
    for s in range(4):
        m = s0 if s == 0 else (s1 if s == 1 else (s2 if s == 2 else s3))
        base = total - RUN_DW[m]
        x = m
        while x:
            low = x & -x
            r = lowest_card(low)
            card = s * 13 + r
            v = base + RUN_DW[m & ~low]
            if not (seen >> card) & 1:
                seen |= 1 << card
                order[n] = card
                n += 1
                kd[card] = v
            elif v < kd[card]:
                kd[card] = v
            x ^= low
    return seen, n


@njit(cache=True)
def knock_deadwoods(mask: int, kd: np.ndarray, order: np.ndarray) -> int:
    """kd[card] = deadwood of the other cards for each card of ``mask``; ``order`` gets the cards
    in the insertion order of the scalar dict. Returns the number of cards."""
    a, b, c, d = mask & SUIT, (mask >> 13) & SUIT, (mask >> 26) & SUIT, (mask >> 39) & SUIT
    if not ((a & b & (c | d)) | (c & d & (a | b))):
        return _choice_drops(a, b, c, d, kd, order, 0, 0)[1]
    ch = set_choices(mask)
    seen = 0
    n = 0
    for k in range(ch.shape[0]):
        seen, n = _choice_drops(ch[k, 0], ch[k, 1], ch[k, 2], ch[k, 3], kd, order, seen, n)
    return n


@njit(cache=True)
def best_deadwood_cards(mask: int) -> int:
    """Mask of the deadwood cards of ``best_arrangement(mask)`` (the first minimum, as the scalar)."""
    ch = set_choices(mask)
    best = 1 << 30
    pick = 0
    for k in range(ch.shape[0]):
        v = RUN_DW[ch[k, 0]] + RUN_DW[ch[k, 1]] + RUN_DW[ch[k, 2]] + RUN_DW[ch[k, 3]]
        if v < best:
            best = v
            pick = k
    dead = 0
    for s in range(4):
        m = ch[pick, s]
        dead |= (m & ~RUN_COVER[m]) << (13 * s)
    return dead


# ------------------------------------------------------------------ showdown
@njit(cache=True)
def _layoff_deadwood(defender: int, melds: np.ndarray, n_melds: int) -> int:
    """The defender's least deadwood with layoffs onto the knocker's melds (best_layoffs)."""
    opts = np.zeros((max(n_melds, 1), 64), np.int64)
    nopt = np.ones(max(n_melds, 1), np.int64)  # option 0: lay nothing
    for i in range(n_melds):
        m = melds[i]
        ranks = 0
        for c in range(52):
            if (m >> c) & 1:
                ranks |= 1 << (c % 13)
        if popcount(ranks) == 1:
            rank = lowest_card(ranks)
            if popcount(m) == 3:
                for s in range(4):
                    card = s * 13 + rank
                    if not (m >> card) & 1 and (defender >> card) & 1:
                        opts[i, 1] = 1 << card
                        nopt[i] = 2
            continue
        suit = lowest_card(m) // 13
        lo = lowest_card(ranks)
        hi = 12
        while not (ranks >> hi) & 1:
            hi -= 1
        below = np.zeros(14, np.int64)
        above = np.zeros(14, np.int64)
        nb = 0
        r = lo - 1
        while r >= 0 and (defender >> (suit * 13 + r)) & 1:
            below[nb + 1] = below[nb] | (1 << (suit * 13 + r))
            nb += 1
            r -= 1
        na = 0
        r = hi + 1
        while r < 13 and (defender >> (suit * 13 + r)) & 1:
            above[na + 1] = above[na] | (1 << (suit * 13 + r))
            na += 1
            r += 1
        k = 1
        for x in range(nb + 1):
            for y in range(na + 1):
                if x or y:
                    opts[i, k] = below[x] | above[y]
                    k += 1
        nopt[i] = k
    best = deadwood(defender)
    if n_melds == 0:
        return best
    dig = np.zeros(n_melds, np.int64)
    while True:
        used = 0
        ok = True
        for i in range(n_melds):
            o = opts[i, dig[i]]
            if o & used:
                ok = False
                break
            used |= o
        if ok and used:
            v = deadwood(defender & ~used)
            if v < best:
                best = v
        if not next_choice(dig, nopt, n_melds):
            break
    return best


@njit(cache=True)
def showdown(knocker: int, defender: int, gin_bonus: int, undercut_bonus: int, limit: int):
    """(outcome code of :data:`gin3_env.engine.result.OUTCOMES`, knocker won, points, knocker dw,
    defender dw)."""
    own = deadwood(defender)
    if deadwood(knocker) == 0:
        outcome, won, pts = knock_score(0, own, gin_bonus, undercut_bonus)
        return outcome, won, pts, 0, own
    # Every spread with deadwood <= limit, by a depth-first walk over the lowest card left.
    left = np.zeros(12, np.int64)
    dead = np.zeros(12, np.int64)
    pos = np.zeros(12, np.int64)
    chosen = np.zeros(12, np.int64)
    melds = np.zeros(12, np.int64)
    best_key0, best_key1 = -(1 << 30), -(1 << 30)
    best = (UNDERCUT, False, 0, 0, 0)
    found = False
    d = 0
    left[0] = knocker
    dead[0] = 0
    pos[0] = -1
    while d >= 0:
        if left[d] == 0:
            nm = 0
            for j in range(d):
                if chosen[j]:
                    melds[nm] = chosen[j]
                    nm += 1
            k = dead[d]
            dd = _layoff_deadwood(defender, melds, nm)
            outcome, won, pts = knock_score(k, dd, gin_bonus, undercut_bonus)
            key0 = pts if won else -pts
            key1 = -k
            if not found or key0 > best_key0 or (key0 == best_key0 and key1 > best_key1):
                best_key0, best_key1 = key0, key1
                best = (outcome, won, pts, k, dd)
                found = True
            d -= 1
            continue
        card = lowest_card(left[d])
        p = pos[d]
        pos[d] += 1
        if p == -1:
            pts = POINTS[card]
            if dead[d] + pts <= limit:
                chosen[d] = 0
                left[d + 1] = left[d] ^ (1 << card)
                dead[d + 1] = dead[d] + pts
                pos[d + 1] = -1
                d += 1
            continue
        idx = MELD_START[card] + p
        if idx < MELD_START[card + 1]:
            m = MELDS[idx]
            if m & left[d] == m:
                chosen[d] = m
                left[d + 1] = left[d] & ~m
                dead[d + 1] = dead[d]
                pos[d + 1] = -1
                d += 1
            continue
        d -= 1
    return best
