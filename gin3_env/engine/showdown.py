"""The showdown after a knock (§6): spreads, layoffs and the score.

Compiled twin: :func:`gin3_env.kernels.meld_kernels.showdown` (and knock_score), tied by ``tests/test_vector_core.py``.

The knocker chooses, among every spread of his 10 cards with deadwood <= the
knock limit, the one that scores best for him against the defender's best reply
(melds plus layoffs that minimise the defender's deadwood). A gin spread needs no
search: no layoffs are allowed onto it and it scores ``gin_bonus + D``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .layoffs import LayoffResult, best_layoffs
from .melds import Arrangement, arrangements, best_arrangement
from .result import GIN, KNOCK, OUTCOMES, UNDERCUT
from .rules import Rules


@dataclass(frozen=True)
class Showdown:
    """How a knock was scored, from the knocker's side."""

    outcome: str  # "gin", "knock" or "undercut"
    knocker_spread: Arrangement
    defender_spread: Arrangement
    layoffs: tuple[tuple[int, int], ...]  # (card, index into knocker_spread.melds)
    knocker_deadwood: int
    defender_deadwood: int
    knocker_won: bool
    points: int  # to the winner


def knock_score(
    knocker_deadwood: int, defender_deadwood: int, gin_bonus: int, undercut_bonus: int
) -> tuple[int, bool, int]:
    """(outcome code of :data:`~.result.OUTCOMES`, knocker won, points) for deadwoods K and D
    (§6.3). Plain ints in and out: the compiled core compiles this very function, so the
    score is written once."""
    k, d = knocker_deadwood, defender_deadwood
    if k == 0:
        return GIN, True, gin_bonus + d
    if k < d:
        return KNOCK, True, d - k
    return UNDERCUT, False, undercut_bonus + (k - d)


def score_knock(knocker_deadwood: int, defender_deadwood: int, rules: Rules) -> tuple[str, bool, int]:
    """(outcome, knocker won, points) for deadwoods K and D (§6.3)."""
    code, won, points = knock_score(knocker_deadwood, defender_deadwood, rules.gin_bonus, rules.undercut_bonus)
    return OUTCOMES[code], won, points


def showdown(knocker: int, defender: int, rules: Rules) -> Showdown:
    """Score a knock. ``knocker`` and ``defender`` are 52-bit masks of 10 cards each."""
    own = best_arrangement(defender)
    gin = best_arrangement(knocker)
    if gin.deadwood == 0:
        outcome, won, points = score_knock(0, own.deadwood, rules)
        return Showdown(outcome, gin, own, (), 0, own.deadwood, won, points)
    spreads = arrangements(knocker, rules.knock_limit)
    if not spreads:
        raise ValueError(f"knocker's deadwood {gin.deadwood} is above the knock limit {rules.knock_limit}")
    # Best net score for the knocker; among equals, the spread with the least deadwood.
    best: tuple[tuple[int, int], Arrangement, LayoffResult] | None = None
    for spread in spreads:
        reply = best_layoffs(defender, spread.melds)
        outcome, won, points = score_knock(spread.deadwood, reply.deadwood, rules)
        key = (points if won else -points, -spread.deadwood)
        if best is None or key > best[0]:
            best = (key, spread, reply)
    assert best is not None
    _, spread, reply = best
    outcome, won, points = score_knock(spread.deadwood, reply.deadwood, rules)
    return Showdown(
        outcome, spread, reply.arrangement, reply.layoffs, spread.deadwood, reply.deadwood, won, points
    )
