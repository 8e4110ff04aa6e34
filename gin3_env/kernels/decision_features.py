"""The features and the alternatives of each learnt decision, compiled: one branch per row of
:data:`.decisions.DECISIONS`.

:func:`features` writes the features of a decision of kind ``kind`` (a code of the table) at the indices
named from the row's feature names (``K_*`` for the knock, ``D_*`` for the draw, ``X_*`` for the discard:
:func:`.decisions.feature_index`); :func:`alternatives` finds, where the heuristic's action ``a`` is a
decision of ``kind``, its alternatives and writes each one's features on a row of its own. Both read the
observation row, the legal mask and the game's knock limit (``limit``, what a *knockable* feature counts
as knockable), nothing else, so the same functions serve the gated player (:mod:`.gates`), the label run
(the lab's gate label kernels) and the continuations of the label run.
"""

from __future__ import annotations

import numpy as np

from ..engine.actions import DISCARD_BASE, KNOCK_BASE, PASS, TAKE_DISCARD
from ..engine.cards import NUM_CARDS
from ..observation.layout import TAKEN_PLANE
from .decision_views import (
    TOP_DISCARDS,
    discard_top,
    draw_alternative,
    draw_outs,
    hold_action,
    view_counts,
    view_masks,
)
from .decisions import DISCARD_DECISION, DRAW_DECISION, KNOCK_DECISION, MAX_FEATURES, feature_index
from .heuristic_kernels import _single, danger, hidden_share, meld_outs, obs_plane, take_drop
from .jit import njit
from .meld_kernels import best_deadwood_cards, deadwood, knock_deadwoods, knock_min, popcount
from .tables import POINTS

__all__ = ["alternatives", "draw_features", "features"]

# knock
K_KNOCK_DEADWOOD = feature_index(KNOCK_DECISION, "knock_deadwood")
K_DW_IS_1 = feature_index(KNOCK_DECISION, "dw_is_1")
K_DW_IS_2 = feature_index(KNOCK_DECISION, "dw_is_2")
K_DW_IS_3 = feature_index(KNOCK_DECISION, "dw_is_3")
K_DW_IS_4 = feature_index(KNOCK_DECISION, "dw_is_4")
K_DW_IS_5 = feature_index(KNOCK_DECISION, "dw_is_5")
K_HOLD_DEADWOOD = feature_index(KNOCK_DECISION, "hold_deadwood")
K_STOCK = feature_index(KNOCK_DECISION, "stock")
K_GIN_OUTS = feature_index(KNOCK_DECISION, "gin_outs")
K_IMPROVE_OUTS = feature_index(KNOCK_DECISION, "improve_outs")
K_MEAN_NEXT_DEADWOOD = feature_index(KNOCK_DECISION, "mean_next_deadwood")
K_UNSEEN = feature_index(KNOCK_DECISION, "unseen")
K_PILE = feature_index(KNOCK_DECISION, "pile")
K_OPP_KNOWN = feature_index(KNOCK_DECISION, "opp_known")
K_OPP_KNOWN_MELDED = feature_index(KNOCK_DECISION, "opp_known_melded")
K_OPP_KNOWN_OUTS = feature_index(KNOCK_DECISION, "opp_known_outs")
K_OPP_DECLINED = feature_index(KNOCK_DECISION, "opp_declined")
K_OWN_DECLINED = feature_index(KNOCK_DECISION, "own_declined")
K_HOLD_DANGER = feature_index(KNOCK_DECISION, "hold_danger")
K_HOLD_CARD_POINTS = feature_index(KNOCK_DECISION, "hold_card_points")
K_TOOK_DISCARD = feature_index(KNOCK_DECISION, "took_discard")
K_ROLE_BOX = feature_index(KNOCK_DECISION, "role_box")
K_TURN = feature_index(KNOCK_DECISION, "turn")
K_DW_X_STOCK = feature_index(KNOCK_DECISION, "dw_x_stock")
K_GIN_OUTS_X_STOCK = feature_index(KNOCK_DECISION, "gin_outs_x_stock")
# draw
D_HEURISTIC_TAKES = feature_index(DRAW_DECISION, "heuristic_takes")
D_OFFER = feature_index(DRAW_DECISION, "offer")
D_DEADWOOD_NOW = feature_index(DRAW_DECISION, "deadwood_now")
D_TAKE_DEADWOOD = feature_index(DRAW_DECISION, "take_deadwood")
D_TAKE_GAIN = feature_index(DRAW_DECISION, "take_gain")
D_TOP_MELDS = feature_index(DRAW_DECISION, "top_melds")
D_TOP_POINTS = feature_index(DRAW_DECISION, "top_points")
D_TOP_IS_OUT = feature_index(DRAW_DECISION, "top_is_out")
D_DRAW_MEAN_DEADWOOD = feature_index(DRAW_DECISION, "draw_mean_deadwood")
D_DRAW_BEATS_TAKE = feature_index(DRAW_DECISION, "draw_beats_take")
D_DRAW_KNOCKABLE = feature_index(DRAW_DECISION, "draw_knockable")
D_DRAW_GIN = feature_index(DRAW_DECISION, "draw_gin")
D_TAKE_KNOCKABLE = feature_index(DRAW_DECISION, "take_knockable")
D_TAKE_IMPROVE_OUTS = feature_index(DRAW_DECISION, "take_improve_outs")
D_TAKE_GIN_OUTS = feature_index(DRAW_DECISION, "take_gin_outs")
D_HAND_OUTS = feature_index(DRAW_DECISION, "hand_outs")
D_DROP_DANGER = feature_index(DRAW_DECISION, "drop_danger")
D_DROP_POINTS = feature_index(DRAW_DECISION, "drop_points")
D_STOCK = feature_index(DRAW_DECISION, "stock")
D_UNSEEN = feature_index(DRAW_DECISION, "unseen")
D_PILE = feature_index(DRAW_DECISION, "pile")
D_OPP_KNOWN = feature_index(DRAW_DECISION, "opp_known")
D_OPP_KNOWN_OUTS = feature_index(DRAW_DECISION, "opp_known_outs")
D_OPP_DECLINED = feature_index(DRAW_DECISION, "opp_declined")
D_OWN_DECLINED = feature_index(DRAW_DECISION, "own_declined")
D_ROLE_BOX = feature_index(DRAW_DECISION, "role_box")
D_TURN = feature_index(DRAW_DECISION, "turn")
D_TAKE_GAIN_X_STOCK = feature_index(DRAW_DECISION, "take_gain_x_stock")
D_TAKES_X_TAKE_GAIN = feature_index(DRAW_DECISION, "takes_x_take_gain")
# discard
X_RANK = feature_index(DISCARD_DECISION, "rank")
X_SCORE_GAP = feature_index(DISCARD_DECISION, "score_gap")
X_BASE_DEADWOOD = feature_index(DISCARD_DECISION, "base_deadwood")
X_ALT_DEADWOOD = feature_index(DISCARD_DECISION, "alt_deadwood")
X_DEADWOOD_DIFF = feature_index(DISCARD_DECISION, "deadwood_diff")
X_BASE_IMPROVE_OUTS = feature_index(DISCARD_DECISION, "base_improve_outs")
X_ALT_IMPROVE_OUTS = feature_index(DISCARD_DECISION, "alt_improve_outs")
X_IMPROVE_OUTS_DIFF = feature_index(DISCARD_DECISION, "improve_outs_diff")
X_BASE_GIN_OUTS = feature_index(DISCARD_DECISION, "base_gin_outs")
X_ALT_GIN_OUTS = feature_index(DISCARD_DECISION, "alt_gin_outs")
X_BASE_DANGER = feature_index(DISCARD_DECISION, "base_danger")
X_ALT_DANGER = feature_index(DISCARD_DECISION, "alt_danger")
X_DANGER_DIFF = feature_index(DISCARD_DECISION, "danger_diff")
X_BASE_POINTS = feature_index(DISCARD_DECISION, "base_points")
X_ALT_POINTS = feature_index(DISCARD_DECISION, "alt_points")
X_BASE_OPP_OUT = feature_index(DISCARD_DECISION, "base_opp_out")
X_ALT_OPP_OUT = feature_index(DISCARD_DECISION, "alt_opp_out")
X_BASE_IN_MELD = feature_index(DISCARD_DECISION, "base_in_meld")
X_ALT_IN_MELD = feature_index(DISCARD_DECISION, "alt_in_meld")
X_ALT_KNOCKABLE = feature_index(DISCARD_DECISION, "alt_knockable")
X_BASE_KNOCKABLE = feature_index(DISCARD_DECISION, "base_knockable")
X_STOCK = feature_index(DISCARD_DECISION, "stock")
X_UNSEEN = feature_index(DISCARD_DECISION, "unseen")
X_OPP_KNOWN = feature_index(DISCARD_DECISION, "opp_known")
X_OPP_DECLINED = feature_index(DISCARD_DECISION, "opp_declined")
X_ROLE_BOX = feature_index(DISCARD_DECISION, "role_box")
X_TURN = feature_index(DISCARD_DECISION, "turn")
X_DEADWOOD_DIFF_X_STOCK = feature_index(DISCARD_DECISION, "deadwood_diff_x_stock")
X_OUTS_DIFF_X_STOCK = feature_index(DISCARD_DECISION, "outs_diff_x_stock")


@njit(cache=True)
def _clear(out: np.ndarray) -> None:
    for j in range(MAX_FEATURES if out.shape[0] > MAX_FEATURES else out.shape[0]):
        out[j] = 0.0


@njit(cache=True)
def knock_features(obs: np.ndarray, mask: np.ndarray, k: int, knock: int, hold: int, out: np.ndarray) -> None:
    """The knock's features of row ``k`` (a discard decision with a knock ``knock`` and the plain discard
    ``hold``)."""
    hand, _, _, known, odecl, stock, unseen = view_masks(obs, k)
    n_stock, n_unseen, n_pile, n_known, known_outs, n_odecl, n_sdecl, role, turn = view_counts(obs, k)
    taken = obs_plane(obs, k, TAKEN_PLANE)
    kd = np.zeros(NUM_CARDS, np.int64)
    order = np.zeros(NUM_CARDS, np.int64)
    knock_deadwoods(hand, kd, order)
    kc = knock - KNOCK_BASE
    hc = hold - DISCARD_BASE
    dw = kd[kc]
    hdw = kd[hc]
    better, gin, total = draw_outs(hand & ~(np.int64(1) << hc), hdw, unseen)
    p_hidden = hidden_share(known, unseen)
    _clear(out)
    out[K_KNOCK_DEADWOOD] = dw
    for d in range(1, 6):
        out[K_DW_IS_1 + d - 1] = 1.0 if dw == d else 0.0
    out[K_HOLD_DEADWOOD] = hdw
    out[K_STOCK] = n_stock
    out[K_GIN_OUTS] = gin
    out[K_IMPROVE_OUTS] = better
    out[K_MEAN_NEXT_DEADWOOD] = total / n_unseen if n_unseen else 0.0
    out[K_UNSEEN] = n_unseen
    out[K_PILE] = n_pile
    out[K_OPP_KNOWN] = n_known
    out[K_OPP_KNOWN_MELDED] = popcount(known & ~best_deadwood_cards(known)) if known else 0
    out[K_OPP_KNOWN_OUTS] = known_outs
    out[K_OPP_DECLINED] = n_odecl
    out[K_OWN_DECLINED] = n_sdecl
    out[K_HOLD_DANGER] = danger(hc, odecl, known, unseen, p_hidden)
    out[K_HOLD_CARD_POINTS] = POINTS[hc]
    out[K_TOOK_DISCARD] = 1.0 if taken else 0.0
    out[K_ROLE_BOX] = role
    out[K_TURN] = turn
    out[K_DW_X_STOCK] = dw * stock / 30.0
    out[K_GIN_OUTS_X_STOCK] = gin * stock / 30.0


@njit(cache=True)
def draw_features(obs: np.ndarray, mask: np.ndarray, k: int, a: int, limit: int, out: np.ndarray) -> None:
    """The draw's features of row ``k`` (a take-or-not choice where the heuristic plays ``a``), a hand
    of at most ``limit`` deadwood counted as knockable."""
    hand, top_m, _, known, odecl, stock, unseen = view_masks(obs, k)
    n_stock, n_unseen_f, n_pile, n_known, known_outs, n_odecl, n_sdecl, role, turn = view_counts(obs, k)
    top = _single(top_m)
    n_unseen = popcount(unseen)
    p_hidden = hidden_share(known, unseen)
    kd = np.zeros(NUM_CARDS, np.int64)
    order = np.zeros(NUM_CARDS, np.int64)
    now = deadwood(hand)
    with_top = hand | (np.int64(1) << top)
    after, drop = take_drop(with_top, top, kd, order)  # as the heuristic's wants_take reckons them
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
        d = knock_min(hand | low)
        draw_total += d
        if d < after:
            beats += 1
        if d <= limit:
            knockable += 1
        if d == 0:
            gin += 1
        t = knock_min(kept | low)
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
def discard_features(obs: np.ndarray, mask: np.ndarray, k: int, base: int, alt: int, rank: int, gap: float,
                     limit: int, out: np.ndarray) -> None:
    """The discard's features of row ``k`` (a discard decision where the heuristic discards card ``base``
    and the alternative, its ``rank``-th best by a score ``gap`` worse, is card ``alt``), a hand of at
    most ``limit`` deadwood counted as knockable."""
    hand, _, _, known, odecl, stock, unseen = view_masks(obs, k)
    n_stock, n_unseen, _, n_known, _, n_odecl, _, role, turn = view_counts(obs, k)
    p_hidden = hidden_share(known, unseen)
    b_held = hand & ~(np.int64(1) << base)
    a_held = hand & ~(np.int64(1) << alt)
    bdw = deadwood(b_held)
    adw = deadwood(a_held)
    bo, bg, _ = draw_outs(b_held, bdw, unseen)
    ao, ag, _ = draw_outs(a_held, adw, unseen)
    bd = danger(base, odecl, known, unseen, p_hidden)
    ad = danger(alt, odecl, known, unseen, p_hidden)
    opp = meld_outs(known) if known else 0
    dead = best_deadwood_cards(hand)
    _clear(out)
    out[X_RANK] = rank
    out[X_SCORE_GAP] = gap
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
def features(kind: int, obs: np.ndarray, mask: np.ndarray, k: int, base: int, alt: int, rank: int, gap: float,
             limit: int, out: np.ndarray) -> None:
    """``out[:len(features of kind)]`` = the features of row ``k``'s decision of ``kind`` where the heuristic
    plays ``base`` and the alternative is ``alt`` (a discard's: card numbers, ``rank`` and score ``gap``)."""
    if kind == KNOCK_DECISION:
        knock_features(obs, mask, k, base, alt, out)
    elif kind == DRAW_DECISION:
        draw_features(obs, mask, k, base, limit, out)
    elif kind == DISCARD_DECISION:
        discard_features(obs, mask, k, base, alt, rank, gap, limit, out)


@njit(cache=True)
def alternatives(kind: int, obs: np.ndarray, mask: np.ndarray, k: int, a: int, fp: np.ndarray, ip: np.ndarray,
                 limit: int, x: np.ndarray, alts: np.ndarray) -> int:
    """Where the heuristic's action ``a`` on row ``k`` is a decision of ``kind``: its number of alternatives
    ``n``, the alternatives in ``alts[:n]`` and their features in ``x[:n]``; else 0."""
    if kind == KNOCK_DECISION:
        if a < KNOCK_BASE:
            return 0
        hold = hold_action(obs, mask, k, fp, ip)
        if hold < DISCARD_BASE or hold >= KNOCK_BASE:
            return 0
        knock_features(obs, mask, k, a, hold, x[0])
        alts[0] = hold
        return 1
    if kind == DRAW_DECISION:
        if a >= DISCARD_BASE:
            return 0
        alt = draw_alternative(mask, k, a)
        if alt < 0:
            return 0
        draw_features(obs, mask, k, a, limit, x[0])
        alts[0] = alt
        return 1
    if kind == DISCARD_DECISION:
        if a < DISCARD_BASE or a >= KNOCK_BASE:
            return 0
        cards = np.zeros(TOP_DISCARDS, np.int64)
        scores = np.zeros(TOP_DISCARDS, np.float64)
        n = discard_top(obs, mask, k, fp, ip, cards, scores)
        for r in range(1, n):
            discard_features(obs, mask, k, cards[0], cards[r], r, scores[r] - scores[0], limit, x[r - 1])
            alts[r - 1] = DISCARD_BASE + cards[r]
        return max(0, n - 1)
    return 0
