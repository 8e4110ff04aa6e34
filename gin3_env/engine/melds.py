"""Melds and deadwood: exact, fast, pure Python.

Compiled twin: :mod:`gin3_env.kernels.meld_kernels`, tied by ``tests/test_vector_core.py``.

Sets live within a rank and runs within a suit, so an arrangement of a hand is
fixed by (a) which cards go into sets, rank by rank, and (b) the runs of each
suit on what is left. (b) is settled once for all 8192 possible suits of one
suit by a table (``RUN_DEADWOOD``); (a) has few choices, since only ranks that
hold three or more cards can form a set. Hands too large for that enumeration
(a full deck has 6**13 set choices) fall back to a dynamic programme over ranks.

Public helpers (re-exported from ``gin3_env``): :func:`deadwood`,
:func:`best_arrangement`, :func:`knock_deadwoods`. The showdown uses
:func:`arrangements` (every way to spread a hand) and
:func:`~gin3_env.engine.layoffs.best_layoffs`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import cast

from .cards import CARD_POINTS, FULL_MASK, NUM_RANKS, card_str, cards_of, check_card

SUIT_BITS = (1 << NUM_RANKS) - 1
Meld = tuple[int, ...]


# ---------------------------------------------------------------- run tables
def _build_run_tables() -> tuple[list[int], list[tuple[tuple[int, int], ...]]]:
    """For each 13-bit rank mask of one suit: min deadwood with runs only, and the runs."""
    points = CARD_POINTS[:NUM_RANKS]
    dw = [0] * (1 << NUM_RANKS)
    runs: list[tuple[tuple[int, int], ...]] = [()] * (1 << NUM_RANKS)
    for m in range(1, 1 << NUM_RANKS):
        low = (m & -m).bit_length() - 1
        best, best_runs = dw[m & (m - 1)] + points[low], runs[m & (m - 1)]
        seg, hi = 0, low
        while hi < NUM_RANKS and m >> hi & 1:
            seg |= 1 << hi
            if hi - low >= 2 and dw[m & ~seg] < best:
                best, best_runs = dw[m & ~seg], ((low, hi), *runs[m & ~seg])
            hi += 1
        dw[m], runs[m] = best, best_runs
    return dw, runs


RUN_DEADWOOD, RUN_MELDS = _build_run_tables()
# DROP[m]: (rank, run-deadwood of m without that rank) for each rank in m.
DROP: list[tuple[tuple[int, int], ...]] = [
    tuple((r, RUN_DEADWOOD[m & ~(1 << r)]) for r in range(NUM_RANKS) if m >> r & 1)
    for m in range(1 << NUM_RANKS)
]


def _suits(mask: int) -> list[int]:
    return [mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39 & SUIT_BITS]


def _set_ranks(s: list[int]) -> int:
    """13-bit mask of the ranks held in three or more suits."""
    a, b, c, d = s
    return (a & b & (c | d)) | (c & d & (a | b))


def _set_options(s: list[int], rank: int) -> list[int]:
    """Set choices for one rank as 4-bit suit masks: none, each triple, the quad."""
    held = [suit for suit in range(4) if s[suit] >> rank & 1]
    options = [0]
    options += [sum(1 << x for x in trio) for trio in combinations(held, 3)]
    if len(held) == 4:
        options.append(0b1111)
    return options


# Products of set choices above this size use the rank-by-rank DP instead.
_MAX_SET_CHOICES = 256


def _set_choices(mask: int) -> Iterator[tuple[list[int], tuple[tuple[int, int], ...]]] | None:
    """Yield (suit masks left for runs, sets as (rank, suit-mask)) for every set choice.

    Returns None where the enumeration would be too large (use the DP)."""
    s = _suits(mask)
    ranks = _set_ranks(s)
    if not ranks:
        return iter([(s, ())])
    per_rank = [(r, _set_options(s, r)) for r in range(NUM_RANKS) if ranks >> r & 1]
    total = 1
    for _, opts in per_rank:
        total *= len(opts)
    if total > _MAX_SET_CHOICES:
        return None

    def gen() -> Iterator[tuple[list[int], tuple[tuple[int, int], ...]]]:
        stack: list[tuple[int, list[int], tuple[tuple[int, int], ...]]] = [(0, s, ())]
        while stack:
            i, suits, sets = stack.pop()
            if i == len(per_rank):
                yield suits, sets
                continue
            rank, opts = per_rank[i]
            bit = 1 << rank
            for opt in opts:
                if opt:
                    left = [m & ~bit if opt >> k & 1 else m for k, m in enumerate(suits)]
                    stack.append((i + 1, left, (*sets, (rank, opt))))
                else:
                    stack.append((i + 1, suits, sets))

    return gen()


# ------------------------------------------------------------------ deadwood
def as_mask(cards: Iterable[int] | int) -> int:
    """A 52-bit mask from a mask or an iterable of distinct card indices (checked)."""
    kind = type(cards)
    seq: Sequence[int]
    if kind is list or kind is tuple:
        seq = cast("Sequence[int]", cards)
    elif isinstance(cards, int) and not isinstance(cards, bool):
        if not 0 <= cards <= FULL_MASK:
            raise ValueError(f"a card mask is a 52-bit int >= 0, got {cards:#x}")
        return cards
    elif isinstance(cards, bool | str) or not isinstance(cards, Iterable):
        raise ValueError(f"cards must be card indices or a 52-bit mask, got {cards!r}")
    else:
        seq = list(cards)
    mask = 0
    for c in seq:  # fast path: plain ints 0..51, all distinct
        if type(c) is not int or not 0 <= c < 52:
            break
        mask |= 1 << c
    else:
        if mask.bit_count() == len(seq):
            return mask
    mask = 0  # slow path: numpy ints, or find the card to complain about
    for c in seq:
        c = check_card(c)
        bit = 1 << c
        if mask & bit:
            raise ValueError(f"duplicate card in hand: {card_str(c)} ({c})")
        mask |= bit
    return mask


def deadwood_of_mask(mask: int) -> int:
    """Minimum deadwood of the cards in a 52-bit mask."""
    rd = RUN_DEADWOOD
    a, b, c, d = mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39
    if not (a & b & (c | d)) | (c & d & (a | b)):  # no rank can form a set
        return rd[a] + rd[b] + rd[c] + rd[d]
    choices = _set_choices(mask)
    if choices is None:
        return _dp_arrangement(mask)[0]
    return min(rd[a] + rd[b] + rd[c] + rd[d] for (a, b, c, d), _ in choices)


def deadwood(cards: Iterable[int] | int) -> int:
    """Minimum deadwood over all arrangements of ``cards`` (any number of distinct cards).

    ``cards`` is an iterable of card indices or a 52-bit mask."""
    return deadwood_of_mask(as_mask(cards))


def knock_deadwoods(cards: Iterable[int] | int) -> dict[int, int]:
    """For each card of the hand: the minimum deadwood of the other cards.

    For an 11-card hand this is the deadwood left after discarding each card,
    all derived from one pass over the set choices."""
    mask = as_mask(cards)
    rd, drop = RUN_DEADWOOD, DROP
    a, b, c, d = mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39
    if not (a & b & (c | d)) | (c & d & (a | b)):  # no rank can form a set: runs only, one pass
        total = rd[a] + rd[b] + rd[c] + rd[d]
        out: dict[int, int] = {}
        for offset, m in ((0, a), (13, b), (26, c), (39, d)):
            base = total - rd[m]
            for rank, rest in drop[m]:
                out[offset + rank] = base + rest
        return out
    choices = _set_choices(mask)
    if choices is None:
        return {c: deadwood_of_mask(mask & ~(1 << c)) for c in cards_of(mask)}
    best: dict[int, int] = {}
    # Every rank has the "no set" choice, so every card is met as a run/deadwood card.
    for suits, _ in choices:
        total = rd[suits[0]] + rd[suits[1]] + rd[suits[2]] + rd[suits[3]]
        for suit, m in enumerate(suits):
            base = total - rd[m]
            offset = suit * 13
            for rank, rest in drop[m]:
                card = offset + rank
                value = base + rest
                if value < best.get(card, 1 << 30):
                    best[card] = value
    return best


# --------------------------------------------------------------- arrangement
@dataclass(frozen=True)
class Arrangement:
    """Melds (each a tuple of cards, ascending) and the cards left as deadwood."""

    melds: tuple[Meld, ...]
    deadwood_cards: tuple[int, ...]
    deadwood: int

    def to_dict(self) -> dict:
        return {
            "melds": [list(m) for m in self.melds],
            "deadwood_cards": list(self.deadwood_cards),
            "deadwood": self.deadwood,
        }


def _arrangement_from(mask: int, sets: Iterable[tuple[int, int]], suits: list[int]) -> Arrangement:
    melds: list[Meld] = []
    used = 0
    for rank, suit_bits in sets:
        meld = tuple(s * 13 + rank for s in range(4) if suit_bits >> s & 1)
        melds.append(meld)
    for suit, m in enumerate(suits):
        for lo, hi in RUN_MELDS[m]:
            melds.append(tuple(suit * 13 + r for r in range(lo, hi + 1)))
    for meld in melds:
        for c in meld:
            used |= 1 << c
    dead = tuple(cards_of(mask & ~used))
    melds.sort()
    return Arrangement(tuple(melds), dead, sum(CARD_POINTS[c] for c in dead))


def best_arrangement(cards: Iterable[int] | int) -> Arrangement:
    """An arrangement of ``cards`` with the minimum deadwood."""
    mask = as_mask(cards)
    choices = _set_choices(mask)
    if choices is None:
        return _dp_arrangement(mask)[1]
    rd = RUN_DEADWOOD
    best = min(choices, key=lambda ch: rd[ch[0][0]] + rd[ch[0][1]] + rd[ch[0][2]] + rd[ch[0][3]])
    return _arrangement_from(mask, best[1], best[0])


def _dp_arrangement(mask: int) -> tuple[int, Arrangement]:
    """Exact rank-by-rank DP for any hand size.

    State: per suit the length of the open run (0, 1, 2 or 3 meaning >= 3).
    Each card of a rank goes to a run, a set (0, 3 or 4 cards of the rank) or
    deadwood; a run of length 1 or 2 may not be closed."""
    suits = _suits(mask)
    layers: list[dict[tuple[int, ...], tuple[int, tuple[int, ...] | None, tuple[str, ...]]]] = []
    frontier: dict[tuple[int, ...], tuple[int, tuple[int, ...] | None, tuple[str, ...]]] = {
        (0, 0, 0, 0): (0, None, ())
    }
    for rank in range(NUM_RANKS):
        held = [s for s in range(4) if suits[s] >> rank & 1]
        points = CARD_POINTS[rank]
        nxt: dict[tuple[int, ...], tuple[int, tuple[int, ...] | None, tuple[str, ...]]] = {}
        for state, (cost, _, _) in frontier.items():
            for assign in _assignments(len(held)):
                if assign.count("S") not in (0, 3, 4):
                    continue
                new = [0, 0, 0, 0]
                ok = True
                extra = 0
                choice = ["-"] * 4
                for k, s in enumerate(held):
                    choice[s] = assign[k]
                for s in range(4):
                    if choice[s] == "R":
                        new[s] = min(state[s] + 1, 3)
                    elif state[s] in (1, 2):
                        ok = False
                        break
                    if choice[s] == "D":
                        extra += points
                if not ok:
                    continue
                key = tuple(new)
                if key not in nxt or cost + extra < nxt[key][0]:
                    nxt[key] = (cost + extra, state, tuple(choice))
        layers.append(nxt)
        frontier = nxt
    finals = {k: v for k, v in frontier.items() if all(x in (0, 3) for x in k)}
    state = min(finals, key=lambda k: finals[k][0])
    total = finals[state][0]
    # Walk back to recover each rank's choice.
    choices: list[tuple[str, ...]] = []
    back: tuple[int, ...] | None = state
    for layer in reversed(layers):
        assert back is not None
        _, prev, picked = layer[back]
        choices.append(picked)
        back = prev
    choices.reverse()
    melds: list[Meld] = []
    dead: list[int] = []
    open_runs: list[list[int]] = [[], [], [], []]
    for rank, chosen in enumerate(choices):
        set_cards = [s * 13 + rank for s in range(4) if chosen[s] == "S"]
        if set_cards:
            melds.append(tuple(set_cards))
        for s in range(4):
            if chosen[s] == "R":
                open_runs[s].append(s * 13 + rank)
            else:
                if open_runs[s]:
                    melds.append(tuple(open_runs[s]))
                    open_runs[s] = []
                if chosen[s] == "D":
                    dead.append(s * 13 + rank)
    melds.extend(tuple(r) for r in open_runs if r)
    melds.sort()
    dead.sort()
    return total, Arrangement(tuple(melds), tuple(dead), total)


_ASSIGN_CACHE: dict[int, list[tuple[str, ...]]] = {}


def _assignments(n: int) -> list[tuple[str, ...]]:
    if n not in _ASSIGN_CACHE:
        out: list[tuple[str, ...]] = [()]
        for _ in range(n):
            out = [(*a, x) for a in out for x in "RSD"]
        _ASSIGN_CACHE[n] = out
    return _ASSIGN_CACHE[n]


# ------------------------------------------------------- every possible meld
def _all_melds() -> list[int]:
    melds = []
    for rank in range(NUM_RANKS):
        cards = [s * 13 + rank for s in range(4)]
        for size in (3, 4):
            for combo in combinations(cards, size):
                melds.append(sum(1 << c for c in combo))
    for suit in range(4):
        for lo in range(NUM_RANKS):
            for hi in range(lo + 2, NUM_RANKS):
                melds.append(sum(1 << (suit * 13 + r) for r in range(lo, hi + 1)))
    return melds


ALL_MELDS: list[int] = _all_melds()
MELDS_BY_LOW_CARD: list[list[int]] = [[] for _ in range(52)]
for _m in ALL_MELDS:
    MELDS_BY_LOW_CARD[(_m & -_m).bit_length() - 1].append(_m)


def is_meld(cards: Iterable[int]) -> bool:
    """True if the cards form one set or one run."""
    mask = as_mask(cards)
    return mask in _MELD_SET


_MELD_SET = frozenset(ALL_MELDS)


def arrangements(cards: Iterable[int] | int, max_deadwood: int) -> list[Arrangement]:
    """Every way to spread ``cards`` as disjoint melds with deadwood <= ``max_deadwood``.

    Melds may be left unspread (their cards then count as deadwood); a run may be
    split into shorter runs. Each collection of melds appears once."""
    mask = as_mask(cards)
    out: list[Arrangement] = []

    def rec(left: int, dead_mask: int, dead: int, melds: list[int]) -> None:
        if not left:
            meld_tuples = tuple(sorted(tuple(cards_of(m)) for m in melds))
            out.append(Arrangement(meld_tuples, tuple(cards_of(dead_mask)), dead))
            return
        low = left & -left
        card = low.bit_length() - 1
        if dead + CARD_POINTS[card] <= max_deadwood:
            rec(left ^ low, dead_mask | low, dead + CARD_POINTS[card], melds)
        for meld in MELDS_BY_LOW_CARD[card]:
            if meld & left == meld:
                melds.append(meld)
                rec(left & ~meld, dead_mask, dead, melds)
                melds.pop()

    # Cards below the lowest card of a meld that holds them are handled as the
    # recursion's lowest card, so melds are indexed by their lowest card.
    rec(mask, 0, 0, [])
    return out
