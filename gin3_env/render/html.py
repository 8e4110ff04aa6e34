"""A saved hand or match as one self-contained HTML page that steps through it in a browser.

``gin3 replay FILE --html out.html`` calls :func:`write_html`. The page needs no
network and no other file: the cards are inline SVG, the style and the script are
inline, the log is embedded as JSON, and every step's table (the
:func:`~gin3_env.render.model.table_model` of the state after each move, both hands
shown) is computed here in Python, so the script only displays them. The showdown
reads as ``gin3 play`` explains it; the move list of the hand so far, and the text
table of ``gin3 replay`` (under "Text"), are beside it.

Controls: the buttons (first, previous, play/pause, next, last) and the slider;
keys Left/Right (or p/n), Space (play/pause), Home/End. The address's fragment
chooses the step: ``out.html#step=12`` (1-based) or ``out.html#step=last``; stepping
updates it, so a link can point at a move.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from ..files import atomic_output
from .steps import Step, log_steps

__all__ = ["replay_html", "write_html"]

_MARKER = re.compile(r"@@(TITLE|STYLE|SCRIPT|DATA)@@")


def _asset(name: str) -> str:
    """A file of the page (``viewer/page.html``, ``style.css``, ``viewer.js``), shipped in the package."""
    return resources.files(__package__).joinpath("viewer").joinpath(name).read_text(encoding="utf-8")


def _steps_data(steps: Sequence[Step]) -> list[dict[str, Any]]:
    return [
        {"hand": s.hand_number, "heading": s.heading, "move": s.move, "model": s.model(), "text": s.text()}
        for s in steps
    ]


def replay_html(log: Mapping[str, Any], *, title: str = "gin3 replay", steps: Sequence[Step] | None = None) -> str:
    """The viewer page for a hand or match log (see :mod:`gin3_env.render.steps`), as text;
    ``steps`` are the log's (:func:`~gin3_env.render.steps.log_steps`), computed when not given."""
    steps = log_steps(log) if steps is None else steps
    data = {"title": title, "steps": _steps_data(steps), "log": log}
    embedded = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    parts = {"TITLE": html.escape(title), "STYLE": _asset("style.css"), "SCRIPT": _asset("viewer.js"),
             "DATA": embedded}
    # one pass over the template: what is inserted (a title naming a file "@@SCRIPT@@.json", a log holding
    # "@@DATA@@") is never searched for markers again, and the title is escaped as HTML
    return _MARKER.sub(lambda m: parts[m.group(1)], _asset("page.html"))


def write_html(path: str | os.PathLike[str], log: Mapping[str, Any], *, title: str | None = None) -> int:
    """Write the viewer page for ``log`` at ``path`` (atomically); returns the number of steps."""
    if not os.fspath(path).lower().endswith((".html", ".htm")):
        raise ValueError(f"the viewer page's file name ends in .html, got {os.fspath(path)!r}")
    steps = log_steps(log)
    page = replay_html(log, title=title or "gin3 replay", steps=steps)
    with atomic_output(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        fh.write(page)
    return len(steps)
