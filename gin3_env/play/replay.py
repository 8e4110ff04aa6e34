"""Stepping through a saved log: one hand (``HandState.log()``) or a match (``MatchState.log()``).

Both hands are shown (``viewer=None``), the players named as the log names them,
each move is named with the card drawn from the stock, and the person presses
Enter for the next move (``q`` quits); ``step=False`` prints every step without waiting.
"""

from __future__ import annotations

import os
from typing import Any

from ..files import read_json
from ..render import describe_action
from ..render.steps import log_steps
from .console import Console

MAX_LOG_BYTES = 64 << 20  # a match log is tens of KB; a log over this is refused unread


def load_log(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a hand or match log; ``ValueError`` if the file is not one (missing, not a regular file, over
    :data:`MAX_LOG_BYTES`, nested too deeply, not JSON, or not a log)."""
    data = read_json(path, "log", MAX_LOG_BYTES)  # a regular file, capped: not a device, FIFO or endless link
    if not isinstance(data, dict) or not ("hands" in data or ("deck" in data and "actions" in data)):
        raise ValueError(f"{os.fspath(path)} is neither a hand log (rules, deck, actions) nor a match log (hands)")
    return data


def replay_log(io: Console, data: dict[str, Any], *, step: bool = True) -> None:
    """Show a hand log or a match log (see :func:`load_log`), the steps of
    :func:`~gin3_env.render.steps.log_steps`: the whole log is checked before anything is shown."""
    steps = log_steps(data)
    for i, current in enumerate(steps):
        if current.move is None:  # a hand's deal
            if current.heading:
                io.say("")
                io.say(f"=== {current.heading} ===")
        else:
            if step and io.pause("[Enter] next move, a shows the rest, q quits: ") in ("a", "all"):
                step = False
            before = steps[i - 1].state
            action = current.state.actions[-1]
            move = describe_action(before, action, current.names[before.player], reveal=True, symbols=io.symbols)
            io.say(f"#{len(current.state.actions)}: {move}")
        io.say(current.text(symbols=io.symbols, color=io.color))
        last_of_hand = i == len(steps) - 1 or steps[i + 1].hand_number != current.hand_number
        if not last_of_hand:
            continue
        if not current.state.is_over:
            io.say("(the log ends here: the hand was left unfinished)")
        for note in current.notes:
            io.say(note)
        if step and i < len(steps) - 1:
            io.pause("[Enter] next hand, q quits: ")
