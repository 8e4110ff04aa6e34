"""The observation vector's layout: one table, read by the encoder, the decoder, the compiled core and the docs.

The observation is a flat ``float32`` vector: the 52-card planes of :data:`CARD_PLANES`, then the
scalar features of :data:`SCALARS`. Card planes are indexed by the card id ``suit * 13 + rank``.
Every offset, size and total below is computed from those two tables, and the table printed
here is generated from them too; :data:`LAYOUT` lists each row as ``(name, start, stop)``.
"""

from __future__ import annotations

from typing import NamedTuple

from ..engine.cards import NUM_CARDS
from ..engine.match import NUM_SEATS
from ..engine.phases import Phase
from ..engine.result import PLAYER_NAMES


class Field(NamedTuple):
    """One row of a layout table: a name, how many entries it takes, what they hold."""

    name: str
    size: int
    meaning: str


PLANE = NUM_CARDS  # 52: one entry per card
STOCK_SCALE = 31  # the stock size is encoded as stock / 31 (the stock holds 31 cards after the deal)

# The hand observation: the card planes, then the scalars, in this order.
CARD_PLANES: tuple[Field, ...] = (
    Field("hand", PLANE, "own hand (10 cards, 11 while holding a drawn card)"),
    Field("top_discard", PLANE, "top of the discard pile, one-hot (the upcard in the opening)"),
    Field("discard_pile", PLANE, "the rest of the discard pile"),
    Field("opponent_known", PLANE, "cards the opponent took from the discard pile and still holds"),
    Field("opponent_declined", PLANE, "cards the opponent declined (passed upcard, discards drawn over)"),
    Field("own_declined", PLANE, "cards this player declined"),
    Field("taken_this_turn", PLANE, "the card this player took from the pile this turn (not discardable)"),
)
SCALARS: tuple[Field, ...] = (
    Field("phase", len(Phase), "phase one-hot: offer to team, offer to box, draw, discard, over"),
    Field("role", len(PLAYER_NAMES), "own role one-hot: team (captain), box"),
    Field("stock_size", 1, f"stock size / {STOCK_SCALE}"),
    Field("deadwood", 1, "own deadwood / 100 (after the best discard when holding 11 cards)"),
    Field("turns", 1, "turns played / max_turns"),
)
OBSERVATION: tuple[Field, ...] = (*CARD_PLANES, *SCALARS)
# What the match observation appends to the hand observation.
MATCH_FIELDS: tuple[Field, ...] = (
    Field("match_role", NUM_SEATS, "own role one-hot: box, captain, sitter"),
    Field("match_scores", NUM_SEATS, "totals / target_score (clipped to 1): self, next seat, the one after"),
)


def spans(fields: tuple[Field, ...], start: int = 0) -> tuple[tuple[str, int, int], ...]:
    """``(name, start, stop)`` of each field laid end to end from ``start``."""
    rows = []
    for f in fields:
        rows.append((f.name, start, start + f.size))
        start += f.size
    return tuple(rows)


def markdown_table(fields: tuple[Field, ...], start: int = 0, head: str = "slice") -> str:
    """The fields as a Markdown table (``| slice | feature | meaning |``), offsets from ``start``."""
    cells = [(head, "feature", "meaning")]
    for (name, lo, hi), f in zip(spans(fields, start), fields, strict=True):
        cells.append((f"{lo}:{hi}" if hi - lo > 1 else str(lo), f"`{name}`", f.meaning))
    widths = [max(len(row[k]) for row in cells) for k in range(3)]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |" for row in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


LAYOUT = spans(OBSERVATION)
MATCH_LAYOUT = (*LAYOUT, *spans(MATCH_FIELDS, LAYOUT[-1][2]))
_START = {name: start for name, start, _ in MATCH_LAYOUT}

# The names the encoders and the kernels read (numba compiles module-level ints in as constants).
NUM_PLANES = len(CARD_PLANES)
PLANE_NAMES = tuple(f.name for f in CARD_PLANES)
HAND_PLANE, TOP_PLANE, PILE_PLANE, OPP_KNOWN_PLANE, OPP_DECLINED_PLANE, OWN_DECLINED_PLANE, TAKEN_PLANE = (
    PLANE_NAMES.index(name) for name in (
        "hand", "top_discard", "discard_pile", "opponent_known", "opponent_declined", "own_declined",
        "taken_this_turn",
    )
)
PHASE_OFFSET = _START["phase"]
ROLE_OFFSET = _START["role"]
STOCK_INDEX = _START["stock_size"]
DEADWOOD_INDEX = _START["deadwood"]
TURN_INDEX = _START["turns"]
OBS_SIZE = LAYOUT[-1][2]
MATCH_ROLE_OFFSET = _START["match_role"]
MATCH_SCORE_OFFSET = _START["match_scores"]
MATCH_OBS_SIZE = MATCH_LAYOUT[-1][2]

__doc__ = f"""{__doc__}
{markdown_table(OBSERVATION)}

The match observation appends the seat's role one-hot and the three totals / target (own seat
first): {MATCH_OBS_SIZE} entries.

{markdown_table(MATCH_FIELDS, OBS_SIZE)}
"""
