"""The privileged state: everything a full-information observer knows of a hand (or a match).

For centralised critics (MAPPO-style, asymmetric actor-critic) and for diagnosis only. It
holds both hands and the stock order, so it is never part of an observation and no policy
reads it at play time (``tests/test_privacy.py`` holds both). The AEC envs expose it as
``env.state()`` with ``env.state_space`` (PettingZoo's convention), the Gymnasium envs as
``env.unwrapped.state()``, the batched core as ``VectorHands.state()`` (one array per call).

A flat ``float32`` vector in ``[0, 1]``: the 52-card planes of :data:`STATE_CARD_PLANES` (card
``suit * 13 + rank``), then the scalars of :data:`STATE_SCALARS`. Both hands are in a fixed order,
team first; nothing is relative to a player. Every offset and size is computed from those tables,
and the tables printed here are generated from them:

{table}

The stock is in order (the next card drawn decides much of a hand's value, and a
full-information observer knows it). The match state appends the roles of the hand in
play and the three totals in seat order (:data:`MATCH_STATE_FIELDS`): {match_size} entries.

{match_table}

:func:`encode_state` reads a :class:`~gin3_env.engine.hand.HandState`; :func:`encode_state_batch`
computes the same rows from the arrays of the batched core (``VectorHands.state()`` calls it).
"""

from __future__ import annotations

import numpy as np

from ..engine.hand import HandState
from ..engine.match import NUM_SEATS, MatchState
from ..engine.phases import Phase
from ..engine.result import PLAYER_NAMES
from .layout import PLANE, STOCK_SCALE, Field, markdown_table, spans

STATE_CARD_PLANES: tuple[Field, ...] = (
    Field("team_hand", PLANE, "the team's cards (the captain's hand)"),
    Field("box_hand", PLANE, "the box's cards"),
    Field("top_discard", PLANE, "top of the discard pile, one-hot (the upcard in the opening)"),
    Field("discard_pile", PLANE, "the rest of the discard pile"),
    Field("stock", PLANE, "the cards in the stock"),
    Field("stock_order", PLANE,
          f"per stock card `({STOCK_SCALE} - k) / {STOCK_SCALE}`, `k` the draws before it (next: 1)"),
    Field("team_known", PLANE, "cards the team took from the pile and still holds"),
    Field("box_known", PLANE, "cards the box took from the pile and still holds"),
    Field("team_declined", PLANE, "cards the team declined (passed upcard, discards drawn over)"),
    Field("box_declined", PLANE, "cards the box declined"),
    Field("taken", PLANE, "the card the player to act took from the pile this turn"),
)
STATE_SCALARS: tuple[Field, ...] = (
    Field("phase", len(Phase), "one-hot: offer to team, offer to box, draw, discard, hand over"),
    Field("to_act", len(PLAYER_NAMES), "one-hot: team, box (zeros once the hand is over)"),
    Field("stock_size", 1, f"cards left in the stock / {STOCK_SCALE}"),
    Field("turns", 1, "turns played / `max_turns`"),
    Field("stock_only", 1, "1 when both refused the upcard and the captain must draw"),
)
# What the match state appends to the hand's.
MATCH_STATE_FIELDS: tuple[Field, ...] = (
    Field("roles", 3 * NUM_SEATS, "the seats of the box, the captain, the sitter: three one-hots of three seats"),
    Field("scores", NUM_SEATS, "the three totals / `target_score` (clipped to 1), seats in order"),
)
STATE_PLANES = tuple(f.name for f in STATE_CARD_PLANES)
(TEAM_HAND, BOX_HAND, TOP, PILE, STOCK, STOCK_ORDER, TEAM_KNOWN, BOX_KNOWN, TEAM_DECLINED, BOX_DECLINED,
 TAKEN) = (STATE_PLANES.index(name) for name in (
    "team_hand", "box_hand", "top_discard", "discard_pile", "stock", "stock_order", "team_known", "box_known",
    "team_declined", "box_declined", "taken"))
NUM_PHASES = len(Phase)
# (name, start, stop) of each row of the tables above
STATE_LAYOUT = spans((*STATE_CARD_PLANES, *STATE_SCALARS))
MATCH_STATE_LAYOUT = (*STATE_LAYOUT, *spans(MATCH_STATE_FIELDS, STATE_LAYOUT[-1][2]))
_START = {name: start for name, start, _ in MATCH_STATE_LAYOUT}
PHASE_START = _START["phase"]  # 572
TO_ACT_START = _START["to_act"]  # 577
STOCK_SIZE_INDEX = _START["stock_size"]  # 579
TURNS_INDEX = _START["turns"]  # 580
STOCK_ONLY_INDEX = _START["stock_only"]  # 581
STATE_SIZE = STATE_LAYOUT[-1][2]  # 582
ROLES_START = _START["roles"]  # 582: box seat, captain seat, sitter seat (one-hot of 3 each)
SCORES_START = _START["scores"]  # 591
MATCH_STATE_SIZE = MATCH_STATE_LAYOUT[-1][2]  # 594

__doc__ = (
    (__doc__ or "")
    .replace("{table}", markdown_table((*STATE_CARD_PLANES, *STATE_SCALARS)))
    .replace("{match_size}", str(MATCH_STATE_SIZE))
    .replace("{match_table}", markdown_table(MATCH_STATE_FIELDS, STATE_SIZE))
)

_OVER = int(Phase.OVER)


def _mask_bits(mask: int) -> np.ndarray:
    return np.unpackbits(np.frombuffer(mask.to_bytes(8, "little"), np.uint8), bitorder="little")[:PLANE]


def encode_state(hand: HandState, out: np.ndarray | None = None) -> np.ndarray:
    """The privileged state vector of ``hand`` (see the module doc); written into ``out`` if given."""
    if out is None:
        out = np.zeros(STATE_SIZE, dtype=np.float32)
    else:
        out[:STATE_SIZE] = 0.0
    planes = out[: PHASE_START].reshape(len(STATE_PLANES), PLANE)
    masks = (
        (TEAM_HAND, hand.hands[0]), (BOX_HAND, hand.hands[1]),
        (TEAM_KNOWN, hand.known[0]), (BOX_KNOWN, hand.known[1]),
        (TEAM_DECLINED, hand.declined[0]), (BOX_DECLINED, hand.declined[1]),
    )
    for plane, mask in masks:
        planes[plane] = _mask_bits(mask)
    if hand.discards:
        planes[TOP, hand.discards[-1]] = 1.0
        planes[PILE, hand.discards[:-1]] = 1.0
    stock = hand.stock  # stock[-1] is drawn next
    depth = np.arange(len(stock))[::-1]
    planes[STOCK, stock] = 1.0
    planes[STOCK_ORDER, stock] = (STOCK_SCALE - depth) / STOCK_SCALE
    over = hand.phase == _OVER
    if not over and hand.taken is not None:
        planes[TAKEN, hand.taken] = 1.0
    out[PHASE_START + int(hand.phase)] = 1.0
    if not over:
        out[TO_ACT_START + hand.player] = 1.0
    out[STOCK_SIZE_INDEX] = len(stock) / STOCK_SCALE
    out[TURNS_INDEX] = hand.turns / hand.rules.max_turns
    out[STOCK_ONLY_INDEX] = float(hand.stock_only)
    return out


def encode_match_state(match: MatchState) -> np.ndarray:
    """The privileged state of a match: the hand's (:func:`encode_state`), the roles of the hand in
    play and the three totals / target (clipped to 1), seats in order."""
    out = np.zeros(MATCH_STATE_SIZE, dtype=np.float32)
    encode_state(match.hand, out)
    roles = match.hand_roles
    for k, seat in enumerate((roles.box, roles.captain, roles.sitter)):
        out[ROLES_START + k * NUM_SEATS + seat] = 1.0
    target = match.rules.target_score
    out[SCORES_START:] = [min(score / target, 1.0) for score in match.scores]
    return out


def _bits(masks: np.ndarray) -> np.ndarray:
    """(n, k) 52-bit masks (int64 or uint64) -> (n, k, 52) 0/1 bytes."""
    arr = np.ascontiguousarray(masks).astype("<u8", copy=False)
    n, k = arr.shape
    return np.unpackbits(arr.view(np.uint8).reshape(n, k, 8), axis=-1, bitorder="little")[..., :PLANE]


def encode_state_batch(
    *,
    hands: np.ndarray,
    known: np.ndarray,
    declined: np.ndarray,
    deck: np.ndarray,
    stock_start: np.ndarray,
    pile: np.ndarray,
    pile_len: np.ndarray,
    phase: np.ndarray,
    to_act: np.ndarray,
    turns: np.ndarray,
    stock_only: np.ndarray,
    taken: np.ndarray,
    max_turns: int,
) -> np.ndarray:
    """:func:`encode_state` of ``n`` hands at once, from arrays: ``hands``, ``known``, ``declined``
    (n, 2) 52-bit masks (team, box); ``deck`` (n, 52) each hand's deck, its stock
    ``deck[i, stock_start[i]:]`` in draw order; ``pile`` (n, 52) the discard pile bottom first,
    ``pile_len[i]`` long; ``phase``, ``to_act`` (0 team, 1 box), ``turns``, ``stock_only``, ``taken``
    (-1: none) per hand. Returns float32 (n, 582), row ``i`` equal to ``encode_state`` of hand ``i``."""
    n = len(phase)
    out = np.zeros((n, STATE_SIZE), dtype=np.float32)
    planes = out[:, :PHASE_START].reshape(n, len(STATE_PLANES), PLANE)
    masks = np.concatenate([hands, known, declined], axis=1)  # team, box per pair
    planes[:, [TEAM_HAND, BOX_HAND, TEAM_KNOWN, BOX_KNOWN, TEAM_DECLINED, BOX_DECLINED]] = _bits(masks)
    rows = np.arange(n)
    pile_len = np.asarray(pile_len, dtype=np.int64)
    has_top = pile_len > 0
    planes[rows[has_top], TOP, pile[has_top, pile_len[has_top] - 1]] = 1.0
    below = np.arange(PLANE) < (pile_len - 1)[:, None]
    rest = np.where(below, np.left_shift(np.uint64(1), pile.astype(np.uint64)), np.uint64(0)).sum(axis=1)
    planes[:, PILE] = _bits(rest[:, None])[:, 0]
    depth = np.arange(PLANE) - np.asarray(stock_start, dtype=np.int64)[:, None]  # draws before each deck slot
    in_stock = depth >= 0
    cards = deck.astype(np.int64)  # a permutation per row: every card index is written once
    planes[rows[:, None], STOCK, cards] = in_stock
    planes[rows[:, None], STOCK_ORDER, cards] = np.where(in_stock, (STOCK_SCALE - depth) / STOCK_SCALE, 0.0)
    live = np.asarray(phase) != _OVER
    with_taken = live & (np.asarray(taken) >= 0)
    planes[rows[with_taken], TAKEN, np.asarray(taken)[with_taken]] = 1.0
    out[rows, PHASE_START + np.asarray(phase, dtype=np.int64)] = 1.0
    out[rows[live], TO_ACT_START + np.asarray(to_act, dtype=np.int64)[live]] = 1.0
    out[:, STOCK_SIZE_INDEX] = in_stock.sum(axis=1) / STOCK_SCALE
    out[:, TURNS_INDEX] = np.asarray(turns) / max_turns
    out[:, STOCK_ONLY_INDEX] = np.asarray(stock_only) != 0
    return out
