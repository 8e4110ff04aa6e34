"""The gates compiled: public features of a decision, a small scorer, the gated choice.

A *gated* player is the heuristic (:func:`.heuristic_kernels.act_row`) everywhere except at
these kinds of decision:

- the **knock gate**: when the heuristic would knock, the gate scores the decision and, where
  the predicted gain of holding exceeds its threshold, the player plays the heuristic's best
  plain discard instead (the choice the heuristic makes with the knock actions taken out of
  the mask);
- the **draw gate** (optional): at each choice between taking the face-up card and not (the
  opening offer's take/pass, a turn's take/draw), the gate scores the heuristic's choice and,
  where the predicted gain of the other move exceeds its threshold, plays that instead
  (:func:`draw_alternative`);
- the **discard gate** (optional): at each plain discard, the gate scores the heuristic's second and
  third best plain discards (:func:`discard_top`, by the heuristic's own scores) and plays the one of
  the higher predicted gain where that exceeds its threshold (:func:`discard_choice`).

The features (:data:`GATE_FEATURES`, :data:`DRAW_FEATURES`, :data:`DISCARD_FEATURES`, in this order) are computed from
the observation row and the legal mask, nothing else, so the same function serves the player,
the label run (:mod:`.knock_labels`) and the continuations of the label run.
:func:`gates_act_row` plays all three gates, each given as the tuple ``(mean, scale, W1, b1, w2, b2,
threshold, min_dw)`` (``mean`` empty: no such gate; for the draw gate the last entry is
``only_take``: 1 where it acts only when the heuristic would not take the face-up card; for the
discard gate it is unused);
:func:`gated_act_row` plays the knock gate alone, from its fields as separate arguments. The
scorer is a one-hidden-layer ReLU network on standardised features; with no hidden units it is linear (a ridge fit):

    z = (x - mean) / scale
    y = w2 . relu(W1 z + b1) + b2      (H > 0)
    y = w2 . z + b2                     (H = 0, w2 has one weight per feature)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from ..engine.actions import DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, NUM_ACTIONS, PASS, TAKE_DISCARD
from ..engine.cards import FULL_MASK, NUM_CARDS
from ..observation.layout import (
    HAND_PLANE,
    OPP_DECLINED_PLANE,
    OPP_KNOWN_PLANE,
    OWN_DECLINED_PLANE,
    PILE_PLANE,
    ROLE_OFFSET,
    STOCK_INDEX,
    STOCK_SCALE,
    TAKEN_PLANE,
    TOP_PLANE,
    TURN_INDEX,
)
from .heuristic_kernels import (
    _argmin,
    _single,
    act_row,
    danger,
    discard_scores,
    hidden_share,
    meld_outs,
    obs_plane,
    take_drop,
)
from .jit import njit
from .meld_kernels import best_deadwood_cards, deadwood, knock_deadwoods, knock_min, popcount
from .tables import POINTS

__all__ = ["DISCARD_FEATURES", "DRAW_FEATURES", "GATE_FEATURES", "NUM_DISCARD_FEATURES", "NUM_DRAW_FEATURES",
           "NUM_GATE_FEATURES", "gates_args", "no_gate_arrays"]

GATE_FEATURES = (
    "knock_deadwood",  # the deadwood the heuristic would knock with
    "dw_is_1", "dw_is_2", "dw_is_3", "dw_is_4", "dw_is_5",
    "hold_deadwood",  # deadwood after the heuristic's best plain discard
    "stock",  # cards left in the stock
    "gin_outs",  # unseen cards that would give gin after holding
    "improve_outs",  # unseen cards that would lower the deadwood after holding
    "mean_next_deadwood",  # mean best deadwood after drawing one unseen card
    "unseen",  # cards this player has not seen
    "pile",  # cards in the discard pile (with the top)
    "opp_known",  # cards the opponent took from the pile and still holds
    "opp_known_melded",  # of those, cards that meld with each other
    "opp_known_outs",  # unseen cards that would meld with the opponent's known cards
    "opp_declined",  # cards the opponent passed or drew over
    "own_declined",  # cards this player passed or drew over
    "hold_danger",  # the heuristic's danger of the hold discard
    "hold_card_points",  # the points of the hold discard
    "took_discard",  # this turn's card came from the pile
    "role_box",  # 1 for the box, 0 for the team
    "turn",  # turns played / the turn limit
    "dw_x_stock",  # knock deadwood times stock / 30
    "gin_outs_x_stock",  # gin outs times stock / 30
)
NUM_GATE_FEATURES = len(GATE_FEATURES)
F_DW = 0

DRAW_FEATURES = (
    "heuristic_takes",  # 1 where the heuristic takes the face-up card (the gate's alternative: not taking)
    "offer",  # the opening offer (take or pass), not a turn's draw
    "deadwood_now",  # the best deadwood of the hand before the draw
    "take_deadwood",  # the least deadwood after taking the face-up card and the best discard
    "take_gain",  # deadwood_now - take_deadwood
    "top_melds",  # the face-up card sits in a meld after taking it (as the heuristic reckons it)
    "top_points",  # the face-up card's points
    "top_is_out",  # the face-up card would extend a meld or a partial meld of the hand
    "draw_mean_deadwood",  # mean least deadwood after drawing one unseen card and the best discard
    "draw_beats_take",  # share of unseen cards whose draw leaves less deadwood than taking
    "draw_knockable",  # share of unseen cards whose draw leaves a knockable hand (10 or less)
    "draw_gin",  # share of unseen cards whose draw leaves gin
    "take_knockable",  # taking leaves a knockable hand
    "take_improve_outs",  # unseen cards that would lower the deadwood after taking
    "take_gin_outs",  # unseen cards that would give gin after taking
    "hand_outs",  # unseen cards that extend a meld or partial meld of the hand now
    "drop_danger",  # the heuristic's danger of the card taking would make it discard
    "drop_points",  # that card's points
    "stock",  # cards left in the stock
    "unseen",  # cards this player has not seen
    "pile",  # cards in the discard pile (with the top)
    "opp_known",  # cards the opponent took from the pile and still holds
    "opp_known_outs",  # unseen cards that would meld with the opponent's known cards
    "opp_declined",  # cards the opponent passed or drew over
    "own_declined",  # cards this player passed or drew over
    "role_box",  # 1 for the box, 0 for the team
    "turn",  # turns played / the turn limit
    "take_gain_x_stock",  # take_gain times stock / 30
    "takes_x_take_gain",  # heuristic_takes times take_gain
)
NUM_DRAW_FEATURES = len(DRAW_FEATURES)

DISCARD_FEATURES = (
    "rank",  # the alternative's rank in the heuristic's discard scores (1: second best, 2: third)
    "score_gap",  # the alternative's score minus the heuristic's choice's (>= 0)
    "base_deadwood",  # the deadwood after the heuristic's discard
    "alt_deadwood",  # the deadwood after the alternative discard
    "deadwood_diff",  # alt_deadwood - base_deadwood
    "base_improve_outs",  # unseen cards that would lower the deadwood after the heuristic's discard
    "alt_improve_outs",  # the same after the alternative
    "improve_outs_diff",  # alt - base
    "base_gin_outs",  # unseen cards that would give gin after the heuristic's discard
    "alt_gin_outs",  # the same after the alternative
    "base_danger",  # the heuristic's danger of its discard
    "alt_danger",  # the heuristic's danger of the alternative
    "danger_diff",  # alt - base
    "base_points",  # the points of the heuristic's discard
    "alt_points",  # the points of the alternative
    "base_opp_out",  # the heuristic's discard would meld with the opponent's known cards
    "alt_opp_out",  # the alternative would
    "base_in_meld",  # the heuristic's discard sits in a best meld of the hand (11 cards)
    "alt_in_meld",  # the alternative does
    "alt_knockable",  # the alternative leaves 10 or less deadwood
    "base_knockable",  # the heuristic's discard does
    "stock",  # cards left in the stock
    "unseen",  # cards this player has not seen
    "opp_known",  # cards the opponent took from the pile and still holds
    "opp_declined",  # cards the opponent passed or drew over
    "role_box",  # 1 for the box, 0 for the team
    "turn",  # turns played / the turn limit
    "deadwood_diff_x_stock",  # deadwood_diff times stock / 30
    "outs_diff_x_stock",  # improve_outs_diff times stock / 30
)
NUM_DISCARD_FEATURES = len(DISCARD_FEATURES)
TOP_DISCARDS = 3  # the heuristic's best plain discards the discard gate chooses among
KNOCKABLE = 10  # the deadwood the draw features count as knockable (the usual knock limit)


def no_gate_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, float, int]:
    """The gate argument of :func:`gates_act_row` for "no gate" (the heuristic plays there): an empty
    ``mean`` and the rest to match."""
    e = np.zeros(0)
    return e, e, np.zeros((0, 0)), e, e, 0.0, 0.0, 0


def gates_args(gate: Any) -> tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]:
    """The gates :func:`gates_act_row` takes, ``(kg, dg, xg)``, of a gate file's object (its
    ``arrays()``, ``draw_arrays()`` and ``discard_arrays()``), or of ``None``: no gate, the heuristic
    everywhere."""
    if gate is None:
        return no_gate_arrays(), no_gate_arrays(), no_gate_arrays()
    return gate.arrays(), gate.draw_arrays(), gate.discard_arrays()


@njit(cache=True)
def hold_action(obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray) -> int:
    """The heuristic's choice on row ``k`` with the knock actions taken out of the mask."""
    m = np.zeros((1, NUM_ACTIONS), np.int8)
    for a in range(NUM_ACTIONS):
        m[0, a] = mask[k, a] if a < KNOCK_BASE else 0
    return act_row(obs[k : k + 1], m, 0, fp, ip)


@njit(cache=True)
def view_masks(obs: np.ndarray, k: int) -> tuple[int, int, int, int, int, int, int]:
    """What each gate's features start from, read from row ``k``'s observation: the cards as masks,
    ``(hand, top, pile, known, odecl, stock, unseen)``: the hand, the face-up card (one bit, or 0),
    the rest of the pile, the opponent's cards known to be in its hand, the cards it declined, the
    cards left in the stock (a count) and the unseen cards (in no place the player sees)."""
    hand = obs_plane(obs, k, HAND_PLANE)
    top = obs_plane(obs, k, TOP_PLANE)
    pile = obs_plane(obs, k, PILE_PLANE)
    known = obs_plane(obs, k, OPP_KNOWN_PLANE)
    odecl = obs_plane(obs, k, OPP_DECLINED_PLANE)
    stock = int(np.rint(np.float64(obs[k, STOCK_INDEX]) * STOCK_SCALE))
    return hand, top, pile, known, odecl, stock, FULL_MASK & ~(hand | pile | top | known)


@njit(cache=True)
def draw_outs(held: int, dw: int, unseen: int) -> tuple[int, int, int]:
    """For the 10 cards ``held`` (deadwood ``dw``) and each card of ``unseen`` drawn to them: (how many
    lower the deadwood, how many give gin, the sum of the deadwood each leaves)."""
    better = 0
    gin = 0
    total = 0
    x = unseen
    while x:
        low = x & -x
        after = knock_min(held | low)
        total += after
        if after < dw:
            better += 1
        if after == 0:
            gin += 1
        x ^= low
    return better, gin, total


@njit(cache=True)
def gate_features(obs: np.ndarray, mask: np.ndarray, k: int, knock: int, hold: int, out: np.ndarray) -> None:
    """``out[:NUM_GATE_FEATURES]`` = the features of row ``k`` (a discard decision with a knock
    ``knock`` and the plain discard ``hold``), from the observation and the mask only."""
    hand, top, pile, known, odecl, stock, unseen = view_masks(obs, k)
    sdecl = obs_plane(obs, k, OWN_DECLINED_PLANE)
    taken = obs_plane(obs, k, TAKEN_PLANE)
    kd = np.zeros(NUM_CARDS, np.int64)
    order = np.zeros(NUM_CARDS, np.int64)
    knock_deadwoods(hand, kd, order)
    kc = knock - KNOCK_BASE
    hc = hold - DISCARD_BASE
    dw = kd[kc]
    hdw = kd[hc]
    better, gin, total = draw_outs(hand & ~(np.int64(1) << hc), hdw, unseen)
    n_unseen = popcount(unseen)
    p_hidden = hidden_share(known, unseen)
    pile_n = popcount(pile) + (1 if top else 0)
    for j in range(NUM_GATE_FEATURES):
        out[j] = 0.0
    out[0] = dw
    for d in range(1, 6):
        out[d] = 1.0 if dw == d else 0.0
    out[6] = hdw
    out[7] = stock
    out[8] = gin
    out[9] = better
    out[10] = total / n_unseen if n_unseen else 0.0
    out[11] = n_unseen
    out[12] = pile_n
    out[13] = popcount(known)
    out[14] = popcount(known & ~best_deadwood_cards(known)) if known else 0
    out[15] = popcount(meld_outs(known) & unseen) if known else 0
    out[16] = popcount(odecl)
    out[17] = popcount(sdecl)
    out[18] = danger(hc, odecl, known, unseen, p_hidden)
    out[19] = POINTS[hc]
    out[20] = 1.0 if taken else 0.0
    out[21] = 1.0 if obs[k, ROLE_OFFSET + 1] > 0.5 else 0.0
    out[22] = obs[k, TURN_INDEX]
    out[23] = dw * stock / 30.0
    out[24] = gin * stock / 30.0


@njit(cache=True)
def draw_alternative(mask: np.ndarray, k: int, a: int) -> int:
    """The other move of a choice between taking the face-up card and not, where ``a`` is one of
    them (take: pass at the opening offer, draw from the stock in a turn); -1 where there is no
    such choice."""
    if not mask[k, TAKE_DISCARD]:
        return -1
    other = PASS if mask[k, PASS] else (DRAW_STOCK if mask[k, DRAW_STOCK] else -1)
    if other < 0:
        return -1
    if a == TAKE_DISCARD:
        return other
    return TAKE_DISCARD if a == other else -1


@njit(cache=True)
def draw_features(obs: np.ndarray, mask: np.ndarray, k: int, a: int, out: np.ndarray) -> None:
    """``out[:NUM_DRAW_FEATURES]`` = the features of row ``k`` (a take-or-not choice where the
    heuristic plays ``a``), from the observation and the mask only."""
    hand, top_m, pile, known, odecl, stock, unseen = view_masks(obs, k)
    top = _single(top_m)
    sdecl = obs_plane(obs, k, OWN_DECLINED_PLANE)
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
        if d <= KNOCKABLE:
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
    for j in range(NUM_DRAW_FEATURES):
        out[j] = 0.0
    out[0] = takes
    out[1] = 1.0 if mask[k, PASS] else 0.0
    out[2] = now
    out[3] = after
    out[4] = now - after
    out[5] = 1.0 if melds else 0.0
    out[6] = POINTS[top]
    out[7] = 1.0 if (meld_outs(hand) >> top) & 1 else 0.0
    out[8] = draw_total * share
    out[9] = beats * share
    out[10] = knockable * share
    out[11] = gin * share
    out[12] = 1.0 if after <= KNOCKABLE else 0.0
    out[13] = t_better
    out[14] = t_gin
    out[15] = popcount(meld_outs(hand) & unseen)
    out[16] = danger(drop, odecl, known, unseen, p_hidden)
    out[17] = POINTS[drop]
    out[18] = stock
    out[19] = n_unseen
    out[20] = popcount(pile) + 1
    out[21] = popcount(known)
    out[22] = popcount(meld_outs(known) & unseen) if known else 0
    out[23] = popcount(odecl)
    out[24] = popcount(sdecl)
    out[25] = 1.0 if obs[k, ROLE_OFFSET + 1] > 0.5 else 0.0
    out[26] = obs[k, TURN_INDEX]
    out[27] = (now - after) * stock / 30.0
    out[28] = takes * (now - after)


@njit(cache=True)
def discard_top(obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray, cards: np.ndarray,
                scores: np.ndarray) -> int:
    """The heuristic's best plain discards on row ``k`` (a discard decision), best first, by its own
    scores (ties by card, as :func:`.heuristic_kernels.act_row`): ``cards[:n]`` and ``scores[:n]``, ``n``
    (at most ``cards.shape[0]``) returned. ``cards[0]`` is the plain discard the heuristic plays there."""
    hand, _, _, known, odecl, stock, unseen_all = view_masks(obs, k)
    kd = np.zeros(NUM_CARDS, np.int64)
    order = np.zeros(NUM_CARDS, np.int64)
    knock_deadwoods(hand, kd, order)
    cands = np.zeros(NUM_CARDS, np.int64)
    sc = np.zeros(NUM_CARDS, np.float64)
    nd = 0
    for c in range(NUM_CARDS):
        if mask[k, DISCARD_BASE + c]:
            cands[nd] = c
            nd += 1
    if nd == 0:
        return 0
    discard_scores(hand, cands, nd, kd, unseen_all, known, odecl, stock, fp, ip, sc)
    n = min(nd, cards.shape[0])
    for i in range(n):
        c = _argmin(cands, sc, nd)
        j = 0
        while cands[j] != c:
            j += 1
        cards[i] = c
        scores[i] = sc[j]
        cands[j] = cands[nd - 1]
        sc[j] = sc[nd - 1]
        nd -= 1
    return n


@njit(cache=True)
def discard_features(obs: np.ndarray, mask: np.ndarray, k: int, base: int, alt: int, rank: int, gap: float,
                     out: np.ndarray) -> None:
    """``out[:NUM_DISCARD_FEATURES]`` = the features of row ``k`` (a discard decision where the heuristic
    discards card ``base`` and the alternative, its ``rank``-th best by a score ``gap`` worse, is card
    ``alt``), from the observation and the mask only."""
    hand, _, _, known, odecl, stock, unseen = view_masks(obs, k)
    n_unseen = popcount(unseen)
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
    for j in range(NUM_DISCARD_FEATURES):
        out[j] = 0.0
    out[0] = rank
    out[1] = gap
    out[2] = bdw
    out[3] = adw
    out[4] = adw - bdw
    out[5] = bo
    out[6] = ao
    out[7] = ao - bo
    out[8] = bg
    out[9] = ag
    out[10] = bd
    out[11] = ad
    out[12] = ad - bd
    out[13] = POINTS[base]
    out[14] = POINTS[alt]
    out[15] = 1.0 if (opp >> base) & 1 else 0.0
    out[16] = 1.0 if (opp >> alt) & 1 else 0.0
    out[17] = 0.0 if (dead >> base) & 1 else 1.0
    out[18] = 0.0 if (dead >> alt) & 1 else 1.0
    out[19] = 1.0 if adw <= KNOCKABLE else 0.0
    out[20] = 1.0 if bdw <= KNOCKABLE else 0.0
    out[21] = stock
    out[22] = n_unseen
    out[23] = popcount(known)
    out[24] = popcount(odecl)
    out[25] = 1.0 if obs[k, ROLE_OFFSET + 1] > 0.5 else 0.0
    out[26] = obs[k, TURN_INDEX]
    out[27] = (adw - bdw) * stock / 30.0
    out[28] = (ao - bo) * stock / 30.0


@njit(cache=True)
def gate_score(x: np.ndarray, mean: np.ndarray, scale: np.ndarray, W1: np.ndarray, b1: np.ndarray,
               w2: np.ndarray, b2: float) -> float:
    """The predicted gain of holding (points) for the features ``x`` (see the module doc)."""
    F = mean.shape[0]
    z = np.empty(F, np.float64)
    for j in range(F):
        z[j] = (x[j] - mean[j]) / scale[j]
    H = W1.shape[0]
    y = b2
    if H == 0:
        for j in range(F):
            y += w2[j] * z[j]
        return y
    for h in range(H):
        s = b1[h]
        for j in range(F):
            s += W1[h, j] * z[j]
        if s > 0.0:
            y += w2[h] * s
    return y


@njit(cache=True)
def _knock_gated(a: int, obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray,
                 mean: np.ndarray, scale: np.ndarray, W1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: float,
                 threshold: float, min_dw: int) -> int:
    """The knock gate's choice on row ``k`` where the heuristic plays ``a``."""
    if a < KNOCK_BASE or mean.shape[0] == 0:
        return a
    hold = hold_action(obs, mask, k, fp, ip)
    if hold < DISCARD_BASE or hold >= KNOCK_BASE:
        return a
    x = np.zeros(NUM_GATE_FEATURES, np.float64)
    gate_features(obs, mask, k, a, hold, x)
    if x[F_DW] < min_dw:
        return a
    if gate_score(x, mean, scale, W1, b1, w2, b2) > threshold:
        return hold
    return a


@njit(cache=True)
def gated_act_row(obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray, mean: np.ndarray,
                  scale: np.ndarray, W1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: float, threshold: float,
                  min_dw: int) -> int:
    """The player with the knock gate alone on row ``k``: the heuristic's action, or its plain discard
    where it would knock with at least ``min_dw`` deadwood and the gate predicts holding gains over
    ``threshold``. (:func:`gates_act_row` plays both gates.)"""
    a = act_row(obs, mask, k, fp, ip)
    return _knock_gated(a, obs, mask, k, fp, ip, mean, scale, W1, b1, w2, b2, threshold, min_dw)


@njit(cache=True)
def discard_choice(obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray, xg: tuple) -> int:
    """The discard gate's card on row ``k`` (a discard decision), or -1 where it keeps the heuristic's:
    the heuristic's second or third best plain discard of the highest predicted gain, where that
    exceeds the threshold (``xg`` as the draw gate's tuple, its last entry unused)."""
    mean, scale, W1, b1, w2, b2, threshold, _ = xg
    if mean.shape[0] == 0:
        return -1
    cards = np.zeros(TOP_DISCARDS, np.int64)
    scores = np.zeros(TOP_DISCARDS, np.float64)
    n = discard_top(obs, mask, k, fp, ip, cards, scores)
    x = np.zeros(NUM_DISCARD_FEATURES, np.float64)
    best = -1
    best_y = threshold
    for r in range(1, n):
        discard_features(obs, mask, k, cards[0], cards[r], r, scores[r] - scores[0], x)
        y = gate_score(x, mean, scale, W1, b1, w2, b2)
        if y > best_y:
            best_y = y
            best = cards[r]
    return best


@njit(cache=True)
def _discard_gated(a: int, obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray,
                   xg: tuple) -> int:
    c = discard_choice(obs, mask, k, fp, ip, xg)
    return a if c < 0 else DISCARD_BASE + c


@njit(cache=True)
def gates_act_row(obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray, kg: tuple,
                  dg: tuple, xg: tuple) -> int:
    """The gated player on row ``k`` (the knock gate ``kg``, the draw gate ``dg``, the discard gate
    ``xg``; see the module doc): the knock gate's choice (:func:`gated_act_row`), or, at a take-or-not
    choice (where the heuristic would not take, with ``only_take``), the other move where the draw gate
    predicts that it gains over its threshold, or, at a plain discard, the heuristic's second or third
    best discard of highest predicted gain where that exceeds the discard gate's threshold."""
    a = act_row(obs, mask, k, fp, ip)
    if DISCARD_BASE <= a < KNOCK_BASE:
        return _discard_gated(a, obs, mask, k, fp, ip, xg)
    if a < DISCARD_BASE:
        dmean, dscale, dW1, db1, dw2, db2, dthreshold, only_take = dg
        if dmean.shape[0] == 0 or (only_take and a == TAKE_DISCARD):
            return a
        alt = draw_alternative(mask, k, a)
        if alt < 0:
            return a
        y = np.zeros(NUM_DRAW_FEATURES, np.float64)
        draw_features(obs, mask, k, a, y)
        if gate_score(y, dmean, dscale, dW1, db1, dw2, db2) > dthreshold:
            return alt
        return a
    mean, scale, W1, b1, w2, b2, threshold, min_dw = kg
    return _knock_gated(a, obs, mask, k, fp, ip, mean, scale, W1, b1, w2, b2, threshold, min_dw)


@njit(cache=True)
def gated_act_serial(obs: np.ndarray, mask: np.ndarray, fp: np.ndarray, ip: np.ndarray, kg: tuple, dg: tuple,
                     xg: tuple, out: np.ndarray) -> None:
    for k in range(obs.shape[0]):
        out[k] = gates_act_row(obs, mask, k, fp, ip, kg, dg, xg)


@njit(cache=True, parallel=True)
def gated_act_parallel(obs: np.ndarray, mask: np.ndarray, fp: np.ndarray, ip: np.ndarray, kg: tuple, dg: tuple,
                       xg: tuple, out: np.ndarray) -> None:
    for k in prange(obs.shape[0]):
        out[k] = gates_act_row(obs, mask, k, fp, ip, kg, dg, xg)


@njit(cache=True)
def features_rows(obs: np.ndarray, mask: np.ndarray, fp: np.ndarray, ip: np.ndarray, out: np.ndarray) -> None:
    """``out[k]`` = the gate features of row ``k`` where the heuristic would knock there, else NaN."""
    for k in range(obs.shape[0]):
        a = act_row(obs, mask, k, fp, ip)
        hold = hold_action(obs, mask, k, fp, ip) if a >= KNOCK_BASE else -1
        if a >= KNOCK_BASE and DISCARD_BASE <= hold < KNOCK_BASE:
            gate_features(obs, mask, k, a, hold, out[k])
        else:
            for j in range(out.shape[1]):
                out[k, j] = np.nan


@njit(cache=True)
def draw_features_rows(obs: np.ndarray, mask: np.ndarray, fp: np.ndarray, ip: np.ndarray, out: np.ndarray) -> None:
    """``out[k]`` = the draw features of row ``k`` where it is a take-or-not choice, else NaN."""
    for k in range(obs.shape[0]):
        a = act_row(obs, mask, k, fp, ip)
        if a < DISCARD_BASE and draw_alternative(mask, k, a) >= 0:
            draw_features(obs, mask, k, a, out[k])
        else:
            for j in range(out.shape[1]):
                out[k, j] = np.nan


@njit(cache=True)
def discard_features_rows(obs: np.ndarray, mask: np.ndarray, fp: np.ndarray, ip: np.ndarray, out: np.ndarray) -> None:
    """``out[k]`` = the discard features of row ``k``'s second best plain discard (rank 1) where the
    heuristic makes a plain discard there, else NaN."""
    cards = np.zeros(TOP_DISCARDS, np.int64)
    scores = np.zeros(TOP_DISCARDS, np.float64)
    for k in range(obs.shape[0]):
        a = act_row(obs, mask, k, fp, ip)
        n = discard_top(obs, mask, k, fp, ip, cards, scores) if DISCARD_BASE <= a < KNOCK_BASE else 0
        if n >= 2:
            discard_features(obs, mask, k, cards[0], cards[1], 1, scores[1] - scores[0], out[k])
        else:
            for j in range(out.shape[1]):
                out[k, j] = np.nan
