"""A person plays in the terminal: one hand against a policy, or a whole match.

The loops talk to the person only through a :class:`Console` (``input_fn`` and
``print_fn`` are injectable), so tests can drive them without a terminal. The
person types ``quit`` or closes the input (EOF) to leave: :class:`Quit` is raised
and the command line says goodbye and exits with code 0.

Policies act from the same observation dict a learning agent gets, through the
shared driver (:mod:`gin3_env.game.driver`): the hand observation in a
single hand, the match observation in a match, as the environments build them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..engine.actions import DISCARD_BASE, PASS
from ..engine.hand import BOX, TEAM, HandState
from ..engine.match import MatchState, Roles
from ..engine.phases import Phase
from ..engine.result import HandResult
from ..game.driver import run_hand, run_match
from ..game.policy import Policy
from ..render import describe_action, move_label, render_moves, render_table, says
from .moves import HELP, parse_move

PROMPT = "> "


class Quit(Exception):
    """The person asked to leave (``quit``, end of input or Ctrl-C: ``interrupted``)."""

    @property
    def interrupted(self) -> bool:
        """Whether Ctrl-C ended it (the command then exits 130, as the other commands do)."""
        return str(self) == "interrupted"


@dataclass
class Console:
    """The person's terminal: ``input_fn(prompt) -> line`` and ``print_fn(text)``, plus the style."""

    input_fn: Callable[[str], str] = input
    print_fn: Callable[[str], None] = field(default=lambda text: print(text, flush=True))
    symbols: bool = True
    color: bool = False
    echo: bool = False  # print what was read (input piped from a file shows in the transcript)

    def say(self, text: str = "") -> None:
        self.print_fn(text)

    def ask(self, prompt: str = PROMPT) -> str:
        """One line of input; ``quit``/``q``/``exit``, EOF and Ctrl-C raise :class:`Quit`."""
        try:
            line = self.input_fn(prompt)
        except EOFError:
            raise Quit("end of input") from None
        except KeyboardInterrupt:
            raise Quit("interrupted") from None
        if self.echo:
            self.print_fn(line)
        if line.strip().lower() in ("q", "quit", "exit"):
            raise Quit("quit")
        return line

    def pause(self, prompt: str = "[Enter] continue, q quits: ") -> str:
        """Wait for Enter; returns what was typed (lowercased, stripped)."""
        return self.ask(prompt).strip().lower()


def person_turn(
    io: Console,
    state: HandState,
    *,
    roles: Roles | None = None,
    scores: list[int] | None = None,
    names: tuple[str, str],
    seat_names: list[str] | None = None,
) -> int:
    """Show the table from the person's side and read a legal move. A move not understood or not legal is
    one line of refusal, then the prompt again (an empty line shows the table and the moves again; help,
    the help and the moves).

    With only one legal move (drawing from the stock when the discard may not be taken) nothing is
    asked: the table is shown with a line that says the move is played for the person."""
    style = {"symbols": io.symbols, "color": io.color}
    me = state.player
    table = render_table(state, me, roles=roles, scores=scores, names=names, seat_names=seat_names, **style)
    legal = state.legal_actions()
    if len(legal) == 1:
        io.say(table)
        io.say(f"Your only legal move, played for you: {move_label(state, legal[0], symbols=io.symbols)}.")
        return legal[0]
    listed = render_moves(state, symbols=io.symbols, columns=3 if len(state.legal_actions()) > 6 else 1)
    moves = "Your move (a number, or words such as draw, take, pass, 7S, knock 7S; help):\n" + listed
    io.say(table)
    io.say(moves)
    while True:
        line = io.ask()
        word = line.strip().lower()
        if word in ("h", "help", "?"):
            io.say(HELP)
            io.say(moves)
            continue
        if not word:
            io.say(table)
            io.say(moves)
            continue
        try:
            return parse_move(line, state)
        except ValueError as exc:
            io.say(f"Sorry: {exc}. Moves 1 to {len(legal)}; Enter lists them again.")


def turn_numbered(before: HandState, text: str) -> str:
    """``"Turn 2 - Box draws from the stock"``: a move of the other side that starts a turn carries the
    turn's number, as the person's own turns do in the table's heading, so the numbers count every turn."""
    if before.phase is Phase.DRAW:
        return f"Turn {before.turns + 1} - {text}"
    return text


def play_hand(
    io: Console, state: HandState, person: int, policy: Policy, *, names: tuple[str, str] | None = None
) -> HandResult:
    """One hand: the person plays ``person`` (TEAM or BOX), ``policy`` the other side."""
    if person not in (TEAM, BOX):
        raise ValueError(f"person must be 0 (team) or 1 (box), got {person!r}")
    names = names or (("You", "Box") if person == TEAM else ("Team", "You"))
    io.say(f"You play the {'team (as captain)' if person == TEAM else 'box'}. Type help for help.")
    seats: list[Policy | None] = [None, None]
    seats[1 - person] = policy

    def said(before: HandState, action: int) -> None:
        p = before.player
        text = describe_action(before, action, names[p], reveal=p == person, symbols=io.symbols)
        io.say(text if p == person else turn_numbered(before, text))

    while not state.is_over:
        run_hand(state, seats, on_move=said)
        if state.is_over:
            break
        action = person_turn(io, state, names=names)
        said(state, action)
        state.apply(action)
    io.say(render_table(state, person, names=names, symbols=io.symbols, color=io.color))
    assert state.result is not None
    return state.result


# ------------------------------------------------------------------ match
def _hand_names(roles: Roles, seat_names: list[str]) -> tuple[str, str]:
    return (f"{seat_names[roles.captain]} (captain)", f"{seat_names[roles.box]} (box)")


def _roles_text(roles: Roles, seat_names: list[str]) -> str:
    return (
        f"{seat_names[roles.box]} in the box, {seat_names[roles.captain]} captain, {seat_names[roles.sitter]} sitter"
    )


def _ask_sitter_mode(io: Console) -> bool:
    """True to watch move by move, False for a summary."""
    io.say("You are the sitter this hand: the captain plays for your team (you see the captain's cards).")
    answer = io.pause("[Enter] watch move by move, s shows just a summary, q quits: ")
    watching = answer not in ("s", "summary")
    if not watching:
        io.say("Summary: the hand is played out without its moves; its end and the points follow.")
    return watching


def _play_match_hand(
    io: Console,
    match: MatchState,
    person: int,
    seats: list[Policy | None],
    *,
    names: tuple[str, str],
    seat_names: list[str],
) -> HandResult:
    """The match's current hand: the policies of ``seats`` and the person (seat ``person``)."""
    roles, scores, hand = match.hand_roles, list(match.scores), match.hand
    role = roles.role_of(person)
    watching = _ask_sitter_mode(io) if role == "sitter" else True
    played = len(match.history)

    def show(before: MatchState, seat: int, action: int) -> None:
        """Before a move: the captain's table for a watching sitter, the move, a pause (a sitter who
        asked for the summary sees no move)."""
        nonlocal watching
        if role == "sitter" and not watching:
            return
        p = before.hand.player
        if role == "sitter" and watching and p == TEAM:
            style = {"symbols": io.symbols, "color": io.color}
            io.say(render_table(hand, TEAM, roles=roles, scores=scores, names=names, seat_names=seat_names, **style))
        reveal = seat == person or (role == "sitter" and p == TEAM)  # your own draw, or your captain's
        text = describe_action(hand, action, names[p], reveal=reveal, symbols=io.symbols)
        io.say(text if reveal else turn_numbered(hand, text))  # where revealed, a table above gave the turn
        ends_turn = action == PASS or action >= DISCARD_BASE
        if role == "sitter" and watching and ends_turn:
            answer = io.pause("[Enter] next move, s skips to the end, q quits: ")
            watching = answer not in ("s", "skip")
            if not watching:
                io.say("Skipping to the end of the hand.")

    while True:
        ended = run_match(match, seats, max_hands=played + 1, on_move=show)
        if ended:
            return ended[0][1]
        action = person_turn(io, hand, roles=roles, scores=scores, names=names, seat_names=seat_names)
        show(match, person, action)
        result = match.apply(action)
        if result is not None:
            return result


def play_match(
    io: Console, match: MatchState, person: int, policies: dict[int, Policy], *, seat_names: list[str]
) -> None:
    """A whole match: the person holds seat ``person``, ``policies`` the two other seats."""
    number = 0
    while not match.is_over:
        number += 1
        roles = match.hand_roles
        hand = match.hand
        names = _hand_names(roles, seat_names)
        role = roles.role_of(person)
        io.say("")
        io.say(f"=== Hand {number}: {_roles_text(roles, seat_names)} ===")
        seats: list[Policy | None] = [policies.get(seat) for seat in range(3)]
        seats[person] = None
        result = _play_match_hand(io, match, person, seats, names=names, seat_names=seat_names)
        viewer = TEAM if role == "sitter" else (TEAM if role == "captain" else BOX)
        io.say(
            render_table(
                hand,
                viewer,
                roles=roles,
                scores=list(match.scores),
                names=names,
                seat_names=seat_names,
                symbols=io.symbols,
                color=io.color,
            )
        )
        if result.winner is not None:
            winner_seat = roles.seat_of(result.winner)
            io.say(f"{says(seat_names[winner_seat], 'scores')} {result.points}.")
        totals = ", ".join(f"{seat_names[s]} {match.scores[s]}" for s in range(3))
        io.say(f"Match scores after hand {number}: {totals} (reaching {match.rules.target_score} wins)")
        if match.is_over:
            break
        io.say(f"Next hand: {_roles_text(match.roles, seat_names)}.")
        io.pause("[Enter] next hand, q quits: ")
    assert match.winner is not None
    who = seat_names[match.winner]
    io.say(f"Match over: {who} {'win' if match.winner == person else 'wins'} with {match.scores[match.winner]} points.")
