"""The rules engine of three-handed gin rummy, and what a player knows. Imports no RL library.

Pure Python and numpy: it works where gymnasium, pettingzoo and torch are absent.
"""

from ..errors import IllegalActionError
from .actions import (
    DRAW_STOCK,
    KNOCK_BASE,
    NUM_ACTIONS,
    PASS,
    TAKE_DISCARD,
    action_card,
    action_str,
    discard_action,
    knock_action,
)
from .cards import card_points, card_str, cards_of, mask_of, parse_card, parse_cards
from .determinise import determinise
from .hand import BOX, TEAM, HandState, legal_actions, replay_hand
from .layoffs import best_layoffs
from .match import MatchState, Roles, draw_roles
from .melds import Arrangement, best_arrangement, deadwood, knock_deadwoods
from .phases import Phase
from .result import HandResult, Spread
from .rules import Rules
from .showdown import showdown
from .view import PlayerView

__all__ = [
    "BOX", "DRAW_STOCK", "KNOCK_BASE", "NUM_ACTIONS", "PASS", "TAKE_DISCARD", "TEAM",
    "Arrangement", "HandResult", "HandState", "IllegalActionError", "MatchState", "Phase",
    "PlayerView", "Roles", "Rules", "Spread", "action_card", "action_str", "best_arrangement",
    "best_layoffs", "card_points", "card_str", "cards_of", "deadwood", "determinise", "discard_action",
    "draw_roles", "knock_action", "knock_deadwoods", "legal_actions", "mask_of", "parse_card",
    "parse_cards", "replay_hand", "showdown",
]
