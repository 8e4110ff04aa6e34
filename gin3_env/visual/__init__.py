"""Pictures of the table: frames (``rgb_array``), videos and the HTML replay viewer.

The modules, from the bottom up:

- :mod:`~gin3_env.visual.model`: what a picture of the table shows, as a plain JSON-able
  dict (``table_model``), from one player's side (hidden cards face down) or the
  spectator's (both hands). Pure Python: no drawing library.
- :mod:`~gin3_env.visual.frame`: draws a model with Pillow into a ``uint8`` ``(H, W, 3)``
  array (``table_frame``); this is what ``render_mode="rgb_array"`` returns. No window or
  display is needed; the font is Pillow's own (``ImageFont.load_default``), so frames are
  the same on every machine with the same Pillow.
- :mod:`~gin3_env.visual.steps`: a saved hand or match log as a list of steps (the
  state after each move, with the move's description).
- :mod:`~gin3_env.visual.video`: a log as an ``.mp4`` or ``.gif`` (imageio; the
  ``video`` extra).
- :mod:`~gin3_env.visual.html`: a log as one self-contained HTML page that steps
  through it in a browser.

Importing this package imports none of them (nor Pillow).
"""
