"""Cards: encoding, parsing, formatting, points and 52-bit masks.

A card is an int ``suit * 13 + rank``: suits clubs, diamonds, hearts, spades
are 0..3, ranks Ace..King are 0..12 (Ace is always low). A set of cards is a
52-bit int mask with bit ``card`` set for each card it holds.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

NUM_CARDS = 52
NUM_RANKS = 13
RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
FULL_MASK = (1 << NUM_CARDS) - 1

_POINTS = tuple(min(rank + 1, 10) for rank in range(NUM_RANKS))
CARD_POINTS: tuple[int, ...] = tuple(_POINTS[c % NUM_RANKS] for c in range(NUM_CARDS))


def card_rank(card: int) -> int:
    """Rank 0 (Ace) .. 12 (King)."""
    return card % NUM_RANKS


def card_suit(card: int) -> int:
    """Suit 0 (clubs), 1 (diamonds), 2 (hearts), 3 (spades)."""
    return card // NUM_RANKS


def make_card(rank: int, suit: int) -> int:
    return suit * NUM_RANKS + rank


def card_points(card: int) -> int:
    """Deadwood value: Ace 1, 2-10 face value, J/Q/K 10."""
    return CARD_POINTS[check_card(card)]


def check_card(card: int) -> int:
    """Return ``card`` as an int if it is a valid card index, else raise ``ValueError``."""
    if isinstance(card, bool):
        raise ValueError(f"card must be an int 0..51, got {card!r}")
    try:
        value = operator.index(card)
    except TypeError:
        raise ValueError(f"card must be an int 0..51, got {card!r}") from None
    if not 0 <= value < NUM_CARDS:
        raise ValueError(f"card index out of range 0..51: {value}")
    return value


def card_str(card: int, symbols: bool = False) -> str:
    """``35 -> "TH"`` (or ``"T♥"`` with ``symbols=True``)."""
    card = check_card(card)
    suit = SUIT_SYMBOLS if symbols else SUIT_CHARS
    return RANK_CHARS[card % NUM_RANKS] + suit[card // NUM_RANKS]


def cards_str(cards: Iterable[int], symbols: bool = False) -> str:
    return " ".join(card_str(c, symbols) for c in cards)


_SUIT_LOOKUP = {ch: i for i, ch in enumerate(SUIT_CHARS)}
_SUIT_LOOKUP.update({ch: i for i, ch in enumerate(SUIT_SYMBOLS)})
_SUIT_LOOKUP.update({"♧": 0, "♢": 1, "♡": 2, "♤": 3})
_RANK_LOOKUP = {ch: i for i, ch in enumerate(RANK_CHARS)}
_RANK_LOOKUP["10"] = 9


def parse_card(text: str) -> int:
    """Parse ``"TH"``, ``"10H"``, ``"th"``, ``"7♠"`` into a card index."""
    if not isinstance(text, str):
        raise ValueError(f"card text must be a string, got {text!r}")
    s = text.strip().upper().replace("\uFE0F", "")
    if len(s) < 2 or s[:-1] not in _RANK_LOOKUP or s[-1] not in _SUIT_LOOKUP:
        raise ValueError(
            f"not a card: {text!r} (expected rank A23456789TJQK or 10, then suit CDHS or ♣♦♥♠)"
        )
    return make_card(_RANK_LOOKUP[s[:-1]], _SUIT_LOOKUP[s[-1]])


def parse_cards(text: str | Iterable[str | int]) -> list[int]:
    """Parse ``"AC 2C 3C"`` (or a list of card texts / ints) into card indices.

    Raises ``ValueError`` naming a bad or duplicated card.
    """
    items: Iterable[str | int] = text.replace(",", " ").split() if isinstance(text, str) else text
    cards: list[int] = []
    seen: set[int] = set()
    for item in items:
        card = parse_card(item) if isinstance(item, str) else check_card(item)
        if card in seen:
            raise ValueError(f"duplicate card: {card_str(card)}")
        seen.add(card)
        cards.append(card)
    return cards


def mask_of(cards: Iterable[int]) -> int:
    """52-bit mask of a collection of cards."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def cards_of(mask: int) -> list[int]:
    """Cards of a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sort_key(card: int) -> tuple[int, int]:
    """Sort by suit, then rank (how a hand is usually held)."""
    return (card // NUM_RANKS, card % NUM_RANKS)
