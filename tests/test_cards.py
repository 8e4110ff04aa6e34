"""Cards: index encoding, parsing, formatting, points, masks (§1)."""

from __future__ import annotations

import pytest

from gin3_env.engine.cards import (
    CARD_POINTS,
    card_points,
    card_rank,
    card_str,
    card_suit,
    cards_of,
    cards_str,
    mask_of,
    parse_card,
    parse_cards,
)


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("AC", 0),
        ("KC", 12),
        ("AD", 13),
        ("TH", 35),
        ("10H", 35),
        ("th", 35),
        ("10h", 35),
        (" 7s ", 45),
        ("7♠", 45),
        ("K♠", 51),
        ("A♣", 0),
        ("q♦", 24),
        ("J♥", 36),
        ("2♡", 27),
        ("5♥\ufe0f", 30),
    ],
)
def test_parse_card(text: str, card: int) -> None:
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "T", "1H", "11H", "ZH", "TX", "HT", "AC2C", "0S", "10"])
def test_parse_card_refuses_bad_text(text: str) -> None:
    with pytest.raises(ValueError, match="not a card") as err:
        parse_card(text)
    assert repr(text) in str(err.value)


@pytest.mark.parametrize("value", [35, None, b"TH", 3.5])
def test_parse_card_refuses_non_strings(value: object) -> None:
    with pytest.raises(ValueError, match="string"):
        parse_card(value)  # type: ignore[arg-type]


def test_parse_cards_text_and_lists() -> None:
    assert parse_cards("AC 2C 3C") == [0, 1, 2]
    assert parse_cards("AC, 10D,k♠") == [0, 22, 51]
    assert parse_cards(["TH", 0, "KS"]) == [35, 0, 51]
    assert parse_cards("") == []


def test_parse_cards_names_the_bad_card() -> None:
    with pytest.raises(ValueError, match="'XY'"):
        parse_cards("AC XY 3C")
    with pytest.raises(ValueError, match="52"):
        parse_cards([0, 52])
    with pytest.raises(ValueError):
        parse_cards([True])


@pytest.mark.parametrize("text", ["AC 2C AC", "TH 10H", "7♠ 7s", "KD kd"])
def test_parse_cards_refuses_duplicates(text: str) -> None:
    first = text.split()[0]
    with pytest.raises(ValueError, match="duplicate card: " + card_str(parse_card(first))):
        parse_cards(text)


def test_parse_cards_refuses_duplicate_ints() -> None:
    with pytest.raises(ValueError, match="duplicate card: AD"):
        parse_cards([13, 14, 13])


def test_card_str_round_trip() -> None:
    for card in range(52):
        assert parse_card(card_str(card)) == card
        assert parse_card(card_str(card, symbols=True)) == card
    assert card_str(35) == "TH"
    assert card_str(35, symbols=True) == "T♥"
    assert card_str(0) == "AC"
    assert card_str(51, symbols=True) == "K♠"
    assert card_str(13, symbols=True) == "A♦"
    assert cards_str([0, 35, 51]) == "AC TH KS"


@pytest.mark.parametrize("bad", [-1, 52, 3.0, "TH", None, True])
def test_card_str_refuses_non_cards(bad: object) -> None:
    with pytest.raises(ValueError):
        card_str(bad)  # type: ignore[arg-type]


def test_rank_and_suit() -> None:
    assert (card_rank(0), card_suit(0)) == (0, 0)
    assert (card_rank(parse_card("QH")), card_suit(parse_card("QH"))) == (11, 2)
    assert (card_rank(51), card_suit(51)) == (12, 3)


def test_points() -> None:
    expected = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
                "T": 10, "J": 10, "Q": 10, "K": 10}
    for suit in "CDHS":
        for rank, points in expected.items():
            card = parse_card(rank + suit)
            assert card_points(card) == points
            assert CARD_POINTS[card] == points
    assert sum(CARD_POINTS) == 4 * (45 + 40)
    with pytest.raises(ValueError):
        card_points(52)


def test_masks() -> None:
    cards = parse_cards("KS AC TH 2D")
    m = mask_of(cards)
    assert m == (1 << 51) | 1 | (1 << 35) | (1 << 14)
    assert cards_of(m) == sorted(cards)
    assert cards_of(0) == []
    assert cards_of(mask_of(range(52))) == list(range(52))
