"""The play loop without a terminal: move parsing, one hand, a match, replays, saved logs."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from conftest import deal, play

from gin3_env.engine.actions import DRAW_STOCK, PASS, TAKE_DISCARD, discard_action, knock_action
from gin3_env.engine.cards import parse_card
from gin3_env.engine.hand import BOX, TEAM, HandState
from gin3_env.engine.hand import replay_hand as replay
from gin3_env.engine.match import MatchState, Roles
from gin3_env.engine.melds import knock_deadwoods
from gin3_env.engine.rules import Rules
from gin3_env.files import save_json
from gin3_env.observation import encode
from gin3_env.play import Console, Quit, play_hand, play_match
from gin3_env.play.moves import parse_move
from gin3_env.play.replay import load_log, replay_log

TEAM_MELDS = "AC 2C 3C 7D 7H 7S 9H TH JH"
BOX_JUNK = "8H 7C 4C KC QD 5S 2D 6H KS 9C"


class Greedy:
    """Test double: draws from the stock, knocks when it can, else discards to the least deadwood."""

    def act(self, observation: dict[str, Any]) -> int:
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        if DRAW_STOCK in legal:
            return DRAW_STOCK
        if PASS in legal:
            return PASS
        knocks = [a for a in legal if a >= knock_action(0)]
        if knocks:
            return knocks[0]
        hand = [int(c) for c in np.flatnonzero(observation["observation"][:52])]
        left = knock_deadwoods(hand)
        return min(legal, key=lambda a: left[a - discard_action(0)])


class FirstLegal:
    """Test double: the lowest legal action (draws from the stock, discards the lowest card)."""

    def act(self, observation: dict[str, Any]) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


def scripted(answers: Callable[[list[str], str], str] | list[str]) -> tuple[Console, list[str]]:
    """A console whose input comes from a list (EOF after it) or a function of (output so far, prompt)."""
    out: list[str] = []
    it: Iterator[str] | None = iter(answers) if isinstance(answers, list) else None

    def read(prompt: str) -> str:
        if it is not None:
            try:
                line = next(it)
            except StopIteration:
                raise EOFError from None
        else:
            assert callable(answers)
            line = answers(out, prompt)
        out.append(prompt + line)
        return line

    return Console(input_fn=read, print_fn=out.append, symbols=False), out


# ---------------------------------------------------------------- parse_move
def test_parse_words_numbers_and_shortcuts() -> None:
    state = deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D")
    assert parse_move("take", state) == TAKE_DISCARD
    assert parse_move(" T ", state) == TAKE_DISCARD
    assert parse_move("p", state) == PASS
    assert parse_move("2", state) == PASS
    play(state, "take")
    assert parse_move("4d", state) == discard_action(parse_card("4D"))
    assert parse_move("discard 7♠", state) == discard_action(parse_card("7S"))
    assert parse_move("10h", state) == discard_action(parse_card("TH"))
    assert parse_move("knock 4D", state) == knock_action(parse_card("4D"))
    assert parse_move("k 4d", state) == knock_action(parse_card("4D"))
    # numbers are the list's 1..k (the legal moves in id order), not action ids
    assert parse_move("1", state) == discard_action(parse_card("AC"))
    assert parse_move("11", state) == knock_action(parse_card("4D"))


@pytest.mark.parametrize(
    ("moves", "text", "message"),
    [
        ((), "8H", "you cannot discard now: in the opening you take the upcard or pass"),
        ((), "draw", "you cannot draw now: in the opening you take the upcard or pass"),
        ((), "99", "99 is not one of the listed moves"),
        ((), "hello there", "I don't understand 'hello there'"),
        (("take",), "8H", "8H is not in your hand"),
        (("take",), "5D", "you cannot discard the card you just took (5D)"),
        (("take",), "knock 7S", "knock needs deadwood <= 10: discarding 7S leaves 23"),
        (("take",), "knock", "say which card to discard, e.g. knock 4D (you can knock with 4D)"),
        (("take",), "take", "you cannot take now: you hold 11 cards, discard one or knock"),
        (("take",), "ZZ", "'ZZ' is not a card"),
        (("pass", "pass"), "take", "both passed on the upcard, so draw from the stock"),
        (("pass", "pass"), "pass", "you can pass only on the upcard in the opening"),
        (("pass", "pass"), "4D", "you cannot discard yet: draw or take a card first"),
        (("pass", "pass", "draw"), "knock", "e.g. knock 4D (you can knock with 4D KH)"),
        (("pass", "pass", "draw", "KH", "draw"), "knock", "knock needs deadwood <= 10: your best discard leaves"),
        (("take",), "discard", "say which card to discard, e.g. discard 7S"),
        ((), "", "type a move"),
    ],
)
def test_parse_errors_say_what_is_wrong(moves: tuple[str, ...], text: str, message: str) -> None:
    state = deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D", stock="KH")
    play(state, *moves)
    before = state.log()
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_move(text, state)
    assert state.log() == before


# ------------------------------------------------------------------- one hand
def test_play_hand_knock_shows_showdown() -> None:
    state = deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D")
    io, out = scripted(["take", "8h", "5d", "knock 4d"])
    result = play_hand(io, state, TEAM, FirstLegal())
    assert (result.outcome, result.winner, result.points) == ("knock", TEAM, 47)
    text = "\n".join(out)
    assert "Sorry: 8H is not in your hand." in text
    assert "Sorry: you cannot discard the card you just took (5D)." in text
    assert "You take 5D from the discard pile" in text
    assert "You knock, discarding 4D" in text
    assert "Result: knock: You score 52 - 5 = 47" in text
    # a bad entry is one line of refusal: the list of moves is not shown again
    assert text.count("[11] knock, discard 4D (deadwood 5)") == 1


def test_play_hand_as_box_against_policy_and_opponent_moves_shown() -> None:
    state = deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D", stock="KH QH")

    def person(out: list[str], prompt: str) -> str:
        last = "\n".join(out[-30:])
        if "[1] draw" in last or "[2] pass" in last:
            return "1" if "[1] draw" in last else "2"
        return re.findall(r"\[(\d+)\] discard", last)[-1]

    io, out = scripted(person)
    # FirstLegal as the team takes the upcard (action 1) and discards AC (lowest)
    result = play_hand(io, state, BOX, FirstLegal())
    text = "\n".join(out)
    assert "Team takes 5D from the discard pile" in text
    assert "Team discards AC" in text
    assert "Your hand:" in text and "Team: 10 cards (hidden), holds 5D (taken from the pile)" in text
    assert result.outcome in ("knock", "gin", "undercut", "dead", "truncated")
    assert "== Showdown ==" in text


def test_quit_and_eof_raise_quit() -> None:
    for answers in (["quit"], []):
        io, _ = scripted(answers)
        with pytest.raises(Quit):
            play_hand(io, HandState.deal(rng=np.random.default_rng(0)), TEAM, FirstLegal())


def test_help_and_enter_repeat_without_moving() -> None:
    state = deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D")
    io, out = scripted(["help", "", "quit"])
    with pytest.raises(Quit):
        play_hand(io, state, TEAM, FirstLegal())
    text = "\n".join(out)
    assert "knock 7S (k 7S)" in text
    assert text.count("Opening - You may take the upcard 5D or pass") == 2
    assert state.actions == []


# --------------------------------------------------------------------- match
def match_person(out: list[str], prompt: str) -> str:
    """Scripted person: s when sitting out, Enter at pauses, draw, then knock or the first discard."""
    if "watch move by move" in prompt:
        return "s"
    if "[Enter]" in prompt:
        return ""
    moves = "\n".join(out[-25:]).rsplit("Your move", 1)[1]
    if "[1] draw" in moves:
        return "draw"
    if "[2] pass" in moves:
        return "pass"
    knocks = re.findall(r"\[(\d+)\] knock", moves)
    if knocks:
        return knocks[0]
    return re.findall(r"\[(\d+)\] discard", moves)[0]


@pytest.mark.parametrize("role", ["captain", "box", "sitter"])
def test_play_match_to_the_end(role: str) -> None:
    roles = {
        "captain": Roles(box=1, captain=0, sitter=2),
        "box": Roles(box=0, captain=1, sitter=2),
        "sitter": Roles(box=1, captain=2, sitter=0),
    }[role]
    match = MatchState.start(Rules(target_score=10), rng=np.random.default_rng(3), roles=roles)
    io, out = scripted(match_person)
    play_match(io, match, 0, {1: Greedy(), 2: Greedy()}, seat_names=["You", "Player 1", "Player 2"])
    text = "\n".join(out)
    assert match.is_over and max(match.scores) >= 10
    assert "Match over:" in text
    assert "=== Hand 1:" in text
    if role == "sitter":
        assert "You are the sitter this hand" in text
    log = match.log()
    assert log["winner"] == match.winner
    for entry in log["hands"]:
        assert replay(entry["log"]).result is not None


# ---------------------------------------------------------- logs and replays
def test_save_json_is_atomic_and_replaces(tmp_path: Any) -> None:
    path = tmp_path / "hand.json"
    save_json(path, {"a": 1})
    save_json(path, {"a": 2})
    assert json.loads(path.read_text()) == {"a": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["hand.json"]
    with pytest.raises(TypeError):
        save_json(path, {"bad": object()})
    assert json.loads(path.read_text()) == {"a": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["hand.json"]


def test_replay_hand_log_all_and_stepwise(tmp_path: Any) -> None:
    state = play(deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D", stock="KH"), "pass", "pass", "draw", "KH")
    play(state, "draw", "4c", "take", "knock 4D")
    path = tmp_path / "log.json"
    save_json(path, state.log())
    io, out = scripted([])
    replay_log(io, load_log(path), step=False)
    text = "\n".join(out)
    assert "#3: Team draws KH from the stock" in text
    assert "#7: Team takes 4C from the discard pile" in text
    assert "#8: Team goes gin, discarding 4D" in text  # worded as the showdown words it
    assert "Box hand:" in text and "Team hand:" in text
    assert text.rstrip().endswith("Result: gin: Team scores 25 (gin bonus) + 72 (Box's deadwood) = 97")
    io, out = scripted(["", "", "q"])
    with pytest.raises(Quit):
        replay_log(io, load_log(path), step=True)
    joined = "\n".join(out)
    assert "#2:" in joined and "#3:" not in joined


def test_replay_match_log(tmp_path: Any) -> None:
    match = MatchState.start(Rules(target_score=10), rng=np.random.default_rng(5), roles=Roles(0, 1, 2))
    policy = Greedy()
    while not match.is_over:
        seat = match.acting_seat
        assert seat is not None
        player = match.hand.player
        view = match.hand.view(player)
        match.apply(policy.act({"observation": encode(view), "action_mask": match.hand.legal_mask()}))
    path = tmp_path / "match.json"
    save_json(path, match.log())
    io, out = scripted([])
    replay_log(io, load_log(path), step=False)
    text = "\n".join(out)
    assert "=== Hand 1: Seat 0 in the box, Seat 1 captain, Seat 2 sitter ===" in text
    assert f"Match over: Seat {match.winner} wins with {match.scores[match.winner]} points." in text


def test_load_log_refuses_other_files(tmp_path: Any) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    with pytest.raises(ValueError, match="neither a hand log"):
        load_log(bad)
    bad.write_text("not json")
    with pytest.raises(ValueError, match="cannot read"):
        load_log(bad)
    with pytest.raises(ValueError, match="no such file"):
        load_log(tmp_path / "missing.json")


# ------------------------------------------------------------------ what gin3 play says
def test_play_names_your_draw_uses_one_card_style_and_shows_the_knock_discard() -> None:
    state = deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D", stock="KH QH")
    io, out = scripted(["pass", "draw", "KH", "quit"])
    with pytest.raises(Quit):
        play_hand(io, state, TEAM, Greedy())
    text = "\n".join(out)
    assert "You draw KH from the stock" in text  # your own draw names the card

    state = deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D")
    out = []
    answers = iter(["take", "knock 4d"])
    io = Console(input_fn=lambda prompt: next(answers), print_fn=out.append, symbols=True)
    play_hand(io, state, TEAM, FirstLegal())
    text = "\n".join(out)
    assert "You take 5♦ from the discard pile" in text and "You knock, discarding 4♦" in text
    assert "5D" not in text and "4D" not in text  # the log lines write cards as the table does
    final_table = text.rsplit("-- Hand over", 1)[1]
    assert "Discard pile: 4♦ on top, the knock's discard" in final_table


def test_you_sit_out_and_the_role_draw_says_ties_and_cards() -> None:
    from gin3_env.play.commands import role_draw_text
    from gin3_env.play.console import _roles_text

    names = ["You", "Player 1", "Player 2"]
    assert _roles_text(Roles(box=1, captain=2, sitter=0), names).endswith("You sitter")
    # seats 0 and 2 tie on aces and draw again; seat 1's jack made it the box
    c = parse_card
    draws = [[0, c("AH"), 1, c("JD"), 2, c("AS")], [0, c("8C"), 2, c("4S")]]
    lines = role_draw_text(Roles(box=1, captain=0, sitter=2), draws, names, symbols=False)
    assert lines[0].startswith("Draw for roles (highest rank is the box")
    assert lines[0].endswith("You AH, Player 1 JD, Player 2 AS")
    assert lines[1] == "Tie: You and Player 2 draw again: You 8C, Player 2 4S"
    assert lines[2] == "So Player 1 (JD) in the box, You (8C) captain, Player 2 (4S) sitter."
    lines = role_draw_text(Roles(box=1, captain=2, sitter=0), draws[:1], names, symbols=False)
    assert lines[-1].endswith("You (AH) sitter.")


def test_the_only_legal_move_is_played_without_asking() -> None:
    state = play(deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "QH", stock="5C"), "pass", "pass")
    assert state.legal_actions() == [DRAW_STOCK]
    io, out = scripted(["knock 5c"])
    play_hand(io, state, TEAM, Greedy())
    text = "\n".join(out)
    assert "Your only legal move, played for you: draw from the stock." in text
    asked = [line for line in out if line.startswith("> ")]
    assert asked == ["> knock 5c"], asked  # one question: the discard, not the forced draw
    assert state.result is not None and state.result.knock_discard == parse_card("5C")


def test_a_sitter_who_asks_for_the_summary_sees_no_moves() -> None:
    roles = Roles(box=1, captain=2, sitter=0)
    match = MatchState.start(Rules(target_score=10), rng=np.random.default_rng(3), roles=roles)
    io, out = scripted(match_person)
    play_match(io, match, 0, {1: Greedy(), 2: Greedy()}, seat_names=["You", "Player 1", "Player 2"])
    text = "\n".join(out)
    first = text.split("=== Hand 1:", 1)[1].split("Match scores after hand 1:", 1)[0]
    assert "Summary: the hand is played out without its moves" in first
    assert not re.search(r"\b(discards|draws|passes|takes)\b", first), first
    assert "== Showdown ==" in first or "Dead hand" in first or "Truncated" in first


def test_a_typo_is_one_line_and_turn_numbers_count_every_turn() -> None:
    """A move not understood is one line of refusal, then the prompt (not the move menu
    again); the other side's turns carry their numbers, so the numbers the person sees count every turn."""
    state = HandState.deal(rng=np.random.default_rng(1))
    asked: list[str] = []

    def answer(out: list[str], prompt: str) -> str:
        asked.append(prompt)
        if len(asked) > 12:
            raise EOFError
        return "xyz" if len(asked) == 2 else "1"

    io, out = scripted(answer)
    with contextlib.suppress(Quit):
        play_hand(io, state, TEAM, FirstLegal())
    text = "\n".join(out)
    typo = next(i for i, line in enumerate(out) if line.endswith("xyz"))
    assert out[typo + 1].startswith("Sorry: ") and out[typo + 1].endswith("Enter lists them again.")
    assert out[typo + 2].endswith("1"), out[typo:typo + 3]  # the prompt again, no menu between
    numbers = [int(n) for n in re.findall(r"Turn (\d+) - ", text)]
    assert numbers and sorted(set(numbers)) == list(range(1, max(numbers) + 1)), numbers  # no turn skipped
    assert re.search(r"^Turn \d+ - Box draws from the stock", text, re.M), text
