"""The rules engine of three-handed gin rummy. Imports no RL library."""

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
from .hand import BOX, TEAM, HandResult, HandState, IllegalActionError, Phase, Spread, legal_actions, replay
from .match import MatchState, Roles, draw_roles
from .melds import Arrangement, best_arrangement, best_layoffs, deadwood, knock_deadwoods
from .rules import Rules
from .showdown import showdown

__all__ = [
    "BOX", "DRAW_STOCK", "KNOCK_BASE", "NUM_ACTIONS", "PASS", "TAKE_DISCARD", "TEAM",
    "Arrangement", "HandResult", "HandState", "IllegalActionError", "MatchState", "Phase",
    "Roles", "Rules", "Spread", "action_card", "action_str", "best_arrangement", "best_layoffs",
    "card_points", "card_str", "cards_of", "deadwood", "discard_action", "draw_roles",
    "knock_action", "knock_deadwoods", "legal_actions", "mask_of", "parse_card", "parse_cards",
    "replay", "showdown",
]
