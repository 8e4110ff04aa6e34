"""Text rendering of hands and matches (:mod:`.text`), below the envs that use it."""

from .text import (
    BOLD,
    DIM,
    RED,
    RESET,
    deadwood_text,
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
    scores_text,
)

__all__ = [
    "BOLD",
    "DIM",
    "RED",
    "RESET",
    "deadwood_text",
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
    "scores_text",
]
