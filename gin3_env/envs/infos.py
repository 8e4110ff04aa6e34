"""One schema for a hand's result in the envs' infos: the same keys on every step, never ``None``.

Learning libraries stack infos step by step (Tianshou's buffers, Gymnasium's vector envs,
TorchRL's info readers): a key that comes and goes, or a ``None``, reads there as missing
data. So every env's info holds the same keys from ``reset`` on, and a field that does not
apply holds a sentinel (docs/design.md §5):

| key | type | before the hand ends, or where it does not apply |
|---|---|---|
| ``outcome`` | str: ``gin``, ``knock``, ``undercut``, ``dead``, ``truncated`` | ``""`` |
| ``knocker``, ``winner`` | str: the player's (agent's, seat's) name | ``""`` (a dead hand has neither) |
| ``points`` | int: the winner's points | ``0`` |
| ``knocker_deadwood``, ``defender_deadwood`` | int | ``-1`` |
| ``knock_discard`` | str: the card the knocker discarded (``"KS"``) | ``""`` |
| ``spreads`` | per player: ``melds``, ``deadwood_cards``, ``deadwood`` (int), ``layoffs`` | ``""`` and ``-1`` |

A spread's texts: ``melds`` ``"7H 8H 9H / QS QC QD"``, ``deadwood_cards`` ``"2C 5D"``,
``layoffs`` ``"4H:0 JC:1"`` (a card and the index of the other player's meld it was laid on).

The structured result is the env's ``result`` (the engine's :class:`~gin3_env.engine.HandResult`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine.cards import card_str
from ..engine.result import HandResult, Spread

NOT_APPLICABLE = -1  # the int sentinel (a deadwood that does not apply); "" for the str fields

__all__ = ["NOT_APPLICABLE", "result_info", "spread_info"]


def _cards(cards: Sequence[int]) -> str:
    return " ".join(card_str(c) for c in cards)


def spread_info(spread: Spread | None) -> dict[str, Any]:
    """A player's spread as fixed-type fields (``""``/``-1`` where there is none)."""
    if spread is None:
        return {"melds": "", "deadwood_cards": "", "deadwood": NOT_APPLICABLE, "layoffs": ""}
    return {
        "melds": " / ".join(_cards(meld) for meld in spread.melds),
        "deadwood_cards": _cards(spread.deadwood_cards),
        "deadwood": int(spread.deadwood),
        "layoffs": " ".join(f"{card_str(card)}:{meld}" for card, meld in spread.layoffs),
    }


def result_info(result: HandResult | None, names: Sequence[str]) -> dict[str, Any]:
    """The result fields of the module doc, players named ``names[TEAM]``/``names[BOX]``;
    ``result=None`` (a hand in play) gives every field its sentinel."""

    def name(player: int | None) -> str:
        return "" if player is None else names[player]

    def number(value: int | None) -> int:
        return NOT_APPLICABLE if value is None else int(value)

    spreads = (None, None) if result is None or result.spreads is None else result.spreads
    return {
        "outcome": "" if result is None else result.outcome,
        "knocker": name(None if result is None else result.knocker),
        "winner": name(None if result is None else result.winner),
        "points": 0 if result is None else int(result.points),
        "knocker_deadwood": number(None if result is None else result.knocker_deadwood),
        "defender_deadwood": number(None if result is None else result.defender_deadwood),
        "knock_discard": "" if result is None or result.knock_discard is None else card_str(result.knock_discard),
        "spreads": {names[p]: spread_info(spread) for p, spread in enumerate(spreads)},
    }
