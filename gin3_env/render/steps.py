"""A saved log as a list of steps: the table before the first move and after each move.

A hand log is ``HandState.log()`` (rules, deck, actions; ``gin3 play --save-log``
writes one for a hand); a match log is ``MatchState.log()`` (``"hands"``, each with
its roles, log and the totals after it). A log may name its players: ``"players"``,
the policy specs of the team and the box in a hand log, of seats 0, 1 and 2 in a
match log (``gin3 evaluate --save-logs`` and ``gin3 play --save-log`` write them).
The players are named as ``gin3 replay`` names them: ``Team (heuristic)``/``Box
(random)`` in a hand, ``Seat 0 (heuristic, captain)``/``Seat 1 (random, box)`` in a
match (``Team``/``Box``, ``Seat 0 (captain)`` when the log names no players). Each
step's move is the move that led to it, with the card drawn from the stock named (a
replay shows both hands); the last step of each hand in a match notes the match
scores, and that of the last hand the match's winner.

A log's ``"version"``, when present, must be the one this package writes
(``LOG_VERSION``); a bad log is a ``ValueError`` naming the field that is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.hand import LOG_VERSION, HandState
from ..engine.match import NUM_SEATS, Roles
from ..engine.rules import Rules
from . import describe_action, render_table
from .model import table_model

SEAT_NAMES = ("Seat 0", "Seat 1", "Seat 2")

__all__ = ["SEAT_NAMES", "Step", "log_players", "log_steps"]


@dataclass(frozen=True)
class Step:
    """The table at one point of a replay (``state`` is a snapshot, not shared with other steps)."""

    state: HandState
    hand_number: int  # 1-based; 1 for a hand log
    heading: str  # "" in a hand log; "Hand 2: Seat 1 in the box, Seat 0 captain, Seat 2 sitter" in a match
    names: tuple[str, str]
    move: str | None  # "#3: Box discards 7♠" (None before the first move)
    roles: Roles | None = None
    scores: tuple[int, ...] | None = None
    notes: tuple[str, ...] = ()
    seat_names: tuple[str, ...] = SEAT_NAMES

    def model(self, viewer: int | None = None) -> dict[str, Any]:
        """This step's :func:`~gin3_env.render.model.table_model` (both hands by default); in a
        match its notes start with the heading."""
        notes = ((self.heading,) if self.heading else ()) + self.notes
        return table_model(
            self.state,
            viewer,
            roles=self.roles,
            scores=self.scores,
            names=self.names,
            seat_names=self.seat_names if self.roles is not None else None,
            notes=notes,
        )

    def text(self, *, symbols: bool = True, color: bool = False) -> str:
        """The text table of ``gin3 replay`` for this step (both hands)."""
        seat_names = self.seat_names if self.roles is not None else None
        scores = None if self.scores is None else list(self.scores)
        return render_table(
            self.state, None, symbols=symbols, color=color, roles=self.roles, scores=scores, names=self.names,
            seat_names=seat_names,
        )


def _check_version(data: Mapping[str, Any], where: str) -> None:
    version = data.get("version", LOG_VERSION)
    if isinstance(version, bool) or version != LOG_VERSION:
        raise ValueError(f"{where}: 'version' is {version!r}, but this gin3 reads log version {LOG_VERSION}")


def log_players(data: Mapping[str, Any], count: int, where: str) -> tuple[str, ...] | None:
    """The log's ``"players"`` (``count`` policy specs), or None when it names none."""
    players = data.get("players")
    if players is None:
        return None
    if not isinstance(players, list) or len(players) != count or not all(isinstance(p, str) and p for p in players):
        whose = "the team and the box" if count == 2 else "seats 0, 1 and 2"
        raise ValueError(f"{where}: 'players' must be {count} policy names ({whose}), got {players!r:.80}")
    return tuple(players)


def _totals(value: Any, where: str, field: str) -> list[int]:
    if (
        not isinstance(value, list)
        or len(value) != NUM_SEATS
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise ValueError(f"{where}: '{field}' must be the three seats' whole-number totals, got {value!r:.80}")
    return list(value)


def _hand_steps(
    log: Any,
    *,
    number: int,
    heading: str,
    roles: Roles | None,
    scores: Sequence[int] | None,
    where: str,
    players: tuple[str, ...] | None = None,
    seat_names: tuple[str, ...] = SEAT_NAMES,
) -> list[Step]:
    if not isinstance(log, Mapping) or "deck" not in log or not isinstance(log.get("actions"), list):
        raise ValueError(f"{where}: a hand log is a dict with 'deck' and a list 'actions'")
    _check_version(log, where)
    rules_data = log.get("rules") or {}
    if not isinstance(rules_data, Mapping):
        raise ValueError(f"{where}: 'rules' must be a dict, got {type(rules_data).__name__}")
    try:
        rules = Rules.from_dict(dict(rules_data))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: 'rules': {exc}") from None
    try:
        state = HandState.deal(rules, deck=log["deck"])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: 'deck': {exc}") from None
    if roles is None:
        names = ("Team", "Box") if players is None else (f"Team ({players[0]})", f"Box ({players[1]})")
    else:
        names = (_with_role(seat_names[roles.captain], "captain"), _with_role(seat_names[roles.box], "box"))
    shown = None if scores is None else tuple(scores)
    steps = [Step(state.clone(), number, heading, names, None, roles, shown, (), seat_names)]
    for i, action in enumerate(log["actions"]):
        if state.is_over:
            raise ValueError(f"{where} action #{i + 1}: the hand is already over")
        try:
            move = f"#{i + 1}: {describe_action(state, action, names[state.player], reveal=True, symbols=True)}"
            state.apply(action)
        except ValueError as exc:
            raise ValueError(f"{where} action #{i + 1}: {exc}") from None
        steps.append(Step(state.clone(), number, heading, names, move, roles, shown, (), seat_names))
    return steps


def _with_role(seat_name: str, role: str) -> str:
    """``"Seat 0 (heuristic)", "captain" -> "Seat 0 (heuristic, captain)"``; ``"Seat 0 (captain)"`` without a player."""
    return f"{seat_name[:-1]}, {role})" if seat_name.endswith(")") else f"{seat_name} ({role})"


def log_steps(data: Mapping[str, Any]) -> list[Step]:
    """Every step of a hand log or a match log (see the module doc); ``ValueError`` on a bad log."""
    if not isinstance(data, Mapping):
        raise ValueError(f"a log is a dict, got {type(data).__name__}")
    if "hands" not in data:
        players = log_players(data, 2, "hand log")
        return _hand_steps(data, number=1, heading="", roles=None, scores=None, where="hand log", players=players)
    _check_version(data, "match log")
    players = log_players(data, NUM_SEATS, "match log")
    seat_names: tuple[str, ...] = SEAT_NAMES
    if players is not None:
        seat_names = tuple(f"{n} ({p})" for n, p in zip(SEAT_NAMES, players, strict=True))
    hands = data["hands"]
    if not isinstance(hands, list) or not hands:
        raise ValueError("a match log's 'hands' must be a non-empty list")
    steps: list[Step] = []
    scores = [0] * NUM_SEATS
    for number, entry in enumerate(hands, start=1):
        where = f"match log hand #{number}"
        if not isinstance(entry, Mapping) or "roles" not in entry or "log" not in entry:
            raise ValueError(f"{where} needs 'roles' and 'log'")
        try:
            roles = Roles.from_dict(dict(entry["roles"]))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}: 'roles': {exc}") from None
        heading = (
            f"Hand {number}: {seat_names[roles.box]} in the box, {seat_names[roles.captain]} captain, "
            f"{seat_names[roles.sitter]} sitter"
        )
        hand = _hand_steps(
            entry["log"], number=number, heading=heading, roles=roles, scores=scores, where=where,
            seat_names=seat_names,
        )
        scores = _totals(entry.get("scores", scores), where, "scores")
        notes = [f"Match scores after hand {number}: " + ", ".join(
            f"{seat_names[s]} {scores[s]}" for s in range(NUM_SEATS)
        )]
        winner = data.get("winner")
        if number == len(hands):
            if isinstance(winner, int) and not isinstance(winner, bool) and 0 <= winner < NUM_SEATS:
                notes.append(f"Match over: {seat_names[winner]} wins with {scores[winner]} points.")
            elif winner is None:
                notes.append("(the match log ends before the match was won)")
            else:
                raise ValueError(f"match log: 'winner' must be a seat 0, 1 or 2 or null, got {winner!r:.40}")
        last = hand[-1]
        hand[-1] = Step(
            last.state, number, heading, last.names, last.move, roles, tuple(scores), tuple(notes), seat_names
        )
        steps += hand
    return steps
