"""The players of a hand and how a hand ends: :class:`HandResult` and each side's :class:`Spread`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import card_str
from .melds import Arrangement

TEAM, BOX = 0, 1  # the players of a hand: the captain (for the team) and the box
PLAYER_NAMES = ("team", "box")
# How a hand stands or ended, by code (the compiled core stores the code): OUTCOMES[code].
OUTCOMES = ("in_play", "gin", "knock", "undercut", "dead", "truncated")
IN_PLAY, GIN, KNOCK, UNDERCUT, DEAD, TRUNCATED = range(len(OUTCOMES))

__all__ = ["BOX", "OUTCOMES", "PLAYER_NAMES", "TEAM", "HandResult", "Spread"]


@dataclass(frozen=True)
class Spread:
    """What a player showed at the end of a hand."""

    melds: tuple[tuple[int, ...], ...]
    deadwood_cards: tuple[int, ...]
    deadwood: int
    layoffs: tuple[tuple[int, int], ...] = ()  # (card, index of the opponent's meld)

    @classmethod
    def of(cls, arrangement: Arrangement, layoffs: tuple[tuple[int, int], ...] = ()) -> Spread:
        return cls(arrangement.melds, arrangement.deadwood_cards, arrangement.deadwood, layoffs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "melds": [[card_str(c) for c in m] for m in self.melds],
            "deadwood_cards": [card_str(c) for c in self.deadwood_cards],
            "deadwood": self.deadwood,
            "layoffs": [[card_str(c), i] for c, i in self.layoffs],
        }


@dataclass(frozen=True)
class HandResult:
    """The end of a hand. ``knocker``/``winner`` are TEAM, BOX or None."""

    outcome: str  # "gin", "knock", "undercut", "dead" or "truncated"
    knocker: int | None = None
    winner: int | None = None
    points: int = 0
    knocker_deadwood: int | None = None
    defender_deadwood: int | None = None
    spreads: tuple[Spread, Spread] | None = None  # indexed by player
    knock_discard: int | None = None

    @property
    def returns(self) -> tuple[int, int]:
        """Zero-sum points per player (TEAM, BOX)."""
        if self.winner is None:
            return (0, 0)
        return (self.points, -self.points) if self.winner == TEAM else (-self.points, self.points)

    def to_dict(self) -> dict[str, Any]:
        name = lambda p: None if p is None else PLAYER_NAMES[p]  # noqa: E731
        return {
            "outcome": self.outcome,
            "knocker": name(self.knocker),
            "winner": name(self.winner),
            "points": self.points,
            "knocker_deadwood": self.knocker_deadwood,
            "defender_deadwood": self.defender_deadwood,
            "knock_discard": None if self.knock_discard is None else card_str(self.knock_discard),
            "spreads": None
            if self.spreads is None
            else {PLAYER_NAMES[p]: s.to_dict() for p, s in enumerate(self.spreads)},
        }
