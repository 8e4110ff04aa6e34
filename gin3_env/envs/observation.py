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
from ..engine.match import MatchState, Roles
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


_TOP_SHIFT = TOP_PLANE * PLANE
_PILE_SHIFT = PILE_PLANE * PLANE
_KNOWN_SHIFT = OPP_KNOWN_PLANE * PLANE
_OPP_DECLINED_SHIFT = OPP_DECLINED_PLANE * PLANE
_OWN_DECLINED_SHIFT = OWN_DECLINED_PLANE * PLANE
_TAKEN_SHIFT = TAKEN_PLANE * PLANE
_BIT_BYTES = (OBS_SIZE + 7) // 8
_NO_ACTIONS = bytes(NUM_ACTIONS)
_TOP_BITS = tuple(1 << (_TOP_SHIFT + c) for c in range(PLANE))
_PILE_BITS = tuple(1 << (_PILE_SHIFT + c) for c in range(PLANE))


def mask_to_plane(mask: int, out: np.ndarray) -> None:
    """Write a 52-bit card mask into a 52-float plane."""
    out[:] = _BIT_TABLE[np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8)].reshape(-1)[:52]


def encode(state: HandState, player: int, out: np.ndarray | None = None) -> np.ndarray:
    """Observation vector of ``player`` (0 team, 1 box); see the module table."""
    opp = 1 - player
    hand = state.hands[player]
    phase = state.phase
    # The 0/1 part (card planes, phase, role) is one 374-bit int, unpacked in one call.
    bits = (
        hand
        | state.known[opp] << _KNOWN_SHIFT
        | state.declined[opp] << _OPP_DECLINED_SHIFT
        | state.declined[player] << _OWN_DECLINED_SHIFT
        | 1 << (PHASE_OFFSET + phase)
        | 1 << (ROLE_OFFSET + player)
    )
    pile = state.discards
    if pile:  # cards are distinct, so a sum of their bits is their union
        top = pile[-1]
        bits |= sum(map(_PILE_BITS.__getitem__, pile)) - _PILE_BITS[top] + _TOP_BITS[top]
    acting = state.player == player and phase is not Phase.OVER
    if acting and state.taken is not None:
        bits |= 1 << (_TAKEN_SHIFT + state.taken)
    flags = np.unpackbits(
        np.frombuffer(bits.to_bytes(_BIT_BYTES, "little"), dtype=np.uint8), count=OBS_SIZE, bitorder="little"
    )
    if out is None:
        obs = flags.astype(np.float32)
    else:
        obs = out
        obs[:] = flags
    obs[STOCK_INDEX] = len(state.stock) / INITIAL_STOCK
    if acting and phase is Phase.DISCARD:
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
    # state.legal_mask() as a bytearray filled from the engine's legal actions: a little faster.
    mask = bytearray(_NO_ACTIONS)
    for a in state.legal_actions():
        mask[a] = 1
    return np.frombuffer(mask, dtype=np.int8)


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
    obs = np.empty(MATCH_OBS_SIZE, dtype=np.float32)
    roles = hand_roles(match)
    player = BOX if seat == roles.box else TEAM
    encode(match.hand, player, out=obs[:OBS_SIZE])
    obs[MATCH_ROLE_OFFSET:] = 0.0
    obs[MATCH_ROLE_OFFSET + ("box", "captain", "sitter").index(roles.role_of(seat))] = 1.0
    target = match.rules.target_score
    scores = match.scores
    for k in range(3):
        # Totals stay below the target during play; the final one may pass it (clipped to 1).
        obs[MATCH_SCORE_OFFSET + k] = min(scores[(seat + k) % 3] / target, 1.0)
    return obs


def hand_roles(match: MatchState) -> Roles:
    """The roles ``match.hand`` is (or was) played with: ``match.roles`` during play; once
    the match is over ``match.roles`` already holds the next hand's, so the last hand's."""
    if match.is_over and match.history:
        return Roles.from_dict(match.history[-1]["roles"])
    return match.roles


def match_action_mask(match: MatchState, seat: int) -> np.ndarray:
    """The legal mask of ``seat`` (zeros unless its seat is the one to act)."""
    if match.acting_seat != seat:
        return np.zeros(NUM_ACTIONS, dtype=np.int8)
    return match.hand.legal_mask()
