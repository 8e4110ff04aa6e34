"""A saved log as a list of steps: the table before the first move and after each move.

A hand log is ``HandState.log()`` (rules, deck, actions; ``gin3 play --save-log``
writes one for a hand); a match log is ``MatchState.log()`` (``"hands"``, each with
its roles, log and the totals after it). The players are named as ``gin3 replay``
names them: ``Team``/``Box`` in a hand, ``Seat 0 (captain)``/``Seat 1 (box)`` in a
match. Each step's move is the move that led to it, with the card drawn from the
stock named (a replay shows both hands); the last step of each hand in a match
notes the totals, and that of the last hand the match's winner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.hand import HandState
from ..engine.match import NUM_SEATS, Roles
from ..engine.rules import Rules
from ..render import describe_action, render_table
from .model import table_model

SEAT_NAMES = ("Seat 0", "Seat 1", "Seat 2")

__all__ = ["SEAT_NAMES", "Step", "log_steps"]


@dataclass(frozen=True)
class Step:
    """The table at one point of a replay (``state`` is a snapshot, not shared with other steps)."""

    state: HandState
    hand_number: int  # 1-based; 1 for a hand log
    heading: str  # "" in a hand log; "Hand 2: Seat 1 in the box, Seat 0 captain, Seat 2 sits out" in a match
    names: tuple[str, str]
    move: str | None  # "#3: Box discards 7♠" (None before the first move)
    roles: Roles | None = None
    scores: tuple[int, ...] | None = None
    notes: tuple[str, ...] = ()

    def model(self, viewer: int | None = None) -> dict[str, Any]:
        """This step's :func:`~gin3_env.visual.model.table_model` (both hands by default); in a
        match its notes start with the heading."""
        notes = ((self.heading,) if self.heading else ()) + self.notes
        return table_model(
            self.state,
            viewer,
            roles=self.roles,
            scores=self.scores,
            names=self.names,
            seat_names=SEAT_NAMES if self.roles is not None else None,
            notes=notes,
        )

    def text(self) -> str:
        """The text table of ``gin3 replay`` for this step (both hands, suit symbols)."""
        seat_names = SEAT_NAMES if self.roles is not None else None
        scores = None if self.scores is None else list(self.scores)
        return render_table(self.state, None, roles=self.roles, scores=scores, names=self.names, seat_names=seat_names)


def _hand_steps(
    log: Any,
    *,
    number: int,
    heading: str,
    roles: Roles | None,
    scores: Sequence[int] | None,
    where: str,
) -> list[Step]:
    if not isinstance(log, Mapping) or "deck" not in log or not isinstance(log.get("actions"), list):
        raise ValueError(f"{where}: a hand log is a dict with 'deck' and a list 'actions'")
    rules_data = log.get("rules") or {}
    if not isinstance(rules_data, Mapping):
        raise ValueError(f"{where}: 'rules' must be a dict, got {type(rules_data).__name__}")
    state = HandState.deal(Rules.from_dict(dict(rules_data)), deck=log["deck"])
    if roles is None:
        names = ("Team", "Box")
    else:
        names = (f"{SEAT_NAMES[roles.captain]} (captain)", f"{SEAT_NAMES[roles.box]} (box)")
    shown = None if scores is None else tuple(int(s) for s in scores)
    steps = [Step(state.clone(), number, heading, names, None, roles, shown)]
    for i, action in enumerate(log["actions"]):
        if state.is_over:
            raise ValueError(f"{where} action #{i + 1}: the hand is already over")
        try:
            move = f"#{i + 1}: {describe_action(state, action, names[state.player], reveal=True, symbols=True)}"
            state.apply(action)
        except ValueError as exc:
            raise ValueError(f"{where} action #{i + 1}: {exc}") from None
        steps.append(Step(state.clone(), number, heading, names, move, roles, shown))
    return steps


def log_steps(data: Mapping[str, Any]) -> list[Step]:
    """Every step of a hand log or a match log (see the module doc); ``ValueError`` on a bad log."""
    if not isinstance(data, Mapping):
        raise ValueError(f"a log is a dict, got {type(data).__name__}")
    if "hands" not in data:
        return _hand_steps(data, number=1, heading="", roles=None, scores=None, where="hand log")
    hands = data["hands"]
    if not isinstance(hands, list) or not hands:
        raise ValueError("a match log's 'hands' must be a non-empty list")
    steps: list[Step] = []
    scores = [0] * NUM_SEATS
    for number, entry in enumerate(hands, start=1):
        where = f"match log hand #{number}"
        if not isinstance(entry, Mapping) or "roles" not in entry or "log" not in entry:
            raise ValueError(f"{where} needs 'roles' and 'log'")
        roles = Roles.from_dict(dict(entry["roles"]))
        heading = (
            f"Hand {number}: {SEAT_NAMES[roles.box]} in the box, {SEAT_NAMES[roles.captain]} captain, "
            f"{SEAT_NAMES[roles.sitter]} sits out"
        )
        hand = _hand_steps(entry["log"], number=number, heading=heading, roles=roles, scores=scores, where=where)
        after = entry.get("scores", scores)
        if not isinstance(after, list) or len(after) != NUM_SEATS:
            raise ValueError(f"{where}: 'scores' must be the three totals after the hand")
        scores = [int(s) for s in after]
        notes = ["Totals: " + ", ".join(f"{SEAT_NAMES[s]} {scores[s]}" for s in range(NUM_SEATS))]
        winner = data.get("winner")
        if number == len(hands):
            if isinstance(winner, int) and 0 <= winner < NUM_SEATS:
                notes.append(f"Match over: {SEAT_NAMES[winner]} wins with {scores[winner]} points.")
            else:
                notes.append("(the match log ends before the match was won)")
        last = hand[-1]
        hand[-1] = Step(last.state, number, heading, last.names, last.move, roles, tuple(scores), tuple(notes))
        steps += hand
    return steps
