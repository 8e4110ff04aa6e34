"""Stepping through a saved log: one hand (``HandState.log()``) or a match (``MatchState.log()``).

Both hands are shown (``viewer=None``), each move is named with the card drawn
from the stock, and the person presses Enter for the next move (``q`` quits);
``step=False`` prints every step without waiting.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ..engine.hand import HandState
from ..engine.match import Roles
from ..engine.rules import Rules
from ..render import describe_action, render_table
from .game import Console

_SEAT_NAMES = ["Seat 0", "Seat 1", "Seat 2"]


def load_log(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a hand or match log; ``ValueError`` if the file is not one."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise ValueError(f"no such file: {os.fspath(path)}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {os.fspath(path)} as JSON: {exc}") from None
    if not isinstance(data, dict) or not ("hands" in data or ("deck" in data and "actions" in data)):
        raise ValueError(f"{os.fspath(path)} is neither a hand log (rules, deck, actions) nor a match log (hands)")
    return data


def _replay_hand(
    io: Console,
    log: dict[str, Any],
    *,
    step: bool,
    roles: Roles | None = None,
    scores: list[int] | None = None,
) -> None:
    if not isinstance(log, dict) or "deck" not in log or not isinstance(log.get("actions"), list):
        raise ValueError("a hand log is a dict with 'deck' and 'actions'")
    rules = Rules.from_dict(log.get("rules", {}))
    state = HandState.deal(rules, deck=log["deck"])
    names = None
    if roles is not None:
        names = (f"{_SEAT_NAMES[roles.captain]} (captain)", f"{_SEAT_NAMES[roles.box]} (box)")
    else:
        names = ("Team", "Box")
    style = {"symbols": io.symbols, "color": io.color}
    show = {"roles": roles, "scores": scores, "names": names, "seat_names": _SEAT_NAMES, **style}
    io.say(render_table(state, None, **show))
    for i, action in enumerate(log["actions"]):
        if step and io.pause("[Enter] next move, a shows the rest, q quits: ") in ("a", "all"):
            step = False
        io.say(f"#{i + 1}: {describe_action(state, action, names[state.player], reveal=True, symbols=io.symbols)}")
        try:
            state.apply(action)
        except ValueError as exc:
            raise ValueError(f"hand log action #{i + 1}: {exc}") from None
        io.say(render_table(state, None, **show))
    if not state.is_over:
        io.say("(the log ends here: the hand was left unfinished)")


def replay_log(io: Console, data: dict[str, Any], *, step: bool = True) -> None:
    """Show a hand log or a match log (see :func:`load_log`)."""
    if "hands" not in data:
        _replay_hand(io, data, step=step)
        return
    hands = data["hands"]
    if not isinstance(hands, list):
        raise ValueError("a match log's 'hands' must be a list")
    scores = [0, 0, 0]
    for number, entry in enumerate(hands, start=1):
        if not isinstance(entry, dict) or "roles" not in entry or "log" not in entry:
            raise ValueError(f"match log hand #{number} needs 'roles' and 'log'")
        roles = Roles.from_dict(entry["roles"])
        io.say("")
        io.say(
            f"=== Hand {number}: {_SEAT_NAMES[roles.box]} in the box, {_SEAT_NAMES[roles.captain]} "
            f"captain, {_SEAT_NAMES[roles.sitter]} sits out ==="
        )
        _replay_hand(io, entry["log"], step=step, roles=roles, scores=list(scores))
        scores = list(entry.get("scores", scores))
        io.say("Totals: " + ", ".join(f"{_SEAT_NAMES[s]} {scores[s]}" for s in range(3)))
        if step and number < len(hands):
            io.pause("[Enter] next hand, q quits: ")
    winner = data.get("winner")
    if winner is not None:
        io.say(f"Match over: {_SEAT_NAMES[winner]} wins with {scores[winner]} points.")
    else:
        io.say("(the match log ends before the match was won)")
