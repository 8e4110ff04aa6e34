"""Three-handed gin as OpenSpiel games, registered with ``pyspiel`` when this module is imported.

    import pyspiel
    import gin3_env.interop.openspiel_game  # registers the games (or call register())
    game = pyspiel.load_game("python_gin3_hand")             # one hand: team (0) against box (1)
    match = pyspiel.load_game("python_gin3_match", {"target_score": 50})  # a match: seats 0, 1, 2

- ``python_gin3_hand``: :mod:`.openspiel_hand`;
- ``python_gin3_match``: :mod:`.openspiel_match`.

Both take the rules options of ``docs/rules.md`` section 9 as game parameters. Needs the
``openspiel`` extra (``pip install 'gin3_env[openspiel]'``).
"""

from __future__ import annotations

from .openspiel_base import pyspiel
from .openspiel_hand import GAME_TYPE as HAND_GAME_TYPE
from .openspiel_hand import HandGame
from .openspiel_match import GAME_TYPE as MATCH_GAME_TYPE
from .openspiel_match import MatchGame

__all__ = ["GAME_NAMES", "HAND_GAME", "MATCH_GAME", "register"]

HAND_GAME = HAND_GAME_TYPE.short_name
MATCH_GAME = MATCH_GAME_TYPE.short_name
GAME_NAMES = (HAND_GAME, MATCH_GAME)


def register() -> tuple[str, ...]:
    """Register both games with ``pyspiel`` (once per process; later calls do nothing); returns their names."""
    registered = set(pyspiel.registered_names())
    for game_type, cls in ((HAND_GAME_TYPE, HandGame), (MATCH_GAME_TYPE, MatchGame)):
        if game_type.short_name not in registered:
            pyspiel.register_game(game_type, cls)
    return GAME_NAMES


register()
