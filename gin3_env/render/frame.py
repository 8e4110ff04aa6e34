"""Frames of the table: a :func:`~gin3_env.render.model.table_model` drawn with Pillow.

``table_frame(state, viewer)`` returns a ``uint8`` array of shape ``(640, 960, 3)``
(height, width, RGB), what ``render_mode="rgb_array"`` gives; ``table_image`` the
same as a ``PIL.Image``. Nothing opens a window or needs a display.

Layout: the title (phase, whose turn) and the scores on top; the viewer's opponent's
row (the box for spectators), the stock, the discard pile and the notes, the
viewer's row (the team for spectators); below, at the end of a hand, the showdown
explained line by line as ``gin3 play`` explains it, or, during the hand, its
last moves. Melds are grouped and underlined,
the deadwood cards follow; the player to act has a yellow name and a "to act"
badge; outlines mark the card taken this turn (orange), the opponent's cards known
from the pile (blue) and the defender's layoffs on the knocker's melds (gold).

Deterministic: the same model gives the same pixels. The only font is the one
Pillow ships (``ImageFont.load_default(size=...)``, Pillow >= 10.1) with the basic
layout engine; suit symbols are drawn as shapes, not glyphs, so no system font is
used. The picture is drawn at twice its size and scaled down (smooth edges).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from io import BytesIO
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..engine.hand import HandState
from ..engine.match import Roles
from .model import HIDDEN, table_model

WIDTH, HEIGHT = 960, 640
SCALE = 2  # drawn at SCALE times the size, then scaled down
CARD_W, CARD_H = 62, 88
CARD_STEP = 66  # card width plus the gap within a group
GROUP_GAP = 16
FAN = 28  # how much of each card below the top discard shows

FELT = (22, 92, 58)
FELT_DARK = (15, 70, 44)
PANEL = (12, 56, 36)
TEXT = (236, 242, 236)
MUTED = (170, 204, 182)
YELLOW = (255, 214, 74)
RED = (200, 26, 44)
BLACK = (24, 24, 28)
CARD_FACE = (252, 251, 246)
CARD_EDGE = (120, 120, 120)
BACK = (32, 64, 140)
BACK_LINE = (66, 104, 190)
MARK_COLORS = {"taken": (255, 150, 30), "known": (90, 190, 240), "layoff": (255, 214, 74)}
MARK_LEGEND = {"taken": "taken this turn", "known": "known: taken from the pile", "layoff": "laid off"}
RANK_TEXT = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_CHARS = {"♣": 0, "♦": 1, "♥": 2, "♠": 3}

__all__ = ["HEIGHT", "WIDTH", "model_image", "table_frame", "table_image"]


# ------------------------------------------------------------------ fonts
@cache
def _font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled font at ``size`` (drawing pixels), basic layout: the same glyphs everywhere."""
    base = ImageFont.load_default(size=size)
    if not isinstance(base, ImageFont.FreeTypeFont):  # Pillow < 10.1 has only a bitmap font
        raise RuntimeError("frames need Pillow >= 10.1 (ImageFont.load_default(size=...))")
    data = getattr(base, "font_bytes", None)
    if data is None:
        return base
    return ImageFont.truetype(BytesIO(data), size, layout_engine=ImageFont.Layout.BASIC)


def _s(value: float) -> int:
    return round(value * SCALE)


# ------------------------------------------------------------------ suits
def _suit(draw: ImageDraw.ImageDraw, suit: int, cx: float, cy: float, size: float, fill: tuple[int, int, int]) -> None:
    """A suit symbol as shapes, centred at (cx, cy), ``size`` high (all in drawing pixels)."""
    h = size / 2
    if suit == 1:  # diamond
        draw.polygon([(cx, cy - h), (cx + 0.75 * h, cy), (cx, cy + h), (cx - 0.75 * h, cy)], fill=fill)
        return
    if suit == 2:  # heart
        r = 0.52 * h
        for dx in (-r, r):
            draw.ellipse([cx + dx - r, cy - h * 0.55 - r, cx + dx + r, cy - h * 0.55 + r], fill=fill)
        draw.polygon([(cx - 2 * r, cy - h * 0.4), (cx + 2 * r, cy - h * 0.4), (cx, cy + h)], fill=fill)
        return
    if suit == 3:  # spade
        r = 0.5 * h
        for dx in (-r, r):
            draw.ellipse([cx + dx - r, cy + h * 0.25 - r, cx + dx + r, cy + h * 0.25 + r], fill=fill)
        draw.polygon([(cx - 2 * r, cy + h * 0.12), (cx + 2 * r, cy + h * 0.12), (cx, cy - h)], fill=fill)
        draw.polygon([(cx, cy + h * 0.2), (cx - 0.45 * h, cy + h), (cx + 0.45 * h, cy + h)], fill=fill)
        return
    r = 0.42 * h  # club
    for dx, dy in ((0, -0.5 * h), (-0.52 * h, 0.22 * h), (0.52 * h, 0.22 * h)):
        draw.ellipse([cx + dx - r, cy + dy - r, cx + dx + r, cy + dy + r], fill=fill)
    draw.rectangle([cx - 0.25 * h, cy - 0.3 * h, cx + 0.25 * h, cy + 0.3 * h], fill=fill)
    draw.polygon([(cx, cy), (cx - 0.45 * h, cy + h), (cx + 0.45 * h, cy + h)], fill=fill)


def _suit_color(suit: int) -> tuple[int, int, int]:
    return RED if suit in (1, 2) else BLACK


# ------------------------------------------------------------------ cards
def _rounded_mask(w: int, h: int, radius: int) -> Image.Image:
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle([0, 0, w - 1, h - 1], radius, fill=255)
    return mask


@cache
def _card_tile(card: int) -> tuple[Image.Image, Image.Image]:
    """The card's picture (RGB) and its rounded-corner mask, at drawing size; ``HIDDEN`` is the back."""
    w, h = _s(CARD_W), _s(CARD_H)
    tile = Image.new("RGB", (w, h), CARD_FACE)
    draw = ImageDraw.Draw(tile)
    radius = _s(7)
    if card == HIDDEN:
        draw.rectangle([0, 0, w, h], fill=BACK)
        step = _s(9)
        for x in range(-h, w + h, step):
            draw.line([(x, 0), (x + h, h)], fill=BACK_LINE, width=_s(1.5))
            draw.line([(x + h, 0), (x, h)], fill=BACK_LINE, width=_s(1.5))
        inset = _s(5)
        draw.rounded_rectangle([inset, inset, w - 1 - inset, h - 1 - inset], _s(4), outline=CARD_FACE, width=_s(2))
    else:
        suit, rank = divmod(card, 13)
        color = _suit_color(suit)
        text = RANK_TEXT[rank]
        font = _font(_s(21))
        draw.text((_s(6), _s(3)), text, font=font, fill=color, stroke_width=_s(0.6), stroke_fill=color)
        _suit(draw, suit, _s(14), _s(36), _s(13), color)
        _suit(draw, suit, _s(CARD_W - 24), _s(CARD_H - 26), _s(30), color)
    draw.rounded_rectangle([0, 0, w - 1, h - 1], radius, outline=CARD_EDGE, width=_s(1))
    return tile, _rounded_mask(w, h, radius)


def _paste_card(img: Image.Image, card: int, x: float, y: float, mark: str = "") -> None:
    tile, mask = _card_tile(card)
    img.paste(tile, (_s(x), _s(y)), mask)
    if mark:
        draw = ImageDraw.Draw(img)
        pad = 3
        draw.rounded_rectangle(
            [_s(x - pad), _s(y - pad), _s(x + CARD_W + pad), _s(y + CARD_H + pad)],
            _s(9),
            outline=MARK_COLORS[mark],
            width=_s(3),
        )


# ------------------------------------------------------------------ text
def _text(
    draw: ImageDraw.ImageDraw,
    x: float,
    y: float,
    text: str,
    size: int,
    fill: tuple[int, int, int] = TEXT,
    *,
    bold: bool = False,
    suit_on_light: bool = False,
) -> float:
    """Draw ``text`` at (x, y) (layout pixels, top left), suit symbols as shapes; returns the end x."""
    font = _font(_s(size))
    cx = _s(x)
    top = _s(y)
    stroke = _s(0.5) if bold else 0
    chunk = ""

    def flush() -> None:
        nonlocal cx, chunk
        if chunk:
            draw.text((cx, top), chunk, font=font, fill=fill, stroke_width=stroke, stroke_fill=fill)
            cx += round(font.getlength(chunk))
            chunk = ""

    for ch in text:
        if ch in SUIT_CHARS:
            flush()
            suit = SUIT_CHARS[ch]
            color = _suit_color(suit) if suit_on_light else ((255, 110, 110) if suit in (1, 2) else fill)
            glyph = _s(size) * 0.72
            _suit(draw, suit, cx + glyph * 0.55, top + _s(size) * 0.62, glyph, color)
            cx += round(glyph * 1.15)
        else:
            chunk += ch
    flush()
    return cx / SCALE


def _text_width(text: str, size: int) -> float:
    font = _font(_s(size))
    width = 0.0
    plain = "".join(ch for ch in text if ch not in SUIT_CHARS)
    width += font.getlength(plain)
    width += sum(round(_s(size) * 0.72 * 1.15) for ch in text if ch in SUIT_CHARS)
    return width / SCALE


def _wrap(text: str, size: int, width: float) -> list[str]:
    """Split ``text`` at spaces into lines no wider than ``width`` (a too-long word stays whole)."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = word if not current else f"{current} {word}"
        if current and _text_width(candidate, size) > width:
            lines.append(current)
            current = "    " + word
        else:
            current = candidate
    lines.append(current)
    return lines


# ------------------------------------------------------------------ parts
def _row(img: Image.Image, draw: ImageDraw.ImageDraw, row: dict[str, Any], y: float) -> None:
    """A player's name line at ``y`` and the cards below it, groups apart, melds underlined."""
    name_color = YELLOW if row["to_act"] else TEXT
    x = _text(draw, 24, y, row["name"], 17, name_color, bold=True)
    if row["to_act"]:
        badge = "to act"
        bw = _text_width(badge, 13) + 14
        draw.rounded_rectangle([_s(x + 10), _s(y + 1), _s(x + 10 + bw), _s(y + 21)], _s(10), fill=YELLOW)
        _text(draw, x + 17, y + 3, badge, 13, BLACK, bold=True)
        x += bw + 10
    _text(draw, x + 14, y + 2, row["info"], 14, MUTED)
    groups = row["groups"]
    n, g = sum(len(group["cards"]) for group in groups), len(groups)
    room = WIDTH - 48 - g * CARD_W - GROUP_GAP * max(g - 1, 0)  # for the steps within the groups
    step = min(CARD_STEP, room / max(n - g, 1))
    cx, cy = 24.0, y + 26
    for group in groups:
        start = cx
        for card, mark in group["cards"]:
            _paste_card(img, card, cx, cy, mark)
            cx += step
        if group["kind"] == "meld":
            end = cx - step + CARD_W
            draw.line([(_s(start), _s(cy + CARD_H + 7)), (_s(end), _s(cy + CARD_H + 7))], fill=MUTED, width=_s(2))
        cx += CARD_W + GROUP_GAP - step


def _middle(img: Image.Image, draw: ImageDraw.ImageDraw, model: dict[str, Any], y: float) -> None:
    """The stock, the discard pile (top card face up, the ones below fanned) and the notes."""
    _paste_card(img, HIDDEN, 24, y + 22)
    if model["stock"] > 1:
        _paste_card(img, HIDDEN, 28, y + 18)
    _text(draw, 24, y, f"Stock: {model['stock']}", 14, MUTED)
    pile = model["pile"]
    px = 124
    _text(draw, px, y, pile["label"], 14, MUTED)
    if pile["note"]:
        _text(draw, px, y + 113, pile["note"], 13, YELLOW)
    below = pile["below"][:6]
    if pile["top"] is None:
        box = [_s(px), _s(y + 22), _s(px + CARD_W), _s(y + 22 + CARD_H)]
        draw.rounded_rectangle(box, _s(7), outline=MUTED, width=_s(2))
    else:
        for i, card in enumerate(reversed(below)):
            _paste_card(img, card, px + i * FAN, y + 22)
        _paste_card(img, pile["top"], px + len(below) * FAN, y + 22)
    nx, ny = 400, y + 4
    for note in model["notes"]:
        for line in _wrap(note, 15, WIDTH - nx - 24):
            if ny <= y + 92:
                _text(draw, nx, ny, line, 15, TEXT)
            ny += 22
    shown = {mark for row in model["rows"] for group in row["groups"] for _, mark in group["cards"] if mark}
    lx = float(nx)
    for mark in MARK_COLORS:  # a legend of the outlines in this frame
        if mark in shown:
            draw.rounded_rectangle([_s(lx), _s(y + 114), _s(lx + 14), _s(y + 128)], _s(3),
                                   outline=MARK_COLORS[mark], width=_s(2.5))
            lx = _text(draw, lx + 20, y + 113, MARK_LEGEND[mark], 13, MUTED) + 18


def _panel(draw: ImageDraw.ImageDraw, title: str, lines: Sequence[str], y: float, *, result: bool) -> None:
    """The bottom panel: the showdown (its last line, the result, in yellow) or the last moves."""
    draw.rounded_rectangle([_s(16), _s(y), _s(WIDTH - 16), _s(HEIGHT - 8)], _s(10), fill=PANEL)
    _text(draw, 30, y + 8, title, 17, YELLOW if result else MUTED, bold=True)
    ty = y + 34
    for i, text in enumerate(lines):
        last = result and i == len(lines) - 1
        for line in _wrap(text, 15, WIDTH - 70):
            if ty > HEIGHT - 30:
                return
            _text(draw, 30, ty, line, 15, YELLOW if last else TEXT, bold=last)
            ty += 21


def model_image(model: dict[str, Any]) -> Image.Image:
    """Draw a :func:`~gin3_env.render.model.table_model` (``WIDTH`` x ``HEIGHT``, RGB)."""
    img = Image.new("RGB", (_s(WIDTH), _s(HEIGHT)), FELT)
    draw = ImageDraw.Draw(img)
    draw.rectangle([0, 0, _s(WIDTH), _s(58)], fill=FELT_DARK)
    _text(draw, 20, 8, model["title"], 20, TEXT, bold=True)
    if model["scores"]:
        _text(draw, 20, 34, model["scores"], 14, MUTED)
    top, bottom = model["rows"]
    _row(img, draw, top, 66)
    _middle(img, draw, model, 196)
    _row(img, draw, bottom, 330)
    if model["showdown"]:
        _panel(draw, "Showdown", model["showdown"], 466, result=True)
    else:
        _panel(draw, "Moves", model["moves"] or ["(no move yet)"], 466, result=False)
    return img.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)


def table_image(
    state: HandState,
    viewer: int | None = None,
    *,
    roles: Roles | None = None,
    scores: Sequence[int] | None = None,
    names: Sequence[str] | None = None,
    seat_names: Sequence[str] | None = None,
    notes: Sequence[str] = (),
) -> Image.Image:
    """The table from ``viewer``'s side (0 team, 1 box, None both hands) as a ``PIL.Image``."""
    model = table_model(state, viewer, roles=roles, scores=scores, names=names, seat_names=seat_names, notes=notes)
    return model_image(model)


def table_frame(
    state: HandState,
    viewer: int | None = None,
    *,
    roles: Roles | None = None,
    scores: Sequence[int] | None = None,
    names: Sequence[str] | None = None,
    seat_names: Sequence[str] | None = None,
    notes: Sequence[str] = (),
) -> np.ndarray:
    """The table as a ``uint8`` array ``(HEIGHT, WIDTH, 3)``; arguments as :func:`table_image`."""
    image = table_image(state, viewer, roles=roles, scores=scores, names=names, seat_names=seat_names, notes=notes)
    return np.asarray(image, dtype=np.uint8)
