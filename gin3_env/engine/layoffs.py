"""Layoffs: the defender's best reply to a knock (§6.1).

Compiled twin: the layoffs of :func:`gin3_env.kernels.meld_kernels.showdown`, tied by ``tests/test_vector_core.py``.

Cards go onto a 3-card set as its fourth card, or extend a run at either end,
chained; :func:`best_layoffs` searches every choice for the least deadwood.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .cards import NUM_RANKS, card_rank, card_suit
from .melds import Arrangement, Meld, as_mask, best_arrangement, deadwood_of_mask


@dataclass(frozen=True)
class LayoffResult:
    """The defender's best reply: layoffs (card, index of the knocker's meld) and his spread."""

    layoffs: tuple[tuple[int, int], ...]
    arrangement: Arrangement

    @property
    def deadwood(self) -> int:
        return self.arrangement.deadwood


def _layoff_options(defender: int, meld: Meld) -> list[tuple[int, ...]]:
    """Ways to lay off onto one meld: tuples of cards (in laying order), the empty one first."""
    options: list[tuple[int, ...]] = [()]
    ranks = {card_rank(c) for c in meld}
    if len(ranks) == 1:  # a set
        if len(meld) == 3:
            rank = card_rank(meld[0])
            suits = {card_suit(c) for c in meld}
            fourth = next(s * 13 + rank for s in range(4) if s not in suits)
            if defender >> fourth & 1:
                options.append((fourth,))
        return options
    suit = card_suit(meld[0])
    lo, hi = min(ranks), max(ranks)
    below: list[int] = []
    r = lo - 1
    while r >= 0 and defender >> (suit * 13 + r) & 1:
        below.append(suit * 13 + r)
        r -= 1
    above: list[int] = []
    r = hi + 1
    while r < NUM_RANKS and defender >> (suit * 13 + r) & 1:
        above.append(suit * 13 + r)
        r += 1
    for i in range(len(below) + 1):
        for j in range(len(above) + 1):
            if i or j:
                options.append((*below[:i], *above[:j]))
    return options


def best_layoffs(defender_cards: Iterable[int] | int, knocker_melds: Iterable[Meld]) -> LayoffResult:
    """The defender's layoffs and melds that minimise his deadwood (§6.1).

    Cards go onto a 3-card set as its fourth card, or extend a run at either end,
    chained (a laid-off card may be extended further). A card is used once."""
    defender = as_mask(defender_cards)
    melds = list(knocker_melds)
    per_meld = [_layoff_options(defender, m) for m in melds]
    best_dw = deadwood_of_mask(defender)
    best_layoff: tuple[tuple[int, int], ...] = ()

    def rec(i: int, used: int, laid: tuple[tuple[int, int], ...]) -> None:
        nonlocal best_dw, best_layoff
        if i == len(melds):
            if laid:
                dw = deadwood_of_mask(defender & ~used)
                if dw < best_dw:
                    best_dw, best_layoff = dw, laid
            return
        for option in per_meld[i]:
            bits = sum(1 << c for c in option)
            if bits & used:
                continue
            rec(i + 1, used | bits, laid + tuple((c, i) for c in option))

    if any(len(opts) > 1 for opts in per_meld):
        rec(0, 0, ())
    left = defender
    for c, _ in best_layoff:
        left &= ~(1 << c)
    return LayoffResult(best_layoff, best_arrangement(left))
