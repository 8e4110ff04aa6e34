"""Action ids: one ``Discrete(107)`` space for every agent (docs/design.md).

| id      | meaning                                   |
|---------|-------------------------------------------|
| 0       | draw from the stock                       |
| 1       | take the top discard (the upcard at first)|
| 2       | pass (refuse the upcard, opening only)    |
| 3 + c   | discard card c                            |
| 55 + c  | knock, discarding card c                  |
"""

from __future__ import annotations

from .cards import NUM_CARDS, card_str, check_card

DRAW_STOCK = 0
TAKE_DISCARD = 1
PASS = 2
DISCARD_BASE = 3
KNOCK_BASE = DISCARD_BASE + NUM_CARDS  # 55
NUM_ACTIONS = KNOCK_BASE + NUM_CARDS  # 107


def discard_action(card: int) -> int:
    return DISCARD_BASE + check_card(card)


def knock_action(card: int) -> int:
    return KNOCK_BASE + check_card(card)


def is_discard(action: int) -> bool:
    return DISCARD_BASE <= action < KNOCK_BASE


def is_knock(action: int) -> bool:
    return KNOCK_BASE <= action < NUM_ACTIONS


def action_card(action: int) -> int | None:
    """The card a discard or knock action names, else None."""
    if is_discard(action):
        return action - DISCARD_BASE
    if is_knock(action):
        return action - KNOCK_BASE
    return None


def check_action(action: int) -> int:
    if isinstance(action, bool):
        raise ValueError(f"action must be an int 0..{NUM_ACTIONS - 1}, got {action!r}")
    try:
        value = int(action)
    except (TypeError, ValueError):
        raise ValueError(f"action must be an int 0..{NUM_ACTIONS - 1}, got {action!r}") from None
    if value != action or not 0 <= value < NUM_ACTIONS:
        raise ValueError(f"action out of range 0..{NUM_ACTIONS - 1}: {action!r}")
    return value


def action_str(action: int, symbols: bool = False) -> str:
    """Human text: ``"draw"``, ``"take"``, ``"pass"``, ``"discard 7S"``, ``"knock, discard 7S"``."""
    action = check_action(action)
    if action == DRAW_STOCK:
        return "draw"
    if action == TAKE_DISCARD:
        return "take"
    if action == PASS:
        return "pass"
    if is_discard(action):
        return f"discard {card_str(action - DISCARD_BASE, symbols)}"
    return f"knock, discard {card_str(action - KNOCK_BASE, symbols)}"
