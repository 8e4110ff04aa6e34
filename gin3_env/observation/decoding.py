"""The inverse of :func:`~.encoding.encode`: an observation vector back to what the player knows.

The layout is the one of :mod:`.layout` (the first 374 entries; the match
environment appends more, which is ignored here). Cards come back as 52-bit
masks, the convention of :mod:`gin3_env.engine`. The vector holds the discard
pile as a set (not its order), so :class:`View` is the part of a
:class:`~gin3_env.engine.PlayerView` that a policy can read back from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.actions import NUM_ACTIONS
from ..engine.phases import Phase
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


@dataclass(frozen=True)
class View:
    """What one player sees, decoded from the observation vector."""

    hand: int  # own cards (mask)
    top: int | None  # top of the discard pile (the upcard in the opening)
    pile: int  # the rest of the discard pile (mask)
    opp_known: int  # cards the opponent took from the pile and still holds
    opp_declined: int  # cards the opponent refused
    own_declined: int  # cards this player refused
    taken: int | None  # card taken from the pile this turn (not discardable)
    phase: Phase
    role: int  # 0 team (captain), 1 box
    stock: int  # cards left in the stock
    deadwood: int  # own deadwood as encoded
    turns: float  # turns played / max_turns

    @property
    def seen(self) -> int:
        """Cards whose place is known to this player (hand, pile, opponent's known cards)."""
        top = 0 if self.top is None else 1 << self.top
        return self.hand | self.pile | top | self.opp_known

    @property
    def unseen(self) -> int:
        """Cards that are in the stock or hidden in the opponent's hand."""
        return ((1 << 52) - 1) & ~self.seen


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


def decode(vector: np.ndarray) -> View:
    """Decode an observation vector (see :mod:`.layout`)."""
    phase = int(np.argmax(vector[PHASE_OFFSET : PHASE_OFFSET + 5]))
    return View(
        hand=plane_mask(vector, HAND_PLANE),
        top=_single(plane_mask(vector, TOP_PLANE)),
        pile=plane_mask(vector, PILE_PLANE),
        opp_known=plane_mask(vector, OPP_KNOWN_PLANE),
        opp_declined=plane_mask(vector, OPP_DECLINED_PLANE),
        own_declined=plane_mask(vector, OWN_DECLINED_PLANE),
        taken=_single(plane_mask(vector, TAKEN_PLANE)),
        phase=Phase(phase),
        role=int(np.argmax(vector[ROLE_OFFSET : ROLE_OFFSET + 2])),
        stock=round(float(vector[STOCK_INDEX]) * STOCK_SCALE),
        deadwood=round(float(vector[DEADWOOD_INDEX]) * 100),
        turns=float(vector[TURN_INDEX]),
    )


def mask_actions(mask: np.ndarray) -> list[int]:
    """The legal action ids of an action mask, ascending."""
    return [int(a) for a in np.flatnonzero(mask)]
