"""Pictures of hands and matches, from states: text, frames, videos and the replay page.

The modules, from the bottom up:

- :mod:`~gin3_env.render.text`: the text table, the showdown and the move list (the envs'
  ``render_mode="human"``/``"ansi"`` and the terminal apps); its names are re-exported here.
- :mod:`~gin3_env.render.model`: what a picture of the table shows, as a plain JSON-able
  dict (``table_model``), from one player's side (hidden cards face down) or the
  spectator's (both hands). Pure Python: no drawing library.
- :mod:`~gin3_env.render.frame`: draws a model with Pillow into a ``uint8`` ``(H, W, 3)``
  array (``table_frame``); this is what ``render_mode="rgb_array"`` returns. No window or
  display is needed; the font is Pillow's own (``ImageFont.load_default``), so frames are
  the same on every machine with the same Pillow.
- :mod:`~gin3_env.render.steps`: a saved hand or match log as a list of steps (the
  state after each move, with the move's description).
- :mod:`~gin3_env.render.video`: a log as an ``.mp4`` or ``.gif`` (imageio; the
  ``video`` extra).
- :mod:`~gin3_env.render.html`: a log as one self-contained HTML page that steps
  through it in a browser (the page's files in ``viewer/``);
  :mod:`~gin3_env.render.export`: ``gin3 replay --html/--video``'s choice between them.

Importing this package imports the text module only: none of the pictures' modules (nor Pillow).
"""

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
    table_pile,
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
    "table_pile",
]
