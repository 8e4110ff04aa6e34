"""Compiled kernels of the batched hand: deal, legal mask, one move, the observation.

State of hand ``i`` (see :class:`gin3_env.vector.VectorHands`):

- ``S[i]`` (int64): the columns named below (phase, player, turns, ... and the last result);
- ``M[i]`` (int64 52-bit masks): hands, known cards and declined cards of both players;
- ``deck[i]`` (int8, 52): the deck order; the stock is ``deck[POS:]``, drawn from the front;
- ``pile[i]`` (int8, 52) with ``S[i, PILE_LEN]``: the discard pile, bottom first;
- ``mask[i]`` (int8, 107): the legal mask of the player to act (zeros once over).

Each move follows :meth:`gin3_env.engine.hand.HandState.apply` line by line. The action ids,
the phase and outcome codes and the observation's offsets are the engine's and the layout
table's own names (module globals, which numba compiles in as constants).
"""

from __future__ import annotations

import numpy as np

from ..engine.actions import DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, NUM_ACTIONS, PASS, TAKE_DISCARD
from ..engine.cards import NUM_CARDS
from ..engine.hand import UPCARD
from ..engine.phases import Phase
from ..engine.result import DEAD, PLAYER_NAMES, TRUNCATED
from ..engine.rules import Rules
from ..observation.layout import (
    DEADWOOD_INDEX,
    HAND_PLANE,
    OBS_SIZE,
    OPP_DECLINED_PLANE,
    OPP_KNOWN_PLANE,
    OWN_DECLINED_PLANE,
    PHASE_OFFSET,
    PILE_PLANE,
    PLANE,
    ROLE_OFFSET,
    STOCK_INDEX,
    STOCK_SCALE,
    TAKEN_PLANE,
    TOP_PLANE,
    TURN_INDEX,
)
from .jit import njit
from .meld_kernels import deadwood, knock_deadwoods, showdown

# The state tables: every column index, width and the rules vector are computed from them.
# S columns (int64), one row per hand: the hand in play, then the result of its last end.
STATE_COLUMNS: tuple[str, ...] = (
    "phase", "player", "turns", "stock_only", "taken", "pos", "pile_len", "kdmin",
    "outcome", "knocker", "winner", "points", "knocker_dw", "defender_dw", "knock_card",
)
(PHASE, PLAYER, TURNS, STOCK_ONLY, TAKEN, POS, PILE_LEN, KDMIN, OUTCOME, KNOCKER, WINNER, POINTS, KNOCKER_DW,
 DEFENDER_DW, KNOCK_CARD) = (STATE_COLUMNS.index(name) for name in (
    "phase", "player", "turns", "stock_only", "taken", "pos", "pile_len", "kdmin", "outcome", "knocker",
    "winner", "points", "knocker_dw", "defender_dw", "knock_card"))
NUM_COLS = len(STATE_COLUMNS)
# M columns (52-bit masks): one pair (team, box) per kind, the kind's first column named ``KIND0``.
MASK_KINDS: tuple[str, ...] = ("hand", "known", "declined")
HAND0, KNOWN0, DECLINED0 = (len(PLAYER_NAMES) * MASK_KINDS.index(kind) for kind in ("hand", "known", "declined"))
NUM_MASKS = len(PLAYER_NAMES) * len(MASK_KINDS)
# phases, as ints (numba compiles module-level ints in as constants)
OFFER_TEAM, OFFER_BOX, DRAW, DISCARD, OVER = (int(p) for p in Phase)
# The rules vector: every field of ``Rules``, in its order, as an int (bools 0/1).
RULES_FIELDS: tuple[str, ...] = Rules.option_names()
R_GIN, R_UNDERCUT, R_KNOCK_LIMIT, R_DEAD_STOCK, R_ALLOW_TAKEN, R_MAX_TURNS = (
    RULES_FIELDS.index(name) for name in (
        "gin_bonus", "undercut_bonus", "knock_limit", "dead_stock", "allow_discard_taken_card", "max_turns")
)


def rules_vector(rules: Rules) -> np.ndarray:
    """The rules as the kernels read them: int64 (len(RULES_FIELDS),), indexed by the ``R_`` names."""
    return np.array([int(getattr(rules, name)) for name in RULES_FIELDS], dtype=np.int64)


# where each card plane starts in the observation
HAND_AT, TOP_AT, PILE_AT, KNOWN_AT = HAND_PLANE * PLANE, TOP_PLANE * PLANE, PILE_PLANE * PLANE, OPP_KNOWN_PLANE * PLANE
OPP_DECLINED_AT, OWN_DECLINED_AT, TAKEN_AT = OPP_DECLINED_PLANE * PLANE, OWN_DECLINED_PLANE * PLANE, TAKEN_PLANE * PLANE


@njit(cache=True)
def legal_row(i: int, S: np.ndarray, M: np.ndarray, mask: np.ndarray, R: np.ndarray, kd: np.ndarray,
           order: np.ndarray) -> None:
    for a in range(NUM_ACTIONS):
        mask[i, a] = 0
    phase = S[i, PHASE]
    if phase in (OFFER_TEAM, OFFER_BOX):
        mask[i, TAKE_DISCARD] = 1
        mask[i, PASS] = 1
    elif phase == DRAW:
        mask[i, DRAW_STOCK] = 1
        if S[i, STOCK_ONLY] == 0 and S[i, PILE_LEN] > 0:
            mask[i, TAKE_DISCARD] = 1
    elif phase == DISCARD:
        hand = M[i, HAND0 + S[i, PLAYER]]
        forbidden = -1 if R[R_ALLOW_TAKEN] else S[i, TAKEN]
        n = knock_deadwoods(hand, kd, order)
        low = 1 << 30
        for k in range(n):
            c = order[k]
            if kd[c] < low:
                low = kd[c]
            if c != forbidden:
                mask[i, DISCARD_BASE + c] = 1
                if kd[c] <= R[R_KNOCK_LIMIT]:
                    mask[i, KNOCK_BASE + c] = 1
        S[i, KDMIN] = low


@njit(cache=True)
def deal_rows(rows: np.ndarray, decks: np.ndarray, S: np.ndarray, M: np.ndarray, deck: np.ndarray,
              pile: np.ndarray, mask: np.ndarray, R: np.ndarray) -> None:
    """Deal ``decks[k]`` (§4.3) to hand ``rows[k]``; the last result stays in ``S``."""
    kd = np.zeros(NUM_CARDS, np.int64)
    order = np.zeros(NUM_CARDS, np.int64)
    for k in range(rows.shape[0]):
        i = rows[k]
        team = 0
        box = 0
        for j in range(NUM_CARDS):
            deck[i, j] = decks[k, j]
        for j in range(0, UPCARD, 2):
            team |= 1 << np.int64(decks[k, j])
            box |= 1 << np.int64(decks[k, j + 1])
        for j in range(NUM_MASKS):
            M[i, j] = 0
        M[i, HAND0] = team
        M[i, HAND0 + 1] = box
        pile[i, 0] = decks[k, UPCARD]
        S[i, PILE_LEN] = 1
        S[i, POS] = UPCARD + 1
        S[i, PHASE] = OFFER_TEAM
        S[i, PLAYER] = 0
        S[i, TURNS] = 0
        S[i, STOCK_ONLY] = 0
        S[i, TAKEN] = -1
        S[i, KDMIN] = 0
        legal_row(i, S, M, mask, R, kd, order)


@njit(cache=True)
def _end(i: int, S: np.ndarray, outcome: int, knocker: int, winner: int, points: int, kdw: int, ddw: int,
         card: int) -> None:
    S[i, PHASE] = OVER
    S[i, OUTCOME] = outcome
    S[i, KNOCKER] = knocker
    S[i, WINNER] = winner
    S[i, POINTS] = points
    S[i, KNOCKER_DW] = kdw
    S[i, DEFENDER_DW] = ddw
    S[i, KNOCK_CARD] = card


@njit(cache=True)
def apply_rows(rows: np.ndarray, actions: np.ndarray, S: np.ndarray, M: np.ndarray, deck: np.ndarray,
               pile: np.ndarray, mask: np.ndarray, R: np.ndarray, rewards: np.ndarray, ended: np.ndarray) -> None:
    """Play ``actions[k]`` in hand ``rows[k]`` (already checked legal). ``rewards[k]`` gets the
    zero-sum points (team, box) of a hand that ends, ``ended[k]`` its outcome (0 if it goes on)."""
    kd = np.zeros(NUM_CARDS, np.int64)
    order = np.zeros(NUM_CARDS, np.int64)
    for k in range(rows.shape[0]):
        i = rows[k]
        a = actions[k]
        p = S[i, PLAYER]
        rewards[k, 0] = 0.0
        rewards[k, 1] = 0.0
        ended[k] = 0
        top_n = S[i, PILE_LEN]
        if a == PASS:
            M[i, DECLINED0 + p] |= 1 << np.int64(pile[i, top_n - 1])
            if S[i, PHASE] == OFFER_TEAM:
                S[i, PHASE] = OFFER_BOX
                S[i, PLAYER] = 1
            else:
                S[i, PHASE] = DRAW
                S[i, PLAYER] = 0
                S[i, STOCK_ONLY] = 1
        elif a == TAKE_DISCARD:
            card = np.int64(pile[i, top_n - 1])
            S[i, PILE_LEN] = top_n - 1
            M[i, HAND0 + p] |= 1 << card
            M[i, KNOWN0 + p] |= 1 << card
            S[i, TAKEN] = card
            S[i, PHASE] = DISCARD
        elif a == DRAW_STOCK:
            if top_n > 0:
                M[i, DECLINED0 + p] |= 1 << np.int64(pile[i, top_n - 1])
            M[i, HAND0 + p] |= 1 << np.int64(deck[i, S[i, POS]])
            S[i, POS] += 1
            S[i, TAKEN] = -1
            S[i, STOCK_ONLY] = 0
            S[i, PHASE] = DISCARD
        elif a < KNOCK_BASE:  # discard
            card = np.int64(a - DISCARD_BASE)
            bit = np.int64(1) << card
            M[i, HAND0 + p] &= ~bit
            M[i, KNOWN0 + p] &= ~bit
            pile[i, top_n] = card
            S[i, PILE_LEN] = top_n + 1
            S[i, TAKEN] = -1
            S[i, TURNS] += 1
            if NUM_CARDS - S[i, POS] <= R[R_DEAD_STOCK]:
                _end(i, S, DEAD, -1, -1, 0, -1, -1, -1)
                ended[k] = DEAD
            elif S[i, TURNS] >= R[R_MAX_TURNS]:
                _end(i, S, TRUNCATED, -1, -1, 0, -1, -1, -1)
                ended[k] = TRUNCATED
            else:
                S[i, PHASE] = DRAW
                S[i, PLAYER] = 1 - p
        else:  # knock
            card = np.int64(a - KNOCK_BASE)
            bit = np.int64(1) << card
            M[i, HAND0 + p] &= ~bit
            M[i, KNOWN0 + p] &= ~bit
            S[i, TURNS] += 1
            outcome, won, points, kdw, ddw = showdown(
                M[i, HAND0 + p], M[i, HAND0 + 1 - p], R[R_GIN], R[R_UNDERCUT], R[R_KNOCK_LIMIT]
            )
            winner = p if won else 1 - p
            _end(i, S, outcome, p, winner, points, kdw, ddw, card)
            ended[k] = outcome
            rewards[k, winner] = points
            rewards[k, 1 - winner] = -points
        legal_row(i, S, M, mask, R, kd, order)


@njit(cache=True)
def observe_rows(rows: np.ndarray, players: np.ndarray, S: np.ndarray, M: np.ndarray, pile: np.ndarray,
                 R: np.ndarray, out: np.ndarray) -> None:
    """``out[k]`` = the observation of ``players[k]`` (-1: the player to act) in hand ``rows[k]``,
    element for element :func:`gin3_env.observation.encode`."""
    for k in range(rows.shape[0]):
        i = rows[k]
        phase = S[i, PHASE]
        player = players[k] if players[k] >= 0 else S[i, PLAYER]
        opp = 1 - player
        for j in range(OBS_SIZE):
            out[k, j] = 0.0
        hand = M[i, HAND0 + player]
        known = M[i, KNOWN0 + opp]
        odecl = M[i, DECLINED0 + opp]
        sdecl = M[i, DECLINED0 + player]
        for c in range(PLANE):
            if (hand >> c) & 1:
                out[k, HAND_AT + c] = 1.0
            if (known >> c) & 1:
                out[k, KNOWN_AT + c] = 1.0
            if (odecl >> c) & 1:
                out[k, OPP_DECLINED_AT + c] = 1.0
            if (sdecl >> c) & 1:
                out[k, OWN_DECLINED_AT + c] = 1.0
        n = S[i, PILE_LEN]
        if n > 0:
            out[k, TOP_AT + pile[i, n - 1]] = 1.0
            for j in range(n - 1):
                out[k, PILE_AT + pile[i, j]] = 1.0
        acting = S[i, PLAYER] == player and phase != OVER
        if acting and S[i, TAKEN] >= 0:
            out[k, TAKEN_AT + S[i, TAKEN]] = 1.0
        out[k, PHASE_OFFSET + phase] = 1.0
        out[k, ROLE_OFFSET + player] = 1.0
        out[k, STOCK_INDEX] = (NUM_CARDS - S[i, POS]) / STOCK_SCALE
        if acting and phase == DISCARD:
            dw = S[i, KDMIN]
        else:
            dw = deadwood(hand)
        out[k, DEADWOOD_INDEX] = dw / 100.0
        out[k, TURN_INDEX] = S[i, TURNS] / R[R_MAX_TURNS]
