"""The inputs of the action-scoring network (``net``), compiled: a row's state features and, for each
legal action of the row, that action's own features, from the observation and the mask only.

Every legal action gets a row of :data:`ACTION_FEATURES`: its kind (draw from the stock, take the
face-up card, pass, discard, knock) and, for a discard or a knock of card ``c``, what ``c`` does to
the hand and what the opponent has shown about it: the deadwood left without ``c`` and how far that
is from the least any legal discard leaves, the unseen cards that would lower it or give gin on the
next draw (:func:`.decision_views.draw_outs`), the danger of ``c`` (:func:`.heuristic_kernels.danger`:
how many of the opponent's possible melds it would feed), whether it melds with the opponent's known
cards, whether it sits in a best meld of the hand, its rank and suit. Each row gets
:data:`STATE_FEATURES` (counts of what is seen, the deadwood now, the role and the turn, the rules'
knock limit, and the take-or-not features of :data:`.decisions.DRAW_FEATURES` where the face-up
card can be taken). The scorer (:mod:`gin3_env.policies.net`) adds the observation itself.

Legal actions are laid out flat, row after row in increasing action order (``np.nonzero`` of the
mask): ``start[k]`` is the first of row ``k``'s, ``start[k + 1]`` the end.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..engine.actions import DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, NUM_ACTIONS, PASS, TAKE_DISCARD
from ..engine.cards import NUM_CARDS
from ..observation.layout import OWN_DECLINED_PLANE
from .decision_features import draw_features
from .decision_views import SEEN_COUNTS, draw_outs, view_counts, view_masks
from .decisions import DRAW_FEATURES
from .heuristic_kernels import danger, hidden_share, meld_outs, obs_plane, potential
from .jit import njit
from .meld_kernels import best_deadwood_cards, deadwood, knock_deadwoods, lowest_card, popcount
from .tables import POINTS

__all__ = ["ACTION_FEATURES", "NUM_ACTION_FEATURES", "NUM_STATE_FEATURES", "STATE_FEATURES", "net_inputs"]

# what is seen, role and turn: the same quantities as the gates' features of these names (decision_views)
_SEEN = SEEN_COUNTS
NUM_DRAW_FEATURES = len(DRAW_FEATURES)
_STATE_BASE = (
    "deadwood_now",  # the hand's least deadwood (with 11 cards: after the best discard)
    *_SEEN,
    "hidden_share",  # the chance an unseen card is in the opponent's hand
    "take_choice",  # the face-up card may be taken (an offer or a draw)
    "offer",  # the opening offer (take or pass)
    "knock_limit",  # the rules' knock limit
)
STATE_FEATURES = (*_STATE_BASE, *(f"draw_{i}" for i in range(NUM_DRAW_FEATURES)))
NUM_STATE_FEATURES = len(STATE_FEATURES)
_S_DRAW = len(_STATE_BASE)

ACTION_FEATURES = (
    "is_draw", "is_take", "is_pass", "is_discard", "is_knock",
    "points",  # the card's points
    "deadwood_after",  # the deadwood left without the card
    "deadwood_over_best",  # deadwood_after minus the least over the legal discards
    "improve_outs",  # unseen cards that would lower deadwood_after on the next draw
    "gin_outs",  # unseen cards that would give gin on the next draw
    "mean_next_deadwood",  # mean least deadwood after drawing one unseen card
    "danger",  # the opponent's possible melds the card would feed
    "opp_out",  # the card melds with the opponent's known cards
    "in_meld",  # the card sits in a best meld of the hand
    "knockable",  # deadwood_after is within the knock limit
    "gin",  # deadwood_after is 0
    "own_declined",  # this player declined the card before
    "opp_declined",  # the opponent declined the card before
    "outs_below_best",  # the most improve_outs over the legal discards minus this one's
    "danger_over_least",  # danger minus the least over the legal discards
    *(f"rank_{r}" for r in range(13)),
    *(f"suit_{s}" for s in range(4)),
    "deadwood_x_stock",  # deadwood_after times stock / 30
    "outs_x_stock",  # improve_outs times stock / 30
    "over_knock_limit",  # deadwood_after minus the knock limit
    "potential",  # mean deadwood saved by drawing one unseen card that extends a meld (the one-card look-ahead)
    "potential_x_stock20",  # potential times min(1, stock / 20)
    "near_best",  # deadwood_after is within 12 of the least over the legal discards
)
NUM_ACTION_FEATURES = len(ACTION_FEATURES)
_A_RANK = 20
_A_SUIT = _A_RANK + 13


@njit(cache=True)
def _row_inputs(obs: np.ndarray, mask: np.ndarray, k: int, knock_limit: int, start: np.ndarray, state: np.ndarray,
                act: np.ndarray) -> None:
    hand, top, _, known, odecl, stock, unseen = view_masks(obs, k)
    sdecl = obs_plane(obs, k, OWN_DECLINED_PLANE)
    n_unseen = popcount(unseen)
    p_hidden = hidden_share(known, unseen)
    n_hand = popcount(hand)
    s = state[k]
    for j in range(NUM_STATE_FEATURES):
        s[j] = 0.0
    kd = np.zeros(NUM_CARDS, np.int64)
    order = np.zeros(NUM_CARDS, np.int64)
    if n_hand > 10:
        knock_deadwoods(hand, kd, order)
        now = 1 << 30
        for c in range(NUM_CARDS):
            if (hand >> c) & 1 and kd[c] < now:
                now = kd[c]
    else:
        now = deadwood(hand)
    s[0] = now
    seen = view_counts(obs, k)  # _SEEN, from s[1]
    for i in range(len(seen)):
        s[1 + i] = seen[i]
    s[10] = p_hidden
    s[13] = knock_limit
    if mask[k, TAKE_DISCARD] and top:
        s[11] = 1.0
        s[12] = 1.0 if mask[k, PASS] else 0.0
        draw_features(obs, mask, k, np.int64(TAKE_DISCARD), knock_limit, s[_S_DRAW:])
    # the card features, for every card a discard or a knock of which is legal
    cand = 0
    for c in range(NUM_CARDS):
        if mask[k, DISCARD_BASE + c] or mask[k, KNOCK_BASE + c]:
            cand |= np.int64(1) << c
    cf = np.zeros((NUM_CARDS, 6), np.float64)  # deadwood, improve outs, gin outs, danger, mean next deadwood, potential
    best_dw = 1 << 30
    best_outs = 0
    least_danger = 1e9
    dead = best_deadwood_cards(hand)
    opp = meld_outs(known) if known else 0
    if cand:
        x = cand
        while x:
            low = x & -x
            c = lowest_card(low)
            held = hand & ~low
            dw = kd[c] if n_hand > 10 else deadwood(held)
            better, gin, total = draw_outs(held, dw, unseen)
            cf[c, 0] = dw
            cf[c, 1] = better
            cf[c, 2] = gin
            cf[c, 3] = danger(c, odecl, known, unseen, p_hidden)
            cf[c, 4] = total / n_unseen if n_unseen else dw
            cf[c, 5] = potential(held, unseen)
            best_dw = min(best_dw, dw)
            best_outs = max(best_outs, better)
            least_danger = min(least_danger, cf[c, 3])
            x ^= low
    j = start[k]
    for a in range(NUM_ACTIONS):
        if not mask[k, a]:
            continue
        f = act[j]
        for i in range(NUM_ACTION_FEATURES):
            f[i] = 0.0
        if a == DRAW_STOCK:
            f[0] = 1.0
        elif a == TAKE_DISCARD:
            f[1] = 1.0
        elif a == PASS:
            f[2] = 1.0
        else:
            knock = a >= KNOCK_BASE
            c = a - (KNOCK_BASE if knock else DISCARD_BASE)
            f[4 if knock else 3] = 1.0
            dw = cf[c, 0]
            f[5] = POINTS[c]
            f[6] = dw
            f[7] = dw - best_dw
            f[8] = cf[c, 1]
            f[9] = cf[c, 2]
            f[10] = cf[c, 4]
            f[11] = cf[c, 3]
            f[12] = 1.0 if (opp >> c) & 1 else 0.0
            f[13] = 0.0 if (dead >> c) & 1 else 1.0
            f[14] = 1.0 if dw <= knock_limit else 0.0
            f[15] = 1.0 if dw == 0 else 0.0
            f[16] = 1.0 if (sdecl >> c) & 1 else 0.0
            f[17] = 1.0 if (odecl >> c) & 1 else 0.0
            f[18] = best_outs - cf[c, 1]
            f[19] = cf[c, 3] - least_danger
            f[_A_RANK + c % 13] = 1.0
            f[_A_SUIT + c // 13] = 1.0
            f[_A_SUIT + 4] = dw * stock / 30.0
            f[_A_SUIT + 5] = cf[c, 1] * stock / 30.0
            f[_A_SUIT + 6] = dw - knock_limit
            f[_A_SUIT + 7] = cf[c, 5]
            f[_A_SUIT + 8] = cf[c, 5] * min(1.0, stock / 20.0)
            f[_A_SUIT + 9] = 1.0 if dw <= best_dw + 12 else 0.0
        j += 1


@njit(cache=True)
def net_inputs_serial(obs: np.ndarray, mask: np.ndarray, knock_limit: int, start: np.ndarray, state: np.ndarray,
                      act: np.ndarray) -> None:
    for k in range(obs.shape[0]):
        _row_inputs(obs, mask, k, knock_limit, start, state, act)


@njit(cache=True, parallel=True)
def net_inputs_parallel(obs: np.ndarray, mask: np.ndarray, knock_limit: int, start: np.ndarray, state: np.ndarray,
                        act: np.ndarray) -> None:
    for k in prange(obs.shape[0]):
        _row_inputs(obs, mask, k, knock_limit, start, state, act)


def net_inputs(obs: np.ndarray, mask: np.ndarray, knock_limit: int,
               threads: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The network's inputs for rows of observations ``obs`` (B, >= 374) and int8 masks (B, 107):
    ``(state (B, NUM_STATE_FEATURES), actions (N, NUM_ACTION_FEATURES), start (B + 1,), legal (N,))``
    where ``legal`` lists each row's legal actions in increasing order from ``start[k]``."""
    rows, legal = np.nonzero(mask)
    start = np.zeros(len(obs) + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=len(obs)), out=start[1:])
    state = np.empty((len(obs), NUM_STATE_FEATURES), np.float32)
    act = np.empty((len(legal), NUM_ACTION_FEATURES), np.float32)
    kernel = net_inputs_parallel if threads else net_inputs_serial
    kernel(obs, mask, int(knock_limit), start, state, act)
    return state, act, start, legal.astype(np.int64)
