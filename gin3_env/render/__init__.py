"""Text rendering of hands and matches (:mod:`.text`), below the envs that use it."""

from .text import (
    BOLD,
    DIM,
    RED,
    RESET,
    describe_action,
    fmt_card,
    fmt_cards,
    fmt_hand,
    move_label,
    player_names,
    render_moves,
    render_result,
    render_table,
    says,
)

__all__ = [
    "BOLD",
    "DIM",
    "RED",
    "RESET",
    "describe_action",
    "fmt_card",
    "fmt_cards",
    "fmt_hand",
    "move_label",
    "player_names",
    "render_moves",
    "render_result",
    "render_table",
    "says",
]
