"""The terminal apps: ``gin3 play`` (a person against policies) and ``gin3 replay``.

- :mod:`.console`: the loops of a hand and a match with a person at a :class:`Console`;
- :mod:`.moves`: reading a person's move (a number or words);
- :mod:`.replay`: stepping through a saved hand or match log;
- :mod:`.commands`: from ``gin3 play``/``gin3 replay``'s parsed arguments to those loops.
"""

from .console import Console, Quit, person_turn, play_hand, play_match
from .moves import HELP, parse_move
from .replay import load_log, replay_log

__all__ = ["HELP", "Console", "Quit", "load_log", "parse_move", "person_turn", "play_hand", "play_match", "replay_log"]
