"""Melds and deadwood (§2) and layoffs (§6.1), against brute force."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from conftest import all_melds_in, brute_deadwood, is_valid_meld
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gin3_env.engine import melds as M
from gin3_env.engine.cards import CARD_POINTS, card_str, cards_of, mask_of, parse_cards
from gin3_env.engine.layoffs import best_layoffs
from gin3_env.engine.melds import (
    arrangements,
    best_arrangement,
    deadwood,
    deadwood_of_mask,
    is_meld,
    knock_deadwoods,
)

FAST = settings(max_examples=150, deadline=None)


def hands(min_size: int = 0, max_size: int = 11) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, 51), min_size=min_size, max_size=max_size, unique=True)


def meldy_hands(min_size: int = 0, max_size: int = 11) -> st.SearchStrategy[list[int]]:
    """Hands drawn from few ranks and suits, so sets, runs and overlaps are common."""
    cards = [s * 13 + r for s in range(4) for r in range(2, 8)]
    return st.lists(st.sampled_from(cards), min_size=min_size, max_size=max_size, unique=True)


def any_hand(min_size: int = 0, max_size: int = 11) -> st.SearchStrategy[list[int]]:
    return st.one_of(hands(min_size, max_size), meldy_hands(min_size, max_size))


def set_choice_count(m: int) -> int:
    """How many set choices the enumeration path would visit for mask ``m``."""
    total = 1
    for rank in range(13):
        held = sum(m >> (s * 13 + rank) & 1 for s in range(4))
        total *= {0: 1, 1: 1, 2: 1, 3: 2, 4: 6}[held]
    return total


def check_arrangement(cards: list[int], arr: M.Arrangement) -> None:
    """Melds valid and disjoint, deadwood cards the rest, deadwood their points."""
    used: list[int] = [c for meld in arr.melds for c in meld]
    assert len(used) == len(set(used)), arr
    for meld in arr.melds:
        assert is_valid_meld(meld), meld
        assert list(meld) == sorted(meld)
    assert sorted(used + list(arr.deadwood_cards)) == sorted(cards)
    assert arr.deadwood == sum(CARD_POINTS[c] for c in arr.deadwood_cards)


# ------------------------------------------------------------- deadwood
@FAST
@given(any_hand())
def test_deadwood_matches_brute_force(cards: list[int]) -> None:
    expected = brute_deadwood(cards)
    assert deadwood(cards) == expected
    assert deadwood(mask_of(cards)) == expected
    assert deadwood_of_mask(mask_of(cards)) == expected


@settings(max_examples=60, deadline=None)
@given(any_hand(12, 40))
def test_dp_agrees_with_enumeration_on_large_hands(cards: list[int]) -> None:
    m = mask_of(cards)
    assume(set_choice_count(m) <= 3000)
    # Force the enumeration path however many set choices there are.
    saved = M._MAX_SET_CHOICES
    M._MAX_SET_CHOICES = 1 << 30
    try:
        enumerated = deadwood_of_mask(m)
        enumerated_arr = best_arrangement(m)
    finally:
        M._MAX_SET_CHOICES = saved
    dp_value, dp_arr = M._dp_arrangement(m)
    assert dp_value == enumerated == enumerated_arr.deadwood
    check_arrangement(cards, dp_arr)
    assert dp_arr.deadwood == dp_value


def test_dp_path_is_taken_and_exact_on_hands_with_many_quads() -> None:
    # Four full ranks: 6**4 set choices, above the enumeration cap, so deadwood uses the DP.
    cards = parse_cards("2C 2D 2H 2S 3C 3D 3H 3S 4C 4D 4H 4S 9C 9D 9H 9S KH")
    assert M._set_choices(mask_of(cards)) is None
    assert deadwood(cards) == brute_deadwood(cards) == 10
    arr = best_arrangement(cards)
    check_arrangement(cards, arr)
    assert arr.deadwood == 10
    assert knock_deadwoods(cards) == {c: deadwood([x for x in cards if x != c]) for c in cards}


def test_full_deck_and_empty_hand() -> None:
    assert deadwood(range(52)) == 0
    assert deadwood([]) == 0
    arr = best_arrangement(range(52))
    check_arrangement(list(range(52)), arr)
    assert arr.deadwood == 0
    everything_but_one = [c for c in range(52) if c != 20]
    assert deadwood(everything_but_one) == 0


@pytest.mark.parametrize(
    ("text", "dw"),
    [
        ("AC 2C 3C", 0),
        ("QC KC AC", 21),  # Ace is low only
        ("KC AC 2C", 13),
        ("JH QH KH", 0),
        ("QH KH AH 2H 3H", 20),  # A-2-3 melds; Q-K do not wrap round
        ("AC AD AH", 0),
        ("AC 2D 3C", 6),  # a run needs one suit
        ("7C 7D 7H 7S", 0),
        ("7C 7D", 14),
        ("5S 6S 7S 8S 9S TS", 0),
        ("2C 3C 4C 4D 4H", 5),  # 4C in the set (2C 3C left), not the run (4D 4H left)
        ("2C 3C 4C 5C 4D 4H", 8),  # run 2-5C (4D 4H left) beats set of 4s (2C 3C 5C left)
    ],
)
def test_known_deadwoods(text: str, dw: int) -> None:
    assert deadwood(parse_cards(text)) == dw


def test_ace_low_only_melds() -> None:
    assert is_meld(parse_cards("AC 2C 3C"))
    assert not is_meld(parse_cards("QC KC AC"))
    assert not is_meld(parse_cards("KC AC 2C"))
    assert is_meld(parse_cards("JC QC KC"))
    assert not is_meld(parse_cards("AC 2C"))
    assert not is_meld(parse_cards("AC AD AH AS 2C"))


@pytest.mark.parametrize(
    ("bad", "match"),
    [([1, 2, 1], "duplicate card in hand: 2C"), ([52], "52"), ([-1], "-1"), ([1.0], "int"), ([True], "int"),
     (1 << 52, "52-bit"), (-1, "52-bit"), (True, "card indices"), (None, "card indices"), ("AC 2C", "card indices")],
)
def test_deadwood_refuses_bad_cards(bad: object, match: str) -> None:
    for fn in (deadwood, knock_deadwoods, best_arrangement):
        with pytest.raises(ValueError, match=match):
            fn(bad)  # type: ignore[arg-type]


def test_deadwood_accepts_numpy_ints_and_masks() -> None:
    assert deadwood(np.array([0, 1, 2, 5])) == 6
    assert deadwood(mask_of([0, 1, 2, 5])) == 6


# ------------------------------------------------------- knock deadwoods
@FAST
@given(any_hand(0, 14))
def test_knock_deadwoods_equal_removing_each_card(cards: list[int]) -> None:
    kd = knock_deadwoods(cards)
    assert set(kd) == set(cards)
    m = mask_of(cards)
    for c in cards:
        assert kd[c] == deadwood_of_mask(m & ~(1 << c)), c


@settings(max_examples=40, deadline=None)
@given(meldy_hands(11, 11))
def test_knock_deadwoods_match_brute_force(cards: list[int]) -> None:
    kd = knock_deadwoods(cards)
    for c in cards:
        assert kd[c] == brute_deadwood([x for x in cards if x != c])


# ------------------------------------------------------------- symmetry
@FAST
@given(any_hand(0, 20), st.permutations(range(4)))
def test_suit_relabelling_keeps_deadwood(cards: list[int], perm: list[int]) -> None:
    relabelled = [perm[c // 13] * 13 + c % 13 for c in cards]
    assert deadwood(relabelled) == deadwood(cards)
    kd = knock_deadwoods(cards)
    kd2 = knock_deadwoods(relabelled)
    for c in cards:
        assert kd2[perm[c // 13] * 13 + c % 13] == kd[c]


# ---------------------------------------------------------- arrangement
@FAST
@given(any_hand(0, 16))
def test_best_arrangement_is_valid_and_minimal(cards: list[int]) -> None:
    arr = best_arrangement(cards)
    check_arrangement(cards, arr)
    assert arr.deadwood == deadwood(cards)


def brute_arrangements(cards: list[int], max_dw: int) -> set[frozenset[frozenset[int]]]:
    melds = all_melds_in(cards)
    out: set[frozenset[frozenset[int]]] = set()

    def rec(start: int, used: frozenset[int], chosen: list[frozenset[int]]) -> None:
        dead = sum(CARD_POINTS[c] for c in cards if c not in used)
        if dead <= max_dw:
            out.add(frozenset(chosen))
        for i in range(start, len(melds)):
            if not melds[i] & used:
                chosen.append(melds[i])
                rec(i + 1, used | melds[i], chosen)
                chosen.pop()

    rec(0, frozenset(), [])
    return out


@settings(max_examples=80, deadline=None)
@given(any_hand(0, 10), st.integers(0, 40))
def test_arrangements_list_each_spread_once(cards: list[int], max_dw: int) -> None:
    found = arrangements(cards, max_dw)
    keys = [frozenset(frozenset(m) for m in a.melds) for a in found]
    assert len(keys) == len(set(keys)), "a spread is listed twice"
    assert set(keys) == brute_arrangements(cards, max_dw)
    for a in found:
        check_arrangement(cards, a)
        assert a.deadwood <= max_dw


def test_arrangements_split_runs_and_unspread_melds() -> None:
    cards = parse_cards("AC 2C 3C 4C 5C 6C 2D")
    found = {frozenset(frozenset(m) for m in a.melds) for a in arrangements(cards, 10)}
    assert frozenset({frozenset(parse_cards("AC 2C 3C")), frozenset(parse_cards("4C 5C 6C"))}) in found
    assert frozenset({frozenset(parse_cards("AC 2C 3C 4C 5C 6C"))}) in found
    assert frozenset({frozenset(parse_cards("2C 3C 4C 5C 6C"))}) in found  # AC left as deadwood
    assert frozenset({frozenset(parse_cards("AC 2C 3C 4C"))}) not in found  # 5C 6C 2D: 13 > 10
    assert frozenset({frozenset(parse_cards("AC 2C 3C 4C 5C"))}) in found  # 6C + 2D = 8
    assert frozenset() not in found


def test_seeded_random_hands_match_brute_force() -> None:
    """Full-size hands (10 and 11 cards), uniform and clustered, against brute force."""
    rng = np.random.default_rng(20240607)
    clustered = [s * 13 + r for s in range(4) for r in range(1, 8)]
    for i in range(300):
        pool = clustered if i % 2 else list(range(52))
        cards = [int(c) for c in rng.choice(pool, size=10 + i % 2, replace=False)]
        assert deadwood(cards) == brute_deadwood(cards), cards


# -------------------------------------------------------------- layoffs
def brute_layoff_deadwood(defender: list[int], knocker_melds: list[tuple[int, ...]]) -> int:
    """Try every way to add defender cards to the knocker's melds so that each stays a meld."""
    per_meld: list[list[frozenset[int]]] = []
    for meld in knocker_melds:
        near = [c for c in defender if is_valid_meld([*meld, c]) or c // 13 == meld[0] // 13]
        options = [frozenset()]
        for size in range(1, len(near) + 1):
            for extra in combinations(near, size):
                if is_valid_meld([*meld, *extra]):
                    options.append(frozenset(extra))
        per_meld.append(options)
    best = deadwood(defender)

    def rec(i: int, used: frozenset[int]) -> None:
        nonlocal best
        if i == len(per_meld):
            best = min(best, deadwood([c for c in defender if c not in used]))
            return
        for option in per_meld[i]:
            if not option & used:
                rec(i + 1, used | option)

    rec(0, frozenset())
    return best


def check_layoffs(defender: list[int], knocker_melds: list[tuple[int, ...]], result: M.LayoffResult) -> None:
    laid = [c for c, _ in result.layoffs]
    assert len(laid) == len(set(laid))
    assert set(laid) <= set(defender)
    for i, meld in enumerate(knocker_melds):
        extra = [c for c, j in result.layoffs if j == i]
        if extra:
            assert is_valid_meld([*meld, *extra]), (meld, extra)
    rest = [c for c in defender if c not in laid]
    check_arrangement(rest, result.arrangement)
    assert result.deadwood == deadwood(rest)


@st.composite
def layoff_cases(draw: st.DrawFn) -> tuple[list[int], list[tuple[int, ...]]]:
    """Up to three disjoint knocker melds and a defender hand drawn near them."""
    melds: list[tuple[int, ...]] = []
    used = 0
    for _ in range(draw(st.integers(1, 3))):
        meld = draw(st.sampled_from(M.ALL_MELDS))
        if meld & used == 0 and len(cards_of(meld)) <= 5:
            melds.append(tuple(cards_of(meld)))
            used |= meld
    near = sorted(
        {c for m in melds for c in range(52) if not used >> c & 1
         and (c // 13 == m[0] // 13 or c % 13 == m[0] % 13 or c % 13 == m[-1] % 13)}
    )
    defender = draw(st.lists(st.sampled_from(near), unique=True, max_size=10)) if near else []
    return defender, melds


@settings(max_examples=150, deadline=None)
@given(layoff_cases())
def test_best_layoffs_matches_brute_force(case: tuple[list[int], list[tuple[int, ...]]]) -> None:
    defender, knocker_melds = case
    result = best_layoffs(defender, knocker_melds)
    check_layoffs(defender, knocker_melds, result)
    assert result.deadwood == brute_layoff_deadwood(defender, knocker_melds)


def layoff(defender: str, melds: list[str]) -> M.LayoffResult:
    knocker_melds = [tuple(sorted(parse_cards(m))) for m in melds]
    result = best_layoffs(parse_cards(defender), knocker_melds)
    check_layoffs(parse_cards(defender), knocker_melds, result)
    return result


def laid(result: M.LayoffResult) -> set[tuple[str, int]]:
    return {(card_str(c), i) for c, i in result.layoffs}


def test_layoff_fourth_card_of_a_set() -> None:
    r = layoff("7S KD", ["7C 7D 7H"])
    assert laid(r) == {("7S", 0)}
    assert r.deadwood == 10


def test_no_layoff_onto_a_four_card_set_or_off_suit() -> None:
    r = layoff("8C 9D KD", ["7C 7D 7H 7S", "4H 5H 6H"])
    assert laid(r) == set()
    assert r.deadwood == 27


def test_layoff_both_ends_of_a_run() -> None:
    r = layoff("4H 8H KD", ["5H 6H 7H"])
    assert laid(r) == {("4H", 0), ("8H", 0)}
    assert r.deadwood == 10


def test_layoff_chains_at_both_ends() -> None:
    r = layoff("3H 4H 8H 9H KD", ["5H 6H 7H"])
    assert laid(r) == {("3H", 0), ("4H", 0), ("8H", 0), ("9H", 0)}
    assert r.deadwood == 10


def test_layoff_chain_needs_the_inner_card() -> None:
    r = layoff("9H KD", ["5H 6H 7H"])  # 9H needs 8H first
    assert laid(r) == set()
    assert r.deadwood == 19


def test_layoff_ace_is_low_only() -> None:
    r = layoff("AH 4S", ["JH QH KH", "AS 2S 3S"])
    assert laid(r) == {("4S", 1)}
    assert r.deadwood == 1


def test_layoff_card_fits_two_melds_and_the_chain_decides() -> None:
    # 7S is the fourth 7 or extends 4-5-6S; only on the run can 8S follow.
    r = layoff("7S 8S KD", ["7C 7D 7H", "4S 5S 6S"])
    assert laid(r) == {("7S", 1), ("8S", 1)}
    assert r.deadwood == 10
    r = layoff("7S KD", ["7C 7D 7H", "4S 5S 6S"])
    assert len(r.layoffs) == 1 and r.layoffs[0][0] == parse_cards("7S")[0]
    assert r.deadwood == 10


def test_defender_keeps_his_own_meld_when_better() -> None:
    # Laying 8H on the run would break the defender's set of 8s.
    r = layoff("8C 8D 8H KD", ["5H 6H 7H"])
    assert r.deadwood == 10
    assert laid(r) == set()
    assert r.arrangement.melds == (tuple(parse_cards("8C 8D 8H")),)


def test_defender_lays_off_from_his_own_meld_when_better() -> None:
    # 7S leaves his four 7s (three remain a set) so that 7S and 8S extend 4-5-6S.
    r = layoff("7C 7D 7H 7S 8S", ["4S 5S 6S"])
    assert laid(r) == {("7S", 0), ("8S", 0)}
    assert r.deadwood == 0
    assert r.arrangement.melds == (tuple(parse_cards("7C 7D 7H")),)
