"""The gated continuation player, fused for the label kernel: the same move as
:func:`gin3_env.kernels.gates.gated_act_row` on every row, at about half the work.

The gated player (the heuristic switched by learnt gates) does three things twice or more at a discard:
the heuristic's discard scores (:func:`~gin3_env.kernels.heuristic_kernels.discard_scores`, whose outs term
calls ``knock_min`` once per card that would improve the hand, for each candidate discard) are computed
by the heuristic, then again by the discard gate's :func:`~gin3_env.kernels.decision_views.discard_top`;
the gate's features of each alternative recount the draws after the heuristic's own discard
(:func:`~gin3_env.kernels.decision_views.draw_outs`) once per alternative; and the draw gate counts the
draws of every unseen card, mostly hands that the discard scores and features of the turns around it meet
again. Here a discard's scores are computed once and serve both the heuristic's choice and the gate's
alternatives, the heuristic's own discard's draws are counted once, and ``knock_min`` (the least deadwood
after a drop, called some 300 times a turn) is computed without arrays and without its loop over cards
(:func:`fast_knock_min`: a table of each suit's best drop, :data:`DROP_GAIN`): the same integer, cheaper.

Every float is computed by the same operations in the same order as the functions it stands in for, so the
moves are the same, not merely close; ``tests/test_compact_labels.py`` plays hands with both and compares
every move.

numba's on-disk cache checks a cached function against its own file only: after editing this module, clear
``training/improve/__pycache__/*.nb[ic]`` (or touch ``label_kernels.py``), or the label kernels keep the
machine code of the version they were compiled with.
"""

from __future__ import annotations

import numpy as np

from gin3_env.engine.actions import DISCARD_BASE, KNOCK_BASE, NUM_ACTIONS, PASS, TAKE_DISCARD
from gin3_env.engine.cards import FULL_MASK, NUM_CARDS
from gin3_env.kernels.decision_features import (
    D_DEADWOOD_NOW,
    D_DRAW_BEATS_TAKE,
    D_DRAW_GIN,
    D_DRAW_KNOCKABLE,
    D_DRAW_MEAN_DEADWOOD,
    D_DROP_DANGER,
    D_DROP_POINTS,
    D_HAND_OUTS,
    D_HEURISTIC_TAKES,
    D_OFFER,
    D_OPP_DECLINED,
    D_OPP_KNOWN,
    D_OPP_KNOWN_OUTS,
    D_OWN_DECLINED,
    D_PILE,
    D_ROLE_BOX,
    D_STOCK,
    D_TAKE_DEADWOOD,
    D_TAKE_GAIN,
    D_TAKE_GAIN_X_STOCK,
    D_TAKE_GIN_OUTS,
    D_TAKE_IMPROVE_OUTS,
    D_TAKE_KNOCKABLE,
    D_TAKES_X_TAKE_GAIN,
    D_TOP_IS_OUT,
    D_TOP_MELDS,
    D_TOP_POINTS,
    D_TURN,
    D_UNSEEN,
    X_ALT_DANGER,
    X_ALT_DEADWOOD,
    X_ALT_GIN_OUTS,
    X_ALT_IMPROVE_OUTS,
    X_ALT_IN_MELD,
    X_ALT_KNOCKABLE,
    X_ALT_OPP_OUT,
    X_ALT_POINTS,
    X_BASE_DANGER,
    X_BASE_DEADWOOD,
    X_BASE_GIN_OUTS,
    X_BASE_IMPROVE_OUTS,
    X_BASE_IN_MELD,
    X_BASE_KNOCKABLE,
    X_BASE_OPP_OUT,
    X_BASE_POINTS,
    X_DANGER_DIFF,
    X_DEADWOOD_DIFF,
    X_DEADWOOD_DIFF_X_STOCK,
    X_IMPROVE_OUTS_DIFF,
    X_OPP_DECLINED,
    X_OPP_KNOWN,
    X_OUTS_DIFF_X_STOCK,
    X_RANK,
    X_ROLE_BOX,
    X_SCORE_GAP,
    X_STOCK,
    X_TURN,
    X_UNSEEN,
    _clear,
)
from gin3_env.kernels.decision_views import TOP_DISCARDS, draw_alternative, view_counts, view_masks
from gin3_env.kernels.decisions import DISCARD_DECISION, DRAW_DECISION, MAX_ALTERNATIVES, MAX_FEATURES
from gin3_env.kernels.gates import gate_allows, gate_score, gated_choice
from gin3_env.kernels.heuristic_kernels import (
    DISCARD,
    F_DANGER,
    F_OUTS,
    I_OUTS_SCALE,
    I_SIMPLE,
    NUM_PHASES,
    _argmin,
    _single,
    act_row,
    danger,
    hidden_share,
    meld_outs,
    obs_plane,
    should_knock,
    take_drop,
)
from gin3_env.kernels.jit import njit
from gin3_env.kernels.meld_kernels import (
    TRIOS4,
    best_deadwood_cards,
    deadwood,
    knock_deadwoods,
    knock_min,
    popcount,
)
from gin3_env.kernels.tables import POINTS, RUN_DW
from gin3_env.observation.layout import (
    HAND_PLANE,
    OPP_DECLINED_PLANE,
    OPP_KNOWN_PLANE,
    PHASE_OFFSET,
    PILE_PLANE,
    STOCK_INDEX,
    STOCK_SCALE,
    TOP_PLANE,
)

__all__ = ["DROP_GAIN", "fast_deadwood", "fast_gated_act", "fast_knock_min"]

_SUIT = 0x1FFF


def _drop_gains() -> np.ndarray:
    """``DROP_GAIN[m]``: the most deadwood that dropping one card of the suit ranks ``m`` saves when the suit is
    left for runs (``RUN_DW[m] - min over c of RUN_DW[m without c]``); a large negative number for no card."""
    gain = np.full(len(RUN_DW), -(1 << 40), np.int64)
    for m in range(1, len(RUN_DW)):
        x = m
        while x:
            low = x & -x
            gain[m] = max(gain[m], int(RUN_DW[m]) - int(RUN_DW[m & ~low]))
            x ^= low
    return gain


DROP_GAIN = _drop_gains()


@njit(cache=True)
def _drops(s0: int, s1: int, s2: int, s3: int, best: int) -> int:
    """The least deadwood left by dropping one card of the suits ``s0..s3`` left for runs (``best`` if less):
    the sum of their run deadwood less the largest :data:`DROP_GAIN` of a suit (as ``_suit_drop_min`` over
    the four suits, in eight table reads)."""
    total = RUN_DW[s0] + RUN_DW[s1] + RUN_DW[s2] + RUN_DW[s3]
    g = max(max(DROP_GAIN[s0], DROP_GAIN[s1]), max(DROP_GAIN[s2], DROP_GAIN[s3]))
    v = total - g
    return v if v < best else best


@njit(cache=True)
def _option(held: int, j: int) -> int:
    """Option ``j`` of a rank whose held suits are ``held`` (as ``meld_kernels._set_option``)."""
    if j == 0:
        return 0
    if held == 0b1111:
        if j <= 4:
            return TRIOS4[j - 1]
        return 0b1111
    return held


@njit(cache=True)
def fast_knock_min(mask: int) -> int:
    """:func:`gin3_env.kernels.meld_kernels.knock_min` without its arrays: the set choices of at most three
    ranks (a hand of up to 11 cards) walked in nested loops; more ranks (12 cards) fall back to it."""
    return _least(mask, True)


@njit(cache=True)
def fast_deadwood(mask: int) -> int:
    """:func:`gin3_env.kernels.meld_kernels.deadwood` the same way (:func:`fast_knock_min`)."""
    return _least(mask, False)


@njit(cache=True)
def _least(mask: int, drop: bool) -> int:
    """The least deadwood over the set choices of ``mask``, after dropping one card (``drop``) or not."""
    a, b, c, d = mask & _SUIT, (mask >> 13) & _SUIT, (mask >> 26) & _SUIT, (mask >> 39) & _SUIT
    ranks = (a & b & (c | d)) | (c & d & (a | b))
    if not ranks:
        if not drop:
            return RUN_DW[a] + RUN_DW[b] + RUN_DW[c] + RUN_DW[d]
        return _drops(a, b, c, d, 1 << 30)
    r0 = r1 = r2 = -1
    n = 0
    x = ranks
    while x:
        low = x & -x
        r = 0
        while not (low >> r) & 1:
            r += 1
        if n == 0:
            r0 = r
        elif n == 1:
            r1 = r
        elif n == 2:
            r2 = r
        n += 1
        x ^= low
    if n > 3:
        return knock_min(mask) if drop else deadwood(mask)
    h0 = ((a >> r0) & 1) | (((b >> r0) & 1) << 1) | (((c >> r0) & 1) << 2) | (((d >> r0) & 1) << 3)
    n0 = 6 if h0 == 0b1111 else 2
    h1 = n1 = 0
    if n > 1:
        h1 = ((a >> r1) & 1) | (((b >> r1) & 1) << 1) | (((c >> r1) & 1) << 2) | (((d >> r1) & 1) << 3)
    n1 = (6 if h1 == 0b1111 else 2) if n > 1 else 1
    h2 = 0
    if n > 2:
        h2 = ((a >> r2) & 1) | (((b >> r2) & 1) << 1) | (((c >> r2) & 1) << 2) | (((d >> r2) & 1) << 3)
    n2 = (6 if h2 == 0b1111 else 2) if n > 2 else 1
    best = 1 << 30
    for j0 in range(n0):
        o0 = _option(h0, j0)
        for j1 in range(n1):
            o1 = _option(h1, j1) if n > 1 else 0
            for j2 in range(n2):
                o2 = _option(h2, j2) if n > 2 else 0
                s0, s1, s2, s3 = a, b, c, d
                for r, o in ((r0, o0), (r1, o1), (r2, o2)):
                    if o:
                        bit = 1 << r
                        if o & 1:
                            s0 &= ~bit
                        if o & 2:
                            s1 &= ~bit
                        if o & 4:
                            s2 &= ~bit
                        if o & 8:
                            s3 &= ~bit
                if drop:
                    best = _drops(s0, s1, s2, s3, best)
                else:
                    v = RUN_DW[s0] + RUN_DW[s1] + RUN_DW[s2] + RUN_DW[s3]
                    if v < best:
                        best = v
    return best


@njit(cache=True)
def _potential(hand: int, unseen: int) -> float:
    """:func:`~gin3_env.kernels.heuristic_kernels.potential` with :func:`fast_knock_min`."""
    n = popcount(unseen)
    if not n:
        return 0.0
    base = fast_deadwood(hand)
    gain = 0
    x = meld_outs(hand) & unseen
    while x:
        low = x & -x
        after = fast_knock_min(hand | low)
        if after < base:
            gain += base - after
        x ^= low
    return gain / n


@njit(cache=True)
def _discard_scores(hand: int, cands: np.ndarray, nc: int, kd: np.ndarray, unseen_all: int, known: int,
                    opp_declined: int, stock: int, fp: np.ndarray, ip: np.ndarray, out: np.ndarray) -> None:
    """:func:`~gin3_env.kernels.heuristic_kernels.discard_scores` with :func:`fast_knock_min`."""
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
            score -= outs_weight * _potential(hand & ~(1 << c), unseen)
        score += fp[F_DANGER] * danger(c, opp_declined, known, unseen_all, p_hidden)
        out[j] = score - POINTS[c] / 100


@njit(cache=True)
def _draw_outs(held: int, dw: int, unseen: int) -> tuple[int, int, int]:
    """:func:`~gin3_env.kernels.decision_views.draw_outs` with :func:`fast_knock_min`."""
    better = 0
    gin = 0
    total = 0
    x = unseen
    while x:
        low = x & -x
        after = fast_knock_min(held | low)
        total += after
        if after < dw:
            better += 1
        if after == 0:
            gin += 1
        x ^= low
    return better, gin, total


@njit(cache=True)
def _discard_features(obs: np.ndarray, k: int, cards: np.ndarray, scores: np.ndarray, n: int, limit: int,
                      x: np.ndarray) -> None:
    """``x[r - 1]`` = :func:`~gin3_env.kernels.decision_features.discard_features` of the alternative
    ``cards[r]`` against the heuristic's ``cards[0]`` for ``r`` in ``1..n-1``, the base's terms computed once."""
    hand, _, _, known, odecl, stock, unseen = view_masks(obs, k)
    n_stock, n_unseen, _, n_known, _, n_odecl, _, role, turn = view_counts(obs, k)
    p_hidden = hidden_share(known, unseen)
    base = cards[0]
    b_held = hand & ~(np.int64(1) << base)
    bdw = fast_deadwood(b_held)
    bo, bg, _ = _draw_outs(b_held, bdw, unseen)
    bd = danger(base, odecl, known, unseen, p_hidden)
    opp = meld_outs(known) if known else 0
    dead = best_deadwood_cards(hand)
    for r in range(1, n):
        alt = cards[r]
        out = x[r - 1]
        a_held = hand & ~(np.int64(1) << alt)
        adw = fast_deadwood(a_held)
        ao, ag, _ = _draw_outs(a_held, adw, unseen)
        ad = danger(alt, odecl, known, unseen, p_hidden)
        _clear(out)
        out[X_RANK] = r
        out[X_SCORE_GAP] = scores[r] - scores[0]
        out[X_BASE_DEADWOOD] = bdw
        out[X_ALT_DEADWOOD] = adw
        out[X_DEADWOOD_DIFF] = adw - bdw
        out[X_BASE_IMPROVE_OUTS] = bo
        out[X_ALT_IMPROVE_OUTS] = ao
        out[X_IMPROVE_OUTS_DIFF] = ao - bo
        out[X_BASE_GIN_OUTS] = bg
        out[X_ALT_GIN_OUTS] = ag
        out[X_BASE_DANGER] = bd
        out[X_ALT_DANGER] = ad
        out[X_DANGER_DIFF] = ad - bd
        out[X_BASE_POINTS] = POINTS[base]
        out[X_ALT_POINTS] = POINTS[alt]
        out[X_BASE_OPP_OUT] = 1.0 if (opp >> base) & 1 else 0.0
        out[X_ALT_OPP_OUT] = 1.0 if (opp >> alt) & 1 else 0.0
        out[X_BASE_IN_MELD] = 0.0 if (dead >> base) & 1 else 1.0
        out[X_ALT_IN_MELD] = 0.0 if (dead >> alt) & 1 else 1.0
        out[X_ALT_KNOCKABLE] = 1.0 if adw <= limit else 0.0
        out[X_BASE_KNOCKABLE] = 1.0 if bdw <= limit else 0.0
        out[X_STOCK] = n_stock
        out[X_UNSEEN] = n_unseen
        out[X_OPP_KNOWN] = n_known
        out[X_OPP_DECLINED] = n_odecl
        out[X_ROLE_BOX] = role
        out[X_TURN] = turn
        out[X_DEADWOOD_DIFF_X_STOCK] = (adw - bdw) * stock / 30.0
        out[X_OUTS_DIFF_X_STOCK] = (ao - bo) * stock / 30.0


@njit(cache=True)
def _draw_features(obs: np.ndarray, mask: np.ndarray, k: int, a: int, limit: int, out: np.ndarray) -> None:
    """:func:`~gin3_env.kernels.decision_features.draw_features` with :func:`fast_knock_min`."""
    hand, top_m, _, known, odecl, stock, unseen = view_masks(obs, k)
    n_stock, n_unseen_f, n_pile, n_known, known_outs, n_odecl, n_sdecl, role, turn = view_counts(obs, k)
    top = _single(top_m)
    n_unseen = popcount(unseen)
    p_hidden = hidden_share(known, unseen)
    kd = np.zeros(NUM_CARDS, np.int64)
    order = np.zeros(NUM_CARDS, np.int64)
    now = fast_deadwood(hand)
    with_top = hand | (np.int64(1) << top)
    after, drop = take_drop(with_top, top, kd, order)
    kept = with_top & ~(np.int64(1) << drop)
    melds = not (best_deadwood_cards(kept) >> top) & 1
    draw_total = 0
    beats = 0
    knockable = 0
    gin = 0
    t_better = 0
    t_gin = 0
    x = unseen
    while x:
        low = x & -x
        d = fast_knock_min(hand | low)
        draw_total += d
        if d < after:
            beats += 1
        if d <= limit:
            knockable += 1
        if d == 0:
            gin += 1
        t = fast_knock_min(kept | low)
        if t < after:
            t_better += 1
        if t == 0:
            t_gin += 1
        x ^= low
    share = 1.0 / n_unseen if n_unseen else 0.0
    takes = 1.0 if a == TAKE_DISCARD else 0.0
    _clear(out)
    out[D_HEURISTIC_TAKES] = takes
    out[D_OFFER] = 1.0 if mask[k, PASS] else 0.0
    out[D_DEADWOOD_NOW] = now
    out[D_TAKE_DEADWOOD] = after
    out[D_TAKE_GAIN] = now - after
    out[D_TOP_MELDS] = 1.0 if melds else 0.0
    out[D_TOP_POINTS] = POINTS[top]
    out[D_TOP_IS_OUT] = 1.0 if (meld_outs(hand) >> top) & 1 else 0.0
    out[D_DRAW_MEAN_DEADWOOD] = draw_total * share
    out[D_DRAW_BEATS_TAKE] = beats * share
    out[D_DRAW_KNOCKABLE] = knockable * share
    out[D_DRAW_GIN] = gin * share
    out[D_TAKE_KNOCKABLE] = 1.0 if after <= limit else 0.0
    out[D_TAKE_IMPROVE_OUTS] = t_better
    out[D_TAKE_GIN_OUTS] = t_gin
    out[D_HAND_OUTS] = popcount(meld_outs(hand) & unseen)
    out[D_DROP_DANGER] = danger(drop, odecl, known, unseen, p_hidden)
    out[D_DROP_POINTS] = POINTS[drop]
    out[D_STOCK] = n_stock
    out[D_UNSEEN] = n_unseen_f
    out[D_PILE] = n_pile
    out[D_OPP_KNOWN] = n_known
    out[D_OPP_KNOWN_OUTS] = known_outs
    out[D_OPP_DECLINED] = n_odecl
    out[D_OWN_DECLINED] = n_sdecl
    out[D_ROLE_BOX] = role
    out[D_TURN] = turn
    out[D_TAKE_GAIN_X_STOCK] = (now - after) * stock / 30.0
    out[D_TAKES_X_TAKE_GAIN] = takes * (now - after)


@njit(cache=True)
def _gate_pick(a: int, x: np.ndarray, alts: np.ndarray, n: int, gates: tuple, g: int) -> int:
    """The gated choice among ``a`` and the ``n`` alternatives of gate slot ``g`` (as ``gated_choice``)."""
    best = a
    best_y = gates[7][g, 1]
    for i in range(n):
        if gate_allows(x[i], gates, g):
            y = gate_score(x[i], gates, g)
            if y > best_y:
                best_y = y
                best = alts[i]
    return best


@njit(cache=True)
def fast_gated_act(obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
                   limit: int) -> int:
    """:func:`gin3_env.kernels.gates.gated_act_row` on row ``k``, the same move (see the module doc)."""
    n_legal = 0
    first = -1
    for a in range(NUM_ACTIONS):
        if mask[k, a]:
            n_legal += 1
            if first < 0:
                first = a
    if n_legal == 1:
        return first  # one legal move: no gate has an alternative
    phase = 0
    for j in range(1, NUM_PHASES):
        if obs[k, PHASE_OFFSET + j] > obs[k, PHASE_OFFSET + phase]:
            phase = j
    if phase != DISCARD:
        a = act_row(obs, mask, k, fp, ip)
        if gates[0][DRAW_DECISION] != 0 and a < DISCARD_BASE:
            alt = draw_alternative(mask, k, a)
            if alt >= 0:  # the knock gate has no alternative to a draw: the draw gate decides
                x = np.zeros((MAX_ALTERNATIVES, MAX_FEATURES), np.float64)
                alts = np.zeros(MAX_ALTERNATIVES, np.int64)
                _draw_features(obs, mask, k, a, limit, x[0])
                alts[0] = alt
                return _gate_pick(a, x, alts, 1, gates, DRAW_DECISION)
        return gated_choice(a, obs, mask, k, fp, ip, gates, limit)
    hand = obs_plane(obs, k, HAND_PLANE)
    top = _single(obs_plane(obs, k, TOP_PLANE))
    pile = obs_plane(obs, k, PILE_PLANE)
    known = obs_plane(obs, k, OPP_KNOWN_PLANE)
    opp_declined = obs_plane(obs, k, OPP_DECLINED_PLANE)
    stock = int(np.rint(np.float64(obs[k, STOCK_INDEX]) * STOCK_SCALE))
    kd = np.zeros(NUM_CARDS, np.int64)
    order = np.zeros(NUM_CARDS, np.int64)
    top_bit = 0 if top < 0 else (1 << top)
    unseen_all = FULL_MASK & ~(hand | pile | top_bit | known)
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
        if should_knock(low, stock, ip):  # a knock: rare, the gated player's own code
            return gated_choice(act_row(obs, mask, k, fp, ip), obs, mask, k, fp, ip, gates, limit)
    nd = np.int64(0)
    for c in range(NUM_CARDS):
        if mask[k, DISCARD_BASE + c]:
            cands[nd] = c
            nd += 1
    _discard_scores(hand, cands, nd, kd, unseen_all, known, opp_declined, stock, fp, ip, scores)
    a = DISCARD_BASE + _argmin(cands, scores, nd)
    if gates[0][DISCARD_DECISION] == 0 or nd < 2:
        return a
    # discard_top's order from the same scores (the selection of decision_views.discard_top)
    n = min(nd, TOP_DISCARDS)
    cards = np.zeros(TOP_DISCARDS, np.int64)
    top_scores = np.zeros(TOP_DISCARDS, np.float64)
    for i in range(n):
        c = _argmin(cands, scores, nd)
        j = 0
        while cands[j] != c:
            j += 1
        cards[i] = c
        top_scores[i] = scores[j]
        cands[j] = cands[nd - 1]
        scores[j] = scores[nd - 1]
        nd -= 1
    x = np.zeros((MAX_ALTERNATIVES, MAX_FEATURES), np.float64)
    alts = np.zeros(MAX_ALTERNATIVES, np.int64)
    _discard_features(obs, k, cards, top_scores, n, limit, x)
    for r in range(1, n):
        alts[r - 1] = DISCARD_BASE + cards[r]
    return _gate_pick(a, x, alts, n - 1, gates, DISCARD_DECISION)
