"""The text table, the showdown section and the move list (gin3_env.render)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import deal, play

from gin3_env.engine.actions import DRAW_STOCK, TAKE_DISCARD, discard_action, knock_action
from gin3_env.engine.cards import card_str, cards_of, parse_card
from gin3_env.engine.hand import BOX, TEAM, HandState
from gin3_env.engine.match import Roles
from gin3_env.engine.phases import Phase
from gin3_env.engine.result import HandResult
from gin3_env.render import (
    RED,
    describe_action,
    fmt_hand,
    render_moves,
    render_result,
    render_table,
    says,
)

TEAM_MELDS = "AC 2C 3C 7D 7H 7S 9H TH JH"
BOX_JUNK = "8H 7C 4C KC QD 5S 2D 6H KS 9C"


def knock_hand() -> HandState:
    """Team takes the upcard 5D and knocks discarding 4D (deadwood 5); the box lays off 4C, 7C, 8H."""
    state = deal(f"{TEAM_MELDS} 4D", "8H 7C 4C KC QD 5S 2D 6H KS 9C", "5D")
    return play(state, "take", "knock 4D")


def test_hand_sorted_with_melds_grouped_and_deadwood() -> None:
    state = deal("JH 4D 7S 9H AC 7D 2C TH 3C 7H", "8H 7C 4C KC QD 5S 2D 6H KS 9C", "5D")
    assert fmt_hand(state.hands[TEAM], symbols=False) == "[AC 2C 3C] [7D 7H 7S] [9H TH JH] 4D"
    text = render_table(state, TEAM)
    assert "Team hand: [A♣ 2♣ 3♣] [7♦ 7♥ 7♠] [9♥ T♥ J♥] 4♦  deadwood 4" in text
    assert "Discard pile: 5♦ on top (1 card)   Stock: 31 cards" in text
    assert "Opening - Team may take the upcard 5♦ or pass" in text
    # deadwood cards come after the melds, by suit then rank
    box = render_table(state, BOX, symbols=False)
    assert "Box hand: 4C 7C 9C KC 2D QD 6H 8H 5S KS  deadwood 71" in box


def test_discard_phase_shows_best_discard_and_taken_card() -> None:
    state = play(deal(f"{TEAM_MELDS} 4D", "8H 7C 4C KC QD 5S 2D 6H KS 9C", "5D"), "take")
    text = render_table(state, TEAM, symbols=False)
    assert "deadwood 9 (best discard leaves 4: can knock)" in text
    assert "(Team took 5D and may not discard it this turn)" in text
    assert "Turn 1 - Team to discard or knock" in text


@pytest.mark.parametrize("viewer", [TEAM, BOX])
def test_hidden_hand_is_not_leaked(viewer: int) -> None:
    rng = np.random.default_rng(7)
    state = HandState.deal(rng=rng)
    # play a few turns where both sides take discards, so some cards become known
    for _ in range(12):
        legal = state.legal_actions()
        if TAKE_DISCARD in legal and rng.random() < 0.5:
            state.apply(TAKE_DISCARD)
        elif DRAW_STOCK in legal:
            state.apply(DRAW_STOCK)
        elif state.phase is Phase.DISCARD:
            state.apply(next(a for a in legal if a < 55))
        else:
            state.apply(legal[-1])
    other = 1 - viewer
    text = render_table(state, viewer)
    ascii_text = render_table(state, viewer, symbols=False)
    hidden = [c for c in cards_of(state.hands[other]) if not state.known[other] >> c & 1]
    assert hidden
    for c in hidden:
        assert card_str(c, True) not in text
        assert card_str(c) not in ascii_text
    for c in cards_of(state.hands[viewer]):
        assert card_str(c, True) in text
    for c in cards_of(state.known[other]):
        assert card_str(c, True) in text
    assert f"{len(cards_of(state.hands[other]))} cards (hidden)" in text
    # with viewer None both hands are shown
    both = render_table(state, None)
    for c in cards_of(state.hands[0] | state.hands[1]):
        assert card_str(c, True) in both


def test_knock_showdown_exact_text() -> None:
    state = knock_hand()
    assert state.result is not None
    expected = "\n".join(
        [
            "== Showdown ==",
            "Team knocks, discarding 4D.",
            "Team spreads: [AC 2C 3C] [7D 7H 7S] [9H TH JH]; deadwood 5D = 5",
            "Box spreads: no melds; deadwood 9C KC 2D QD 6H 5S KS = 52",
            "Box lays off: 4C on [AC 2C 3C], 7C on [7D 7H 7S], 8H on [9H TH JH]",
            "Deadwood: Team 5, Box 52",
            "Result: knock: Team scores 52 - 5 = 47",
        ]
    )
    assert render_result(state.result, symbols=False) == expected
    table = render_table(state, TEAM, symbols=False)
    assert table.endswith(expected)
    assert "Hand over after 1 turn --" in table
    assert "Box: 10 cards (spread below)" in table


def test_gin_showdown() -> None:
    state = deal(f"{TEAM_MELDS} QS", "8H 7C 4C KC QD 5S 2D 6H KS 9C", "QH")
    play(state, "take", "knock QS")
    assert state.result is not None
    text = render_result(state.result, symbols=False)
    assert "Team goes gin, discarding QS." in text
    assert "Team spreads: [AC 2C 3C] [7D 7H 7S] [9H TH JH QH]; deadwood none = 0" in text
    assert "Box may not lay off on a gin hand." in text
    assert "Result: gin: Team scores 25 (gin bonus) + 71 (Box's deadwood) = 96" in text


def test_undercut_showdown_with_roles() -> None:
    state = deal(f"{TEAM_MELDS} 8S", "2D 3D 4D 8C 8D 8H JS QS KS AS", "QC")
    play(state, "take", "knock 8S")
    result = state.result
    assert result is not None and result.outcome == "undercut"
    roles = Roles(box=2, captain=0, sitter=1)
    text = render_result(result, symbols=False, roles=roles)
    assert "Team (captain, seat 0) spreads: [AC 2C 3C] [7D 7H 7S] [9H TH JH]; deadwood QC = 10" in text
    assert "Box (seat 2) spreads: [8C 8D 8H] [2D 3D 4D] [JS QS KS]; deadwood AS = 1" in text
    assert "Box lays off nothing." in text
    assert "Result: undercut (Box's 1 <= Team's 10): Box scores 10 (undercut bonus) + (10 - 1) = 19" in text


def test_dead_and_truncated_results() -> None:
    assert "Dead hand" in render_result(HandResult("dead"))
    assert "No score" in render_result(HandResult("truncated"))
    with pytest.raises(ValueError, match="knocker"):
        render_result(HandResult("knock"))


def test_scores_roles_and_names() -> None:
    state = deal(f"{TEAM_MELDS} 4D", "8H 7C 4C KC QD 5S 2D 6H KS 9C", "5D")
    roles = Roles(box=1, captain=0, sitter=2)
    text = render_table(
        state,
        TEAM,
        roles=roles,
        scores=[12, 30, 5],
        names=("You (captain)", "Player 1 (box)"),
        seat_names=["You", "Player 1", "Player 2"],
    )
    assert "Scores: You (captain) 12 | Player 1 (box) 30 | Player 2 (sitter) 5" in text
    assert "Your hand: [A♣ 2♣ 3♣]" in text
    assert "Player 1 (box): 10 cards (hidden)" in text
    with pytest.raises(ValueError, match="viewer"):
        render_table(state, 2)


def test_color_only_when_asked() -> None:
    state = deal(f"{TEAM_MELDS} 4D", "8H 7C 4C KC QD 5S 2D 6H KS 9C", "5D")
    plain = render_table(state, None)
    assert "\x1b" not in plain
    colored = render_table(state, None, color=True)
    assert f"{RED}7♥" in colored and f"{RED}5♦" in colored
    assert f"{RED}7♠" not in colored and "7♠" in colored


def test_move_list() -> None:
    state = deal(f"{TEAM_MELDS} 4D", "8H 7C 4C KC QD 5S 2D 6H KS 9C", "5D")
    assert render_moves(state) == "[1] take 5D (the upcard)\n[2] pass"
    play(state, "take")
    moves = render_moves(state).splitlines()
    assert "[4] discard 4D (deadwood 5)" in moves  # numbered 1..k in action-id order, not by id
    assert "[11] knock, discard 4D (deadwood 5)" in moves
    assert len(moves) == len(state.legal_actions())
    assert not any("5D" in m for m in moves)  # the card just taken
    columns = render_moves(state, columns=3).splitlines()
    assert len(columns) == -(-len(moves) // 3)
    assert columns[0].startswith("[1] discard AC (deadwood 14)")


def test_describe_action() -> None:
    state = deal(f"{TEAM_MELDS} 4D", "8H 7C 4C KC QD 5S 2D 6H KS 9C", "5D", stock="6C")
    assert describe_action(state, 2, "You") == "You pass on the upcard 5D"
    play(state, "pass", "pass")
    assert describe_action(state, DRAW_STOCK, "Team") == "Team draws from the stock"
    assert describe_action(state, DRAW_STOCK, "Team", reveal=True) == "Team draws 6C from the stock"
    play(state, "draw")
    assert describe_action(state, discard_action(parse_card("7D")), "Box") == "Box discards 7D"
    assert (
        describe_action(state, knock_action(parse_card("4D")), "You (captain)") == "You (captain) knock, discarding 4D"
    )


def test_second_person_texts() -> None:
    assert says("You", "goes gin") == "You go gin"
    assert says("You (box)", "sits out") == "You (box) sit out"
    assert says("Box", "lays off") == "Box lays off"
    state = play(deal(f"{TEAM_MELDS} QS", BOX_JUNK, "QH"), "take", "knock QS")
    assert state.result is not None
    text = render_result(state.result, symbols=False, names=("You", "Box"))
    assert "You go gin, discarding QS." in text
    assert "You spread: [AC 2C 3C]" in text
    assert "Result: gin: You score 25 (gin bonus) + 71 (Box's deadwood) = 96" in text
    state = play(deal(f"{TEAM_MELDS} 8S", "2D 3D 4D 8C 8D 8H JS QS KS AS", "QC"), "take", "knock 8S")
    assert state.result is not None
    text = render_result(state.result, symbols=False, names=("Team", "You"))
    assert "Result: undercut (your 1 <= Team's 10): You score 10 (undercut bonus) + (10 - 1) = 19" in text
