"""Matches: role rotation, scoring per seat, the target, starting positions, the role draw."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import action, stacked_deck
from test_hand_properties import random_step

from gin3_env.engine.cards import parse_card
from gin3_env.engine.hand import BOX, TEAM
from gin3_env.engine.match import MatchState, Roles, draw_roles
from gin3_env.engine.rules import Rules

JUNK = "2H 4H 6H 8H TH 3S 5S 7S JD KD"
STRONG = "AC 2C 3C 4D 5D 6D 9H 9S KS QH"  # + 9D: knock with 10 against JUNK's 65 -> 55
# The captain takes the 9D and knocks: the team scores 55.
TEAM_WINS = (stacked_deck(STRONG, JUNK, "9D"), ["take", "knock KS"])
# The captain passes, the box takes the 9D and knocks: the box scores 55.
BOX_WINS = (stacked_deck(JUNK.replace("KD", "KC"), STRONG.replace("KS", "KD"), "9D"),
            ["pass", "take", "knock QH"])
# The captain knocks with 8, the box has 5: undercut, the box scores 13.
UNDERCUT = (stacked_deck("7C 7D 7H 3S 4S 5S 9H TH JH QD", "AD 2D 3D 4D 5D KC KD KS 2H 3H", "8C"),
            ["take", "knock QD"])


def dead_moves(state: MatchState) -> None:
    """Pass, pass, then draw and discard the drawn card until the hand dies."""
    state.apply(action("pass"))
    state.apply(action("pass"))
    while True:
        drawn = state.hand.stock[-1]
        state.apply(action("draw"))
        if state.apply(3 + drawn) is not None:
            return


def play_moves(state: MatchState, moves: list[str]) -> Any:
    result = None
    for i, move in enumerate(moves):
        result = state.apply(action(move))
        assert (result is None) == (i < len(moves) - 1)
    return result


ROLES = Roles(box=0, captain=1, sitter=2)


def test_team_win_rotates_box_out() -> None:
    deck, moves = TEAM_WINS
    m = MatchState.start(roles=ROLES, decks=[deck, deck])
    assert m.acting_seat == 1
    result = play_moves(m, moves)
    assert result.winner == TEAM and result.points == 55
    assert m.scores == [0, 55, 0]
    # Box loses: box sits out, captain -> box, sitter -> captain.
    assert m.roles == Roles(box=1, captain=2, sitter=0)
    assert m.history[-1]["seat_points"] == [0, 55, 0]
    assert m.history[-1]["roles"] == ROLES.to_dict()
    assert list(m.hand.deck) == deck and m.hand.actions == [] and m.acting_seat == 2


def test_box_win_keeps_the_box_and_swaps_the_others() -> None:
    deck, moves = BOX_WINS
    m = MatchState.start(roles=ROLES, decks=[deck])
    assert m.acting_seat == 1
    m.apply(action("pass"))
    assert m.acting_seat == 0
    result = play_moves(m, moves[1:])
    assert result.winner == BOX and result.points == 55
    assert m.scores == [55, 0, 0]
    assert m.roles == Roles(box=0, captain=2, sitter=1)


def test_undercut_by_the_box_is_a_box_win() -> None:
    deck, moves = UNDERCUT
    m = MatchState.start(roles=Roles(box=2, captain=0, sitter=1), decks=[deck])
    result = play_moves(m, moves)
    assert (result.outcome, result.knocker, result.winner, result.points) == ("undercut", TEAM, BOX, 13)
    assert m.scores == [0, 0, 13]
    assert m.roles == Roles(box=2, captain=1, sitter=0)


def test_dead_hand_keeps_the_roles_and_the_same_box_deals() -> None:
    deck, _ = TEAM_WINS
    m = MatchState.start(roles=ROLES, scores=[3, 4, 5], decks=[deck, deck])
    dead_moves(m)
    assert m.history[-1]["result"]["outcome"] == "dead"
    assert m.roles == ROLES and m.scores == [3, 4, 5]
    assert m.history[-1]["seat_points"] == [0, 0, 0]
    assert list(m.hand.deck) == deck and not m.hand.is_over and m.acting_seat == ROLES.captain


def test_truncated_hand_keeps_the_roles() -> None:
    deck, _ = TEAM_WINS
    m = MatchState.start(Rules(max_turns=2), roles=ROLES, decks=[deck])
    for move in ["pass", "pass", "draw", "AC", "draw"]:
        m.apply(action(move))
    drawn = next(c for c in m.hand.hand_cards(BOX) if c not in [parse_card(x) for x in JUNK.split()])
    result = m.apply(3 + drawn)
    assert result.outcome == "truncated"
    assert m.roles == ROLES and m.scores == [0, 0, 0]


@pytest.mark.parametrize("sitter_score", [0, 99])
def test_the_sitter_never_scores(sitter_score: int) -> None:
    for (deck, moves), roles in [(TEAM_WINS, ROLES), (BOX_WINS, Roles(1, 2, 0)), (UNDERCUT, Roles(2, 0, 1))]:
        scores = [0, 0, 0]
        scores[roles.sitter] = sitter_score
        m = MatchState.start(roles=roles, scores=scores, decks=[deck])
        play_moves(m, moves)
        assert m.scores[roles.sitter] == sitter_score
        assert m.history[-1]["seat_points"][roles.sitter] == 0
        assert not m.is_over  # 99 + nothing is still short of 100


def test_reaching_the_target_ends_the_match() -> None:
    deck, moves = TEAM_WINS
    m = MatchState.start(roles=ROLES, scores=[99, 45, 0], decks=[deck])
    play_moves(m, moves)
    assert m.scores == [99, 100, 0] and m.winner == 1 and m.is_over
    assert m.acting_seat is None and m.hand.is_over
    with pytest.raises(ValueError, match="over"):
        m.apply(action("draw"))
    assert m.log()["winner"] == 1 and len(m.log()["hands"]) == 1


def test_box_reaching_the_target_wins() -> None:
    deck, moves = BOX_WINS
    m = MatchState.start(roles=ROLES, scores=[50, 90, 90], decks=[deck])
    play_moves(m, moves)
    assert m.winner == 0 and m.scores == [105, 90, 90]


def test_target_score_option() -> None:
    deck, moves = TEAM_WINS
    m = MatchState.start(Rules(target_score=150), roles=ROLES, scores=[0, 90, 0], decks=[deck, deck])
    play_moves(m, moves)
    assert m.scores == [0, 145, 0] and not m.is_over
    m = MatchState.start(Rules(target_score=56), roles=ROLES, decks=[deck])
    play_moves(m, moves)
    assert m.winner is None and m.scores == [0, 55, 0]
    m = MatchState.start(Rules(target_score=55), roles=ROLES, decks=[deck])
    play_moves(m, moves)
    assert m.winner == 1


def test_start_from_roles_dict_scores_and_decks() -> None:
    deck1, moves1 = TEAM_WINS
    deck2, _ = BOX_WINS
    m = MatchState.start(roles={"box": 2, "captain": 0, "sitter": 1}, scores=[1, 2, 3], decks=[deck1, deck2])
    assert m.roles == Roles(box=2, captain=0, sitter=1) and m.scores == [1, 2, 3]
    assert list(m.hand.deck) == deck1
    play_moves(m, moves1)
    assert list(m.hand.deck) == deck2 and m.scores == [56, 2, 3]
    assert m.roles == Roles(box=0, captain=1, sitter=2)


@pytest.mark.parametrize(
    "roles",
    [{"box": 0, "captain": 0, "sitter": 1}, {"box": 0, "captain": 1}, {"box": 0, "captain": 1, "sitter": 3},
     {"box": True, "captain": 1, "sitter": 2}, {"box": "0", "captain": 1, "sitter": 2}, [0, 1, 2]],
)
def test_bad_roles_are_refused(roles: Any) -> None:
    with pytest.raises(ValueError, match="roles"):
        MatchState.start(roles=roles)


def test_roles_need_one_seat_each() -> None:
    with pytest.raises(ValueError, match="one role each"):
        Roles(0, 0, 1)
    with pytest.raises(ValueError, match="one role each"):
        Roles(0, 1, 3)
    with pytest.raises(ValueError, match="sitter must be a seat"):
        Roles(0, 1, 2.0)  # type: ignore[arg-type]
    assert Roles(np.int64(2), 0, 1).box == 2 and type(Roles(np.int64(2), 0, 1).box) is int


@pytest.mark.parametrize(
    ("scores", "match"),
    [([0, 0], "three"), ([0, 0, 0, 0], "three"), ([0, -1, 0], ">= 0"), ([0, 1.5, 0], "ints"),
     ([True, 0, 0], "ints"), ([0, 100, 0], "target"), ([0, 0, 250], "target")],
)
def test_bad_scores_are_refused(scores: list[Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        MatchState.start(roles=ROLES, scores=scores)


def test_bad_decks_are_refused() -> None:
    good = list(range(52))
    with pytest.raises(ValueError, match="repeats card AC"):
        MatchState.start(roles=ROLES, decks=[[0, *good[:51]]])
    with pytest.raises(ValueError, match="got 51"):
        MatchState.start(roles=ROLES, decks=[good[:51]])
    with pytest.raises(ValueError, match=r"not a card 0\.\.51: 52"):
        MatchState.start(roles=ROLES, decks=[[*good[:51], 52]])
    with pytest.raises(ValueError, match="repeats"):
        MatchState.start(roles=ROLES, decks=[good, [*good[:51], 0]])  # a later deck too


def test_start_is_reproducible_from_a_seed() -> None:
    a = MatchState.start(rng=np.random.default_rng(7))
    b = MatchState.start(rng=np.random.default_rng(7))
    assert a.roles == b.roles and a.hand.deck == b.hand.deck
    roles, _ = draw_roles(np.random.default_rng(7))
    assert a.roles == roles


# ------------------------------------------------------------ role draw
class FakeRng:
    """Hands out prescribed card draws and records how many cards each draw asked for."""

    def __init__(self, *draws: str) -> None:
        self.draws = [[parse_card(x) for x in d.split()] for d in draws]
        self.sizes: list[int] = []

    def choice(self, n: int, size: int, replace: bool) -> np.ndarray:
        assert n == 52 and not replace
        self.sizes.append(size)
        cards = self.draws.pop(0)
        assert len(cards) == size
        return np.array(cards)


def test_draw_roles_highest_box_middle_captain_lowest_sitter() -> None:
    rng = FakeRng("5C KD 9H")
    roles, draws = draw_roles(rng)  # type: ignore[arg-type]
    assert roles == Roles(box=1, captain=2, sitter=0) and rng.sizes == [3]
    assert draws == [[0, parse_card("5C"), 1, parse_card("KD"), 2, parse_card("9H")]]


def test_draw_roles_only_the_tied_redraw() -> None:
    rng = FakeRng("5C 5D 9H", "KS 2C")  # seats 0 and 1 tie below seat 2 (suits do not rank)
    roles, _ = draw_roles(rng)  # type: ignore[arg-type]
    assert roles == Roles(box=2, captain=0, sitter=1) and rng.sizes == [3, 2]
    rng = FakeRng("KC KD 2C", "3C 9C")  # seats 0 and 1 tie for the box
    roles, _ = draw_roles(rng)  # type: ignore[arg-type]
    assert roles == Roles(box=1, captain=0, sitter=2) and rng.sizes == [3, 2]
    rng = FakeRng("7C 7D 7H", "AC KC 5D")  # all tie: all redraw
    roles, _ = draw_roles(rng)  # type: ignore[arg-type]
    assert roles == Roles(box=1, captain=2, sitter=0) and rng.sizes == [3, 3]
    rng = FakeRng("4C 4D 4H", "QC QD JC", "2S 3S")  # tie, then a tie again
    roles, _ = draw_roles(rng)  # type: ignore[arg-type]
    assert roles == Roles(box=1, captain=0, sitter=2) and rng.sizes == [3, 3, 2]


def test_draw_roles_seeded_is_valid_and_consistent_with_the_draws() -> None:
    boxes = set()
    for seed in range(60):
        roles, draws = draw_roles(np.random.default_rng(seed))
        assert sorted((roles.box, roles.captain, roles.sitter)) == [0, 1, 2]
        boxes.add(roles.box)
        first = dict(zip(draws[0][::2], [c % 13 for c in draws[0][1::2]], strict=True))
        assert first[roles.box] >= first[roles.captain] >= first[roles.sitter]
    assert boxes == {0, 1, 2}


# -------------------------------------------------------- whole matches
def expected_roles(roles: dict[str, int], winner: str | None) -> dict[str, int]:
    """§7 written out independently of Roles.after."""
    if winner is None:
        return roles
    if winner == "box":
        return {"box": roles["box"], "captain": roles["sitter"], "sitter": roles["captain"]}
    return {"box": roles["captain"], "captain": roles["sitter"], "sitter": roles["box"]}


@pytest.mark.parametrize("seed", range(6))
def test_random_matches_follow_the_rules(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = MatchState.start(Rules(target_score=60), rng=np.random.default_rng(1000 + seed))
    hands = 0
    while not m.is_over:
        m.apply(random_step(m.hand, rng, "greedy"))
        hands = len(m.history)
        assert hands < 200
    totals = [0, 0, 0]
    for i, entry in enumerate(m.history):
        roles, result = entry["roles"], entry["result"]
        sitter = roles["sitter"]
        assert entry["seat_points"][sitter] == 0
        if result["winner"] is not None:
            scorer = roles["captain"] if result["winner"] == "team" else roles["box"]
            assert entry["seat_points"][scorer] == result["points"] > 0
        assert sum(entry["seat_points"]) == result["points"]
        totals = [t + p for t, p in zip(totals, entry["seat_points"], strict=True)]
        assert entry["scores"] == totals
        if i + 1 < len(m.history):
            assert m.history[i + 1]["roles"] == expected_roles(roles, result["winner"])
    assert totals == m.scores
    assert m.scores[m.winner] >= 60 and sum(s >= 60 for s in m.scores) == 1
    assert m.roles.to_dict() == expected_roles(m.history[-1]["roles"], m.history[-1]["result"]["winner"])
