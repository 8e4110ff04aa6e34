"""A match: three seats, rotating roles, per-person totals to the target (§3, §7, §8).

Seats are 0, 1, 2. Each hand the ``box`` seat plays the box, the ``captain``
seat plays for the team and the ``sitter`` seat only advises (it never acts
and never scores). After a hand:

| result          | next box        | next captain      | next sitter      |
|-----------------|-----------------|-------------------|------------------|
| box scored      | box             | old sitter        | old captain      |
| team scored     | old captain     | old sitter        | old box          |
| dead/truncated  | unchanged       | unchanged         | unchanged        |
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .cards import NUM_CARDS, card_rank
from .hand import BOX, LOG_VERSION, TEAM, HandState, check_deck
from .result import HandResult
from .rules import Rules

NUM_SEATS = 3
ROLE_NAMES = ("box", "captain", "sitter")


@dataclass(frozen=True)
class Roles:
    """Which seat holds each role."""

    box: int
    captain: int
    sitter: int

    def __post_init__(self) -> None:
        for name in ROLE_NAMES:
            seat = getattr(self, name)
            if isinstance(seat, bool) or not isinstance(seat, int | np.integer):
                raise ValueError(f"roles: {name} must be a seat 0..2, got {seat!r}")
            object.__setattr__(self, name, int(seat))
        if sorted((self.box, self.captain, self.sitter)) != [0, 1, 2]:
            raise ValueError(
                f"roles must give seats 0, 1, 2 one role each, got box={self.box}, "
                f"captain={self.captain}, sitter={self.sitter}"
            )

    @classmethod
    def from_dict(cls, roles: dict[str, int]) -> Roles:
        if not isinstance(roles, dict) or set(roles) != set(ROLE_NAMES):
            raise ValueError(f"roles must be a dict with keys box, captain, sitter; got {roles!r}")
        for name, seat in roles.items():
            if isinstance(seat, bool) or not isinstance(seat, int | np.integer):
                raise ValueError(f"roles[{name!r}] must be a seat 0..2, got {seat!r}")
        return cls(int(roles["box"]), int(roles["captain"]), int(roles["sitter"]))

    def to_dict(self) -> dict[str, int]:
        return {"box": self.box, "captain": self.captain, "sitter": self.sitter}

    def seat_of(self, hand_player: int) -> int:
        """The seat that plays hand player TEAM (the captain) or BOX."""
        return self.captain if hand_player == TEAM else self.box

    def role_of(self, seat: int) -> str:
        return ROLE_NAMES[(self.box, self.captain, self.sitter).index(seat)]

    def after(self, result: HandResult) -> Roles:
        """Roles for the next hand (§7)."""
        if result.winner is None:
            return self
        if result.winner == BOX:
            return Roles(self.box, self.sitter, self.captain)
        return Roles(self.captain, self.sitter, self.box)


def draw_roles(rng: np.random.Generator) -> tuple[Roles, list[list[int]]]:
    """Each seat draws a card; highest rank is the box, middle the captain,
    lowest the sitter; tied seats draw again among themselves (suits do not rank).

    Returns the roles and the draws (one list of (seat, card) rounds per group)."""
    draws: list[list[int]] = []

    def order(seats: list[int]) -> list[int]:
        """Seats from highest to lowest draw, breaking ties by redrawing."""
        if len(seats) == 1:
            return seats
        cards = [int(c) for c in rng.choice(NUM_CARDS, size=len(seats), replace=False)]
        draws.append([x for pair in zip(seats, cards, strict=True) for x in pair])
        by_rank: dict[int, list[int]] = {}
        for seat, card in zip(seats, cards, strict=True):
            by_rank.setdefault(card_rank(card), []).append(seat)
        if len(by_rank) == 1 and len(seats) > 1:
            return order(seats)
        out: list[int] = []
        for rank in sorted(by_rank, reverse=True):
            out.extend(order(by_rank[rank]))
        return out

    box, captain, sitter = order([0, 1, 2])
    return Roles(box, captain, sitter), draws


def check_scores(scores: Sequence[int], rules: Rules) -> list[int]:
    """Starting totals as three ints, if they are three ints >= 0 below the target; else ``ValueError``."""
    totals = list(scores)
    if len(totals) != NUM_SEATS or any(
        isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 0 for s in totals
    ):
        raise ValueError(f"scores must be three ints >= 0, got {totals!r}")
    totals = [int(s) for s in totals]
    if max(totals) >= rules.target_score:
        raise ValueError(f"scores {totals} already reach the target {rules.target_score}: the match is over")
    return totals


def _deal(rules: Rules, decks: list[list[int]], rng: np.random.Generator) -> HandState:
    """The next given deck if any is left, else a shuffle."""
    if decks:
        return HandState.deal(rules, deck=decks.pop(0))
    return HandState.deal(rules, rng=rng)


@dataclass
class MatchState:
    """A match in progress: the current hand, roles, totals and the history of hands.

    ``roles`` are the roles of the next hand to deal once a hand ends (§7);
    ``hand_roles`` those ``hand`` is (or, once the match is over, was) played with."""

    rules: Rules
    roles: Roles
    scores: list[int]
    hand: HandState
    rng: np.random.Generator
    decks: list[list[int]] = field(default_factory=list)  # given decks still to deal
    history: list[dict[str, Any]] = field(default_factory=list)  # finished hands
    winner: int | None = None  # seat
    hand_roles: Roles = field(init=False)  # the roles ``hand`` is played with

    def __post_init__(self) -> None:
        self.hand_roles = self.roles

    @classmethod
    def start(
        cls,
        rules: Rules | None = None,
        rng: np.random.Generator | None = None,
        roles: Roles | dict[str, int] | None = None,
        scores: Sequence[int] | None = None,
        decks: Sequence[Sequence[int]] | None = None,
    ) -> MatchState:
        rules = rules or Rules()
        rng = rng if rng is not None else np.random.default_rng()
        if roles is None:
            roles, _ = draw_roles(rng)
        elif isinstance(roles, dict):
            roles = Roles.from_dict(roles)
        elif not isinstance(roles, Roles):
            raise ValueError(f"roles must be a Roles or a dict with keys box, captain, sitter; got {roles!r}")
        totals = [0, 0, 0] if scores is None else check_scores(scores, rules)
        queue = [check_deck(d) for d in (decks or [])]
        return cls(rules, roles, totals, _deal(rules, queue, rng), rng, queue)

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def acting_seat(self) -> int | None:
        if self.is_over or self.hand.is_over:
            return None
        return self.roles.seat_of(self.hand.player)

    def apply(self, action: int) -> HandResult | None:
        """Play for the seat to act. Returns the hand's result when it ends (the next
        hand is then dealt at once unless the match is over)."""
        if self.is_over:
            raise ValueError("the match is over")
        result = self.hand.apply(action)
        if result is None:
            return None
        seat_points = [0, 0, 0]
        if result.winner is not None:
            seat_points[self.roles.seat_of(result.winner)] = result.points
        for seat in range(NUM_SEATS):
            self.scores[seat] += seat_points[seat]
        self.history.append(
            {
                "roles": self.roles.to_dict(),
                "log": self.hand.log(),
                "result": result.to_dict(),
                "seat_points": seat_points,
                "scores": list(self.scores),
            }
        )
        leaders = [s for s in range(NUM_SEATS) if self.scores[s] >= self.rules.target_score]
        self.roles = self.roles.after(result)
        if leaders:
            self.winner = leaders[0]
        else:
            self.hand = _deal(self.rules, self.decks, self.rng)
            self.hand_roles = self.roles
        return result

    def clone(self) -> MatchState:
        return copy.deepcopy(self)

    def log(self) -> dict[str, Any]:
        """JSON-able record of the finished hands (each with its roles, deck and actions)."""
        return {
            "version": LOG_VERSION,
            "rules": self.rules.to_dict(),
            "hands": list(self.history),
            "scores": list(self.scores),
            "winner": self.winner,
        }
