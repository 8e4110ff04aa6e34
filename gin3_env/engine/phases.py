"""The phases of a hand and the one function that decides legality in each.

Compiled twin: :func:`gin3_env.kernels.hand_kernels.legal_row`, tied by ``tests/test_vector_core.py``.

:func:`legal_in_phase` is used by :meth:`HandState.legal_actions` (the full state)
and by :meth:`PlayerView.legal_actions` (what the player to act knows): both hold
everything legality depends on, so both answer from the same code.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum

from .actions import DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from .cards import cards_of
from .rules import Rules


class Phase(IntEnum):
    OFFER_TEAM = 0  # the captain may take the upcard or pass
    OFFER_BOX = 1  # the captain passed; the box may take it or pass
    DRAW = 2  # take the top of the stock or of the discard pile
    DISCARD = 3  # discard a card or knock
    OVER = 4


_OFFER = [TAKE_DISCARD, PASS]
_DRAW_BOTH = [DRAW_STOCK, TAKE_DISCARD]
_DRAW_STOCK_ONLY = [DRAW_STOCK]


def legal_in_phase(
    phase: Phase,
    *,
    stock_only: bool,
    has_top: bool,
    hand: int,
    taken: int | None,
    rules: Rules,
    knock_deadwoods: Callable[[], dict[int, int]],
) -> list[int]:
    """The legal actions of the player to act, ascending, dispatched on the phase (§5).

    ``hand`` is that player's cards (mask), ``taken`` the card he took from the pile this
    turn, ``knock_deadwoods()`` the deadwood left by discarding each card (asked for only
    in the discard phase)."""
    if phase is Phase.OFFER_TEAM or phase is Phase.OFFER_BOX:
        return list(_OFFER)
    if phase is Phase.DRAW:
        if stock_only or not has_top:
            return list(_DRAW_STOCK_ONLY)
        return list(_DRAW_BOTH)
    if phase is Phase.DISCARD:
        forbidden = taken if not rules.allow_discard_taken_card else None
        kd = knock_deadwoods()  # one entry per card of the hand
        cards = sorted(kd) if len(kd) == hand.bit_count() else cards_of(hand)
        if forbidden is not None and forbidden in kd:
            cards.remove(forbidden)
        limit = rules.knock_limit
        return [DISCARD_BASE + c for c in cards] + [KNOCK_BASE + c for c in cards if kd[c] <= limit]
    return []
