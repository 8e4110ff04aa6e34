"""The inverse of :func:`~.encoding.encode`: an observation vector back to the player's
:class:`~gin3_env.engine.PlayerView`, the one type for what a player knows.

The layout is the one of :mod:`.layout` (the first 374 entries; the match environment
appends more, which is ignored here). The vector is the observation of the player to act,
and it holds most of the view; what it cannot hold, :func:`decode` fills in as follows:

- ``to_act``: the vector is the acting player's, so ``player`` (``None`` once the hand is over);
- ``pile``: the vector holds its cards, not their order: in ascending card order;
- ``opponent_hand_size``: not held: 10 (the opponent of the player to act holds 10 cards);
- ``turns``: held as turns / ``max_turns``: read back with ``rules.max_turns``;
- ``stock_only``: held as the upcard both players declined: the draw phase with the top
  declined by both (no one has drawn yet, so only the stock may be drawn);
- ``rules``: not held: the ``rules`` argument (default ``Rules()``);
- ``own_known``: not held: 0 (a caller that tracked it may put it back with ``dataclasses.replace``).

Every other field comes back exactly: ``decode(encode(v), v.rules) == v`` for the player to
act, up to the pile's order and ``own_known`` (``tests/test_observation_package.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.actions import NUM_ACTIONS
from ..engine.phases import Phase
from ..engine.rules import Rules
from ..engine.view import PlayerView
from .layout import (
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

_DEFAULT_RULES = Rules()


def plane_mask(vector: np.ndarray, plane: int) -> int:
    """The 52-card plane number ``plane`` of an observation vector as a 52-bit mask."""
    bits = np.packbits(vector[plane * PLANE : (plane + 1) * PLANE] > 0.5, bitorder="little")
    return int.from_bytes(bits.tobytes(), "little")


def _single(mask: int) -> int | None:
    return None if mask == 0 else mask.bit_length() - 1


def check_observation(observation: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return (vector, mask) of an observation dict, or raise ``ValueError`` saying what is wrong."""
    if not isinstance(observation, dict) or "observation" not in observation or "action_mask" not in observation:
        raise ValueError("a policy needs an observation dict with 'observation' and 'action_mask'")
    vector = np.asarray(observation["observation"])
    mask = np.asarray(observation["action_mask"])
    if vector.ndim != 1 or vector.shape[0] < OBS_SIZE:
        raise ValueError(f"observation vector must be 1-D with at least {OBS_SIZE} entries, got {vector.shape}")
    if mask.shape != (NUM_ACTIONS,):
        raise ValueError(f"action_mask must have shape ({NUM_ACTIONS},), got {mask.shape}")
    if not mask.any():
        raise ValueError("action_mask has no legal action: this agent is not to act")
    return vector, mask


def decode(vector: np.ndarray, rules: Rules | None = None) -> PlayerView:
    """The :class:`~gin3_env.engine.PlayerView` of the player to act, from its observation vector
    (see :mod:`.layout`; the fields the vector cannot hold as the module doc says)."""
    rules = rules if rules is not None else _DEFAULT_RULES
    phase = Phase(int(np.argmax(vector[PHASE_OFFSET : PHASE_OFFSET + len(Phase)])))
    player = int(np.argmax(vector[ROLE_OFFSET : ROLE_OFFSET + 2]))
    top = _single(plane_mask(vector, TOP_PLANE))
    pile = plane_mask(vector, PILE_PLANE)
    own_declined = plane_mask(vector, OWN_DECLINED_PLANE)
    opponent_declined = plane_mask(vector, OPP_DECLINED_PLANE)
    # Both players refused the upcard, and nobody has drawn yet: only the stock may be drawn.
    stock_only = phase is Phase.DRAW and top is not None and bool((own_declined & opponent_declined) >> top & 1)
    return PlayerView(
        player=player,
        to_act=None if phase is Phase.OVER else player,
        phase=phase,
        hand=plane_mask(vector, HAND_PLANE),
        top=top,
        pile=tuple(c for c in range(PLANE) if pile >> c & 1),
        opponent_known=plane_mask(vector, OPP_KNOWN_PLANE),
        opponent_declined=opponent_declined,
        own_declined=own_declined,
        taken=_single(plane_mask(vector, TAKEN_PLANE)),
        opponent_hand_size=10,
        stock_size=round(float(vector[STOCK_INDEX]) * STOCK_SCALE),
        turns=round(float(vector[TURN_INDEX]) * rules.max_turns),
        stock_only=stock_only,
        rules=rules,
        _pile_mask=pile,
        _deadwood=round(float(vector[DEADWOOD_INDEX]) * 100),
    )


def mask_actions(mask: np.ndarray) -> list[int]:
    """The legal action ids of an action mask, ascending."""
    return [int(a) for a in np.flatnonzero(mask)]
