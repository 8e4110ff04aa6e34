"""The four pictures of one final table agree: the text table, the ``rgb_array`` frame, the GIF and
the HTML viewer at ``#step=last`` all show the knock's discard on top of the pile.

The state is the first deal of ``gin3 evaluate heuristic random --seed 7`` as the heuristic team
plays it against a random box: the team knocks, and the card it discards lies on top.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from browser import Browser, find_chromium

from gin3_env.engine.cards import card_str, parse_cards
from gin3_env.engine.hand import HandState
from gin3_env.evaluation import play_deal
from gin3_env.files import save_json
from gin3_env.policies import HeuristicPolicy, RandomPolicy
from gin3_env.render import render_table
from gin3_env.render.steps import log_steps

PIL = pytest.importorskip("PIL")
from gin3_env.render.frame import CARD_H, CARD_W, FAN, model_image, table_frame  # noqa: E402
from gin3_env.render.model import table_model  # noqa: E402

PILE_X, PILE_Y = 124, 196 + 22  # where the frame draws the pile's bottom shown card (layout pixels)
PILE_LINE = re.compile(r"Discard pile: (\S+) on top, the knock's discard \(\d+ cards?(?:; below: ([^)]*))?\)")


def knocked_hand() -> HandState:
    deck = [int(c) for c in np.random.default_rng(7).permutation(52)]
    state = play_deal(HeuristicPolicy(), RandomPolicy(seed=8), deck)
    assert state.result is not None and state.result.knock_discard is not None, "the deal no longer ends in a knock"
    return state


def text_pile(state: HandState) -> tuple[int, list[int]]:
    """The top card and the cards below it (top first), read from the text table."""
    found = PILE_LINE.search(render_table(state, None, symbols=False))
    assert found, "the text table does not put the knock's discard on top"
    below = parse_cards(found.group(2).replace(" ...", "")) if found.group(2) else []
    return parse_cards(found.group(1))[0], below


def pile_crop(frame: np.ndarray, shown_below: int) -> np.ndarray:
    """The part of a frame the pile's cards cover (the top card and the fanned ones below it)."""
    right = PILE_X + shown_below * FAN + CARD_W
    return frame[PILE_Y : PILE_Y + CARD_H, PILE_X:right].astype(np.int16)


def expected_crop(state: HandState) -> tuple[np.ndarray, int]:
    """The pile as the frame would draw the text's pile: the model with the text's cards on the pile."""
    top, below = text_pile(state)
    model: dict[str, Any] = copy.deepcopy(table_model(state, None))
    model["pile"]["top"], model["pile"]["below"] = top, below
    shown = len(below[:6])
    return pile_crop(np.asarray(model_image(model), dtype=np.uint8), shown), shown


def test_text_and_model_put_the_knocks_discard_on_top() -> None:
    state = knocked_hand()
    top, below = text_pile(state)
    assert top == state.result.knock_discard  # type: ignore[union-attr]
    pile = table_model(state, None)["pile"]
    assert (pile["top"], pile["below"][: len(below)]) == (top, below)
    assert pile["count"] == len(below) + 1
    assert pile["note"] == "on top: the knock's discard"
    for viewer in (0, 1):
        assert table_model(state, viewer)["pile"]["top"] == top


def test_frame_draws_the_texts_pile() -> None:
    state = knocked_hand()
    expected, shown = expected_crop(state)
    frame = table_frame(state, None)
    assert np.abs(pile_crop(frame, shown) - expected).max() == 0


def test_gif_last_frame_draws_the_texts_pile(tmp_path: Path) -> None:
    pytest.importorskip("imageio", reason="videos need imageio (the 'video' extra)")
    import imageio.v3 as iio

    from gin3_env.render.video import write_video

    state = knocked_hand()
    gif = tmp_path / "hand.gif"
    write_video(gif, log_steps(state.log()), fps=4, hold=0)
    last = np.asarray(iio.imread(gif, index=None, plugin="pillow", mode="RGB")[-1], dtype=np.uint8)
    expected, shown = expected_crop(state)
    before = copy.deepcopy(table_model(state, None))  # the pile as it was before the knock
    before["pile"]["top"], before["pile"]["below"] = state.discards[-1], list(state.discards[-2::-1])
    wrong = pile_crop(np.asarray(model_image(before), dtype=np.uint8), shown)
    diff = np.abs(pile_crop(last, shown) - expected).mean()
    assert diff < 6, f"the GIF's last frame differs from the text's pile by {diff:.1f} on average"
    assert np.abs(wrong - expected).mean() > 3 * diff + 3, "the test cannot tell the two piles apart"


def test_html_viewer_last_step_shows_the_texts_pile(tmp_path: Path) -> None:
    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium binary on PATH: apt-get install chromium")
    from gin3_env.cli import main

    state = knocked_hand()
    top, below = text_pile(state)
    log, page = tmp_path / "hand.json", tmp_path / "hand.html"
    save_json(log, state.log())
    assert main(["replay", str(log), "--html", str(page)]) == 0
    with Browser(binary, tmp_path / "profile") as browser:
        browser.open(page.as_uri() + "#step=last", ready="document.getElementById('counter').textContent !== ''")
        cards = browser.eval("[...document.querySelectorAll('#pile svg')].map(e => e.dataset.card)")
        label = browser.text("pile-label")
    assert cards[-1] == card_str(top, True), f"the viewer's pile ends {cards[-1]}, the text's top is {card_str(top)}"
    assert cards[:-1] == [card_str(c, True) for c in reversed(below[:6])]
    assert "the knock's discard" in label
