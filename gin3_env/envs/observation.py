"""Observation encoding: what one player may know, from his own side.

The observation is a flat ``float32`` vector: seven 52-card planes, then
scalar features. Card planes are indexed by the card id ``suit * 13 + rank``.

| slice     | feature                                                            |
|-----------|--------------------------------------------------------------------|
| 0:52      | own hand                                                           |
| 52:104    | top of the discard pile (one-hot; the upcard in the opening)       |
| 104:156   | the rest of the discard pile                                       |
| 156:208   | cards the opponent took from the discard pile and still holds      |
| 208:260   | cards the opponent declined (passed upcard, discards drawn over)   |
| 260:312   | cards this player declined                                         |
| 312:364   | the card this player took from the pile this turn (not discardable)|
| 364:369   | phase one-hot: offer to team, offer to box, draw, discard, over    |
| 369:371   | own role one-hot: team (captain), box                              |
| 371       | stock size / 31                                                    |
| 372       | own deadwood / 100 (after the best discard when holding 11 cards)  |
| 373       | turns played / max_turns                                           |

The match environment appends its own features (see ``aec_match``).
Nothing here reads the opponent's hidden cards or the stock order.
"""

from __future__ import annotations

import numpy as np

from ..engine.actions import NUM_ACTIONS
from ..engine.hand import BOX, TEAM, HandState, Phase
from ..engine.match import MatchState
from ..engine.melds import deadwood_of_mask

NUM_PLANES = 7
PLANE = 52
HAND_PLANE, TOP_PLANE, PILE_PLANE, OPP_KNOWN_PLANE, OPP_DECLINED_PLANE, OWN_DECLINED_PLANE, TAKEN_PLANE = (
    range(NUM_PLANES)
)
PHASE_OFFSET = NUM_PLANES * PLANE  # 364
ROLE_OFFSET = PHASE_OFFSET + 5  # 369
STOCK_INDEX = ROLE_OFFSET + 2  # 371
DEADWOOD_INDEX = STOCK_INDEX + 1  # 372
TURN_INDEX = DEADWOOD_INDEX + 1  # 373
OBS_SIZE = TURN_INDEX + 1  # 374
INITIAL_STOCK = 31

# Each row: (name, start, stop) of the layout above; the env docstring test reads it.
LAYOUT: tuple[tuple[str, int, int], ...] = (
    ("hand", 0, 52),
    ("top_discard", 52, 104),
    ("discard_pile", 104, 156),
    ("opponent_known", 156, 208),
    ("opponent_declined", 208, 260),
    ("own_declined", 260, 312),
    ("taken_this_turn", 312, 364),
    ("phase", 364, 369),
    ("role", 369, 371),
    ("stock_size", 371, 372),
    ("deadwood", 372, 373),
    ("turns", 373, 374),
)

_BIT_TABLE = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(
    np.float32
)


def mask_to_plane(mask: int, out: np.ndarray) -> None:
    """Write a 52-bit card mask into a 52-float plane."""
    out[:] = _BIT_TABLE[np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8)].reshape(-1)[:52]


def encode(state: HandState, player: int, out: np.ndarray | None = None) -> np.ndarray:
    """Observation vector of ``player`` (0 team, 1 box); see the module table."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32) if out is None else out
    if out is not None:
        obs[:] = 0.0
    opp = 1 - player
    hand = state.hands[player]
    planes = (
        hand,
        0,
        0,
        state.known[opp],
        state.declined[opp],
        state.declined[player],
        0,
    )
    for i, mask in enumerate(planes):
        if mask:
            mask_to_plane(mask, obs[i * PLANE : (i + 1) * PLANE])
    pile = state.discards
    if pile:
        obs[TOP_PLANE * PLANE + pile[-1]] = 1.0
        if len(pile) > 1:
            obs[PILE_PLANE * PLANE + np.asarray(pile[:-1])] = 1.0
    acting = state.player == player and state.phase is not Phase.OVER
    if acting and state.taken is not None:
        obs[TAKEN_PLANE * PLANE + state.taken] = 1.0
    obs[PHASE_OFFSET + int(state.phase)] = 1.0
    obs[ROLE_OFFSET + player] = 1.0
    obs[STOCK_INDEX] = len(state.stock) / INITIAL_STOCK
    if acting and state.phase is Phase.DISCARD:
        dw = min(state.knock_deadwoods().values())
    else:
        dw = deadwood_of_mask(hand)
    obs[DEADWOOD_INDEX] = dw / 100.0
    obs[TURN_INDEX] = state.turns / state.rules.max_turns
    return obs


def action_mask(state: HandState, player: int) -> np.ndarray:
    """``int8`` mask of shape (107,): the legal actions if ``player`` is to act, else zeros."""
    if state.phase is Phase.OVER or state.player != player:
        return np.zeros(NUM_ACTIONS, dtype=np.int8)
    return state.legal_mask()


# ------------------------------------------------------------------ match view
MATCH_ROLE_OFFSET = OBS_SIZE  # 374: own role one-hot: box, captain, sitter
MATCH_SCORE_OFFSET = MATCH_ROLE_OFFSET + 3  # 377: totals / target of self, next seat, seat after
MATCH_OBS_SIZE = MATCH_SCORE_OFFSET + 3  # 380
MATCH_LAYOUT: tuple[tuple[str, int, int], ...] = (
    *LAYOUT,
    ("match_role", MATCH_ROLE_OFFSET, MATCH_ROLE_OFFSET + 3),
    ("match_scores", MATCH_SCORE_OFFSET, MATCH_SCORE_OFFSET + 3),
)


def encode_match(match: MatchState, seat: int) -> np.ndarray:
    """Observation of ``seat`` in a match: the hand view of the team (captain and sitter
    share it: the sitter advises the captain and sees his cards) or of the box, then the
    seat's role and the three totals / target, starting with its own seat."""
    obs = np.zeros(MATCH_OBS_SIZE, dtype=np.float32)
    roles = match.roles
    player = BOX if seat == roles.box else TEAM
    encode(match.hand, player, out=obs[:OBS_SIZE])
    obs[MATCH_ROLE_OFFSET + ("box", "captain", "sitter").index(roles.role_of(seat))] = 1.0
    target = match.rules.target_score
    for k in range(3):
        obs[MATCH_SCORE_OFFSET + k] = match.scores[(seat + k) % 3] / target
    return obs


def match_action_mask(match: MatchState, seat: int) -> np.ndarray:
    """The legal mask of ``seat`` (zeros unless its seat is the one to act)."""
    if match.acting_seat != seat:
        return np.zeros(NUM_ACTIONS, dtype=np.int8)
    return match.hand.legal_mask()
