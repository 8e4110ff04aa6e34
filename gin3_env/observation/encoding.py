"""Observation encoding: what one player knows (a :class:`PlayerView`), as a vector.

Compiled twin: :func:`gin3_env.kernels.hand_kernels.observe_rows`, tied by ``tests/test_vector_core.py``.

``encode(view)`` is the observation vector (layout in :mod:`.layout`);
``action_mask(view)`` the ``int8`` mask of the legal actions. Both read the view
only, so nothing here can see the opponent's hidden cards or the stock order.
The match observation (:func:`encode_match`) is the hand view of the seat's side
followed by the seat's role and the three totals.
"""

from __future__ import annotations

import numpy as np

from ..engine.actions import NUM_ACTIONS
from ..engine.hand import BOX, TEAM
from ..engine.match import MatchState
from ..engine.phases import Phase
from ..engine.view import PlayerView
from .layout import (
    DEADWOOD_INDEX,
    MATCH_OBS_SIZE,
    MATCH_ROLE_OFFSET,
    MATCH_SCORE_OFFSET,
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

_TOP_SHIFT = TOP_PLANE * PLANE
_PILE_SHIFT = PILE_PLANE * PLANE
_KNOWN_SHIFT = OPP_KNOWN_PLANE * PLANE
_OPP_DECLINED_SHIFT = OPP_DECLINED_PLANE * PLANE
_OWN_DECLINED_SHIFT = OWN_DECLINED_PLANE * PLANE
_TAKEN_SHIFT = TAKEN_PLANE * PLANE
_BIT_BYTES = (OBS_SIZE + 7) // 8
_NO_ACTIONS = bytes(NUM_ACTIONS)
_TOP_BITS = tuple(1 << (_TOP_SHIFT + c) for c in range(PLANE))
_PHASE_BITS = tuple(1 << (PHASE_OFFSET + p) for p in Phase)
_ROLE_BITS = (1 << ROLE_OFFSET, 1 << (ROLE_OFFSET + 1))
_unpackbits, _frombuffer = np.unpackbits, np.frombuffer
_UINT8, _INT8, _FLOAT32 = np.dtype(np.uint8), np.dtype(np.int8), np.dtype(np.float32)


def encode(view: PlayerView, out: np.ndarray | None = None) -> np.ndarray:
    """Observation vector of a player's view (see :mod:`.layout`); written into ``out`` if given."""
    hand = view.hand
    player = view.player
    acting = view.to_act == player
    # The 0/1 part (card planes, phase, role) is one 374-bit int, unpacked in one call.
    bits = (
        hand
        | view.opponent_known << _KNOWN_SHIFT
        | view.opponent_declined << _OPP_DECLINED_SHIFT
        | view.own_declined << _OWN_DECLINED_SHIFT
        | _PHASE_BITS[view.phase]
        | _ROLE_BITS[player]
    )
    top = view.top
    if top is not None:
        bits |= view.pile_mask << _PILE_SHIFT | _TOP_BITS[top]
    taken = view.taken
    if acting and taken is not None:
        bits |= 1 << (_TAKEN_SHIFT + taken)
    # (positional arguments: numpy parses keywords slower, and this runs at every step)
    flags = _unpackbits(_frombuffer(bits.to_bytes(_BIT_BYTES, "little"), _UINT8), None, OBS_SIZE, "little")
    if out is None:
        obs = flags.astype(_FLOAT32)
    else:
        obs = out
        obs[:] = flags
    obs[STOCK_INDEX] = view.stock_size / STOCK_SCALE
    obs[DEADWOOD_INDEX] = view.deadwood / 100.0  # cached by the view (HandState.view fills it)
    obs[TURN_INDEX] = view.turns / view.rules.max_turns
    return obs


def action_mask(view: PlayerView) -> np.ndarray:
    """``int8`` mask of shape (107,): the view's legal actions if its player is to act, else zeros."""
    mask = bytearray(_NO_ACTIONS)
    for a in view.legal_actions():  # cached by the view
        mask[a] = 1
    return _frombuffer(mask, _INT8)


def observe(view: PlayerView) -> dict[str, np.ndarray]:
    """The observation dict a policy gets: ``{"observation": encode(view), "action_mask": ...}``."""
    return {"observation": encode(view), "action_mask": action_mask(view)}


# ------------------------------------------------------------------ match view
_MATCH_ROLES = ("box", "captain", "sitter")


def match_side(match: MatchState, seat: int) -> int:
    """The hand player whose view ``seat`` gets: the box's seat the box's, captain and sitter the team's."""
    return BOX if seat == match.hand_roles.box else TEAM


def encode_match(match: MatchState, seat: int, view: PlayerView | None = None) -> np.ndarray:
    """Observation of ``seat`` in a match: the hand view of the team (captain and sitter
    share it: the sitter advises the captain and sees his cards) or of the box, then the
    seat's role and the three totals / target, starting with its own seat.

    ``view`` is that side's view of the hand when the caller has built it already."""
    obs = np.empty(MATCH_OBS_SIZE, dtype=np.float32)
    roles = match.hand_roles
    if view is None:
        view = match.hand.view(BOX if seat == roles.box else TEAM)
    encode(view, out=obs[:OBS_SIZE])
    obs[MATCH_ROLE_OFFSET:] = 0.0
    obs[MATCH_ROLE_OFFSET + _MATCH_ROLES.index(roles.role_of(seat))] = 1.0
    target = match.rules.target_score
    scores = match.scores
    for k in range(3):
        # Totals stay below the target during play; the final one may pass it (clipped to 1).
        obs[MATCH_SCORE_OFFSET + k] = min(scores[(seat + k) % 3] / target, 1.0)
    return obs


def match_action_mask(match: MatchState, seat: int) -> np.ndarray:
    """The legal mask of ``seat`` (zeros unless its seat is the one to act)."""
    if match.acting_seat != seat:
        return np.zeros(NUM_ACTIONS, dtype=np.int8)
    return action_mask(match.hand.view(match.hand.player))


def observe_match(match: MatchState, seat: int) -> dict[str, np.ndarray]:
    """The observation dict of ``seat``: one view of its side, the vector and the mask from it."""
    view = match.hand.view(match_side(match, seat))
    obs = encode_match(match, seat, view)
    if match.acting_seat != seat:
        return {"observation": obs, "action_mask": np.zeros(NUM_ACTIONS, dtype=np.int8)}
    return {"observation": obs, "action_mask": action_mask(view)}
