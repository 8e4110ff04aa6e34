"""What the features of a learnt decision start from, compiled: the cards a player sees as masks, the
counts of what it sees (one helper for the gates' features and the network's inputs), the next-draw outs,
and the moves a decision's alternatives are made of (the heuristic's hold, the other move of a take-or-not
choice, the heuristic's best plain discards). All read the observation row and the legal mask only.
"""

from __future__ import annotations

import numpy as np

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
    TOP_PLANE,
    TURN_INDEX,
)
from .heuristic_kernels import _argmin, act_row, discard_scores, meld_outs, obs_plane
from .jit import njit
from .meld_kernels import knock_deadwoods, knock_min, popcount

__all__ = ["SEEN_COUNTS", "TOP_DISCARDS", "discard_top", "draw_alternative", "draw_outs", "hold_action",
           "view_counts", "view_masks"]

TOP_DISCARDS = 3  # the heuristic's best plain discards a discard decision looks at (its choice and two more)

# what :func:`view_counts` returns, in order: the same quantities wherever a feature has one of these names
SEEN_COUNTS = ("stock", "unseen", "pile", "opp_known", "opp_known_outs", "opp_declined", "own_declined", "role_box",
               "turn")


@njit(cache=True)
def view_masks(obs: np.ndarray, k: int) -> tuple[int, int, int, int, int, int, int]:
    """The cards row ``k``'s player sees, as masks, ``(hand, top, pile, known, odecl, stock, unseen)``: the
    hand, the face-up card (one bit, or 0), the rest of the pile, the opponent's cards known to be in its
    hand, the cards it declined, the cards left in the stock (a count) and the unseen cards (in no place
    the player sees)."""
    hand = obs_plane(obs, k, HAND_PLANE)
    top = obs_plane(obs, k, TOP_PLANE)
    pile = obs_plane(obs, k, PILE_PLANE)
    known = obs_plane(obs, k, OPP_KNOWN_PLANE)
    odecl = obs_plane(obs, k, OPP_DECLINED_PLANE)
    stock = int(np.rint(np.float64(obs[k, STOCK_INDEX]) * STOCK_SCALE))
    return hand, top, pile, known, odecl, stock, FULL_MASK & ~(hand | pile | top | known)


@njit(cache=True)
def view_counts(obs: np.ndarray, k: int) -> tuple[float, float, float, float, float, float, float, float, float]:
    """The counts of what row ``k``'s player sees, in the order of :data:`SEEN_COUNTS`: the stock, the unseen
    cards, the pile (with the face-up card), the opponent's known cards, the unseen cards that would meld
    with them, the cards the opponent declined, the cards this player declined, 1 for the box (0 for the
    team) and the turn (turns played / the turn limit)."""
    _, top, pile, known, odecl, stock, unseen = view_masks(obs, k)
    sdecl = obs_plane(obs, k, OWN_DECLINED_PLANE)
    return (float(stock), float(popcount(unseen)), float(popcount(pile) + (1 if top else 0)), float(popcount(known)),
            float(popcount(meld_outs(known) & unseen) if known else 0), float(popcount(odecl)),
            float(popcount(sdecl)), 1.0 if obs[k, ROLE_OFFSET + 1] > 0.5 else 0.0, np.float64(obs[k, TURN_INDEX]))


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
def hold_action(obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray) -> int:
    """The heuristic's choice on row ``k`` with the knock actions taken out of the mask."""
    m = np.zeros((1, NUM_ACTIONS), np.int8)
    for a in range(NUM_ACTIONS):
        m[0, a] = mask[k, a] if a < KNOCK_BASE else 0
    return act_row(obs[k : k + 1], m, np.int64(0), fp, ip)  # int64, not the literal 0: see jit.py, one signature


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
    nd = np.int64(0)
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
