"""Replays as pictures: steps of a log, ``gin3 replay --video/--html``, ``gin3 evaluate --save-logs``,
and the HTML viewer opened in a real headless browser (Chromium).

The browser tests skip, saying why, when no Chromium is installed (``.ci/run``
installs Debian's). One loads the page with ``#step=last`` (the page shows the
step its address names) and reads the result line from the DOM Chromium dumps;
the other drives the page as a person would, through the DevTools protocol
(``tests/browser.py``): arrow keys, the buttons, play and pause, End to the
showdown, and keeps a screenshot of it as a test artefact (its path is printed;
run ``pytest -s`` to see it).
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from browser import BINARIES, Browser, chromium_flags, find_chromium
from conftest import deal, play

from gin3_env.cli import main
from gin3_env.engine.hand import HandState
from gin3_env.engine.match import MatchState
from gin3_env.evaluation import cli_main, play_deal, play_seats
from gin3_env.files import save_json
from gin3_env.policies import HeuristicPolicy
from gin3_env.render import render_result
from gin3_env.render.html import replay_html, write_html
from gin3_env.render.steps import log_steps

TEAM_MELDS = "AC 2C 3C 7D 7H 7S 9H TH JH"
BOX_JUNK = "8H 7C 4C KC QD 5S 2D 6H KS 9C"
KNOCK_RESULT = "Result: knock: Team scores 52 - 5 = 47"


def knock_log() -> dict[str, Any]:
    return play(deal(f"{TEAM_MELDS} 4D", BOX_JUNK, "5D"), "take", "knock 4D").log()


def heuristic_match(seed: int = 4) -> MatchState:
    return play_seats([HeuristicPolicy()] * 3, np.random.default_rng(seed))


def embedded_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S)
    assert found, "no embedded replay data"
    return json.loads(found.group(1))


# ------------------------------------------------------------------ steps
def test_hand_log_steps_follow_the_moves() -> None:
    steps = log_steps(knock_log())
    assert len(steps) == 3
    assert steps[0].move is None and steps[1].move == "#1: Team takes 5♦ from the discard pile"
    assert steps[2].move == "#2: Team knocks, discarding 4♦"
    assert steps[2].model()["showdown"][-1] == KNOCK_RESULT
    assert steps[2].state.is_over and not steps[1].state.is_over  # snapshots, not one shared state


def test_match_log_steps_carry_roles_totals_and_winner() -> None:
    match = heuristic_match()
    steps = log_steps(match.log())
    hands = match.history
    assert len(steps) == sum(len(h["log"]["actions"]) + 1 for h in hands)
    last = steps[-1]
    assert last.hand_number == len(hands)
    assert match.winner is not None
    assert f"Match over: Seat {match.winner} wins with {match.scores[match.winner]} points." in last.notes
    model = last.model()
    assert model["notes"][0].startswith(f"Hand {len(hands)}: ")
    assert model["scores"] is not None and model["scores"].startswith("Scores: Seat 0 (")


def test_bad_logs_are_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="deck"):
        log_steps({"actions": []})
    log = knock_log()
    log["actions"] = [*log["actions"], 0]
    with pytest.raises(ValueError, match="already over"):
        log_steps(log)
    with pytest.raises(ValueError, match="non-empty"):
        log_steps({"hands": []})
    with pytest.raises(ValueError, match="action #1"):
        log_steps({"deck": list(range(52)), "actions": [0]})  # no draw in the opening offer


# ------------------------------------------------------------------ the page, without a browser
def test_html_page_is_self_contained_with_every_step_precomputed() -> None:
    page = replay_html(knock_log(), title="knock <hand>")
    assert "<title>knock &lt;hand&gt;</title>" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page), "the page loads something from outside"
    assert "<link" not in page and "@import" not in page
    data = embedded_data(page)
    assert [s["move"] for s in data["steps"]] == [None, "#1: Team takes 5♦ from the discard pile",
                                                  "#2: Team knocks, discarding 4♦"]
    assert data["steps"][-1]["model"]["showdown"][-1] == KNOCK_RESULT
    assert data["log"] == knock_log()
    assert "Team hand:" in data["steps"][0]["text"]  # the text table of gin3 replay


def test_embedded_json_cannot_close_the_script() -> None:
    log = knock_log()
    log["note"] = "</script><script>alert(1)</script>"
    page = replay_html(log)
    assert page.count("</script>") == 2  # the data's and the viewer's
    assert embedded_data(page)["log"]["note"] == log["note"]


# ------------------------------------------------------------------ the command line
def test_gin3_replay_writes_video_and_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("imageio", reason="videos need imageio (the 'video' extra)")
    log_path = tmp_path / "hand.json"
    save_json(log_path, knock_log())
    gif, mp4, page = tmp_path / "hand.gif", tmp_path / "hand.mp4", tmp_path / "hand.html"
    assert main(["replay", str(log_path), "--video", str(gif), "--html", str(page)]) == 0
    assert main(["replay", str(log_path), "--video", str(mp4), "--fps", "4"]) == 0
    out = capsys.readouterr().out
    assert "Viewer page (3 steps)" in out and "Video (3 steps at 4 per second)" in out
    from PIL import Image

    with Image.open(gif) as im:
        assert im.n_frames == 3 and im.size == (960, 640)
    import imageio.v2 as imageio

    with imageio.get_reader(str(mp4)) as reader:
        frames = reader.count_frames()
    assert frames == 3 + 3 * 4  # the showdown held 3 s at 4 frames per second
    assert embedded_data(page.read_text(encoding="utf-8"))["steps"][-1]["model"]["showdown"][-1] == KNOCK_RESULT
    assert not list(tmp_path.glob(".gin3-*"))  # no temporary file left


def test_gin3_replay_refuses_bad_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log_path = tmp_path / "hand.json"
    save_json(log_path, knock_log())
    assert main(["replay", str(log_path), "--video", str(tmp_path / "x.avi")]) == 2
    assert main(["replay", str(log_path), "--html", str(tmp_path / "missing" / "x.html")]) == 2
    assert main(["replay", str(log_path), "--html", str(tmp_path / "x.txt")]) == 2
    err = capsys.readouterr().err
    assert ".mp4 or .gif" in err and "no such folder" in err and ".html" in err
    assert not (tmp_path / "x.avi").exists()


def test_evaluate_save_logs_writes_replayable_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "logs"
    argv = ["heuristic", "heuristic", "--hands", "3", "--matches", "1", "--seed", "7"]
    assert cli_main([*argv, "--save-logs", str(folder), "--log-games", "2"]) == 0
    assert "5 game logs written" in capsys.readouterr().out
    names = sorted(p.name for p in folder.iterdir())
    assert names == [
        "hand_000_a_box.json",
        "hand_000_a_team.json",
        "hand_001_a_box.json",
        "hand_001_a_team.json",
        "match_000_a_seat0.json",
    ]
    first = json.loads((folder / "hand_000_a_team.json").read_text())
    deck = [int(c) for c in np.random.default_rng(7).permutation(52)]
    assert first["deck"] == deck  # the evaluation's first deal
    for path in folder.iterdir():
        assert log_steps(json.loads(path.read_text()))[-1].state.is_over
    assert cli_main(["heuristic", "openspiel-simple", "--save-logs", str(folder)]) == 2


# ------------------------------------------------------------------ in a real browser
def _chromium() -> str:
    browser = find_chromium()
    if browser is None:
        pytest.skip(f"no Chromium binary ({', '.join(BINARIES)}) on PATH: apt-get install chromium")
    return browser


def _dump_dom(browser: str, url: str, profile: Path) -> str:
    command = [browser, *chromium_flags(profile), "--dump-dom", url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


class _TextOf(HTMLParser):
    """The text of the element with a given id (its descendants' text, as ``textContent``)."""

    VOID = frozenset({"br", "img", "input", "meta", "link", "hr", "path", "circle", "rect"})

    def __init__(self, element_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.element_id, self.depth, self.found, self.parts = element_id, 0, False, []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        if self.depth:
            self.depth += 1
        elif dict(attrs).get("id") == self.element_id:
            self.depth, self.found = 1, True

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag not in self.VOID:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.parts.append(data)


def _by_id(dom: str, element_id: str) -> str:
    parser = _TextOf(element_id)
    parser.feed(dom)
    assert parser.found, f"no element #{element_id} in the page"
    return "".join(parser.parts).strip()


def test_viewer_in_headless_chromium_opens_at_the_showdown(tmp_path: Path) -> None:
    """``page.html#step=last`` shows the last step; the DOM Chromium dumps holds the result line."""
    browser = _chromium()
    match = heuristic_match()
    page, log_path = tmp_path / "match.html", tmp_path / "match.json"
    save_json(log_path, match.log())
    assert main(["replay", str(log_path), "--html", str(page)]) == 0
    steps = log_steps(match.log())
    last_hand = HandState.deal(deck=match.history[-1]["log"]["deck"])
    for action in match.history[-1]["log"]["actions"]:
        last_hand.apply(action)
    assert last_hand.result is not None
    expected = render_result(last_hand.result, names=steps[-1].names).splitlines()[-1]

    dom = _dump_dom(browser, page.as_uri() + "#step=last", tmp_path / "profile")
    assert _by_id(dom, "result") == expected, "the page does not show the showdown's result line"
    assert _by_id(dom, "counter") == f"step {len(steps)} / {len(steps)}"
    assert _by_id(dom, "panel-title") == "Showdown"
    assert "Match over:" in _by_id(dom, "notes")

    dom = _dump_dom(browser, page.as_uri() + "#step=2", tmp_path / "profile")
    assert _by_id(dom, "counter") == f"step 2 / {len(steps)}"
    assert _by_id(dom, "result") == ""
    assert steps[1].move is not None and _by_id(dom, "panel-lines") == steps[1].move
    assert dom.count('data-card="') >= 21  # both hands face up, and the upcard


def test_viewer_in_headless_chromium_steps_with_keys_buttons_and_play(tmp_path: Path) -> None:
    """A person's use, through the DevTools protocol: keys, clicks, play; a screenshot is kept."""
    binary = _chromium()
    deck = [int(c) for c in np.random.default_rng(4).permutation(52)]
    hand = play_deal(HeuristicPolicy(), HeuristicPolicy(), deck)
    assert hand.result is not None
    n = len(hand.actions) + 1
    expected = render_result(hand.result).splitlines()[-1]
    page = tmp_path / "hand.html"
    write_html(page, hand.log(), title="a heuristic hand")
    with Browser(binary, tmp_path / "profile") as browser:
        browser.open(page.as_uri(), ready="document.getElementById('counter').textContent !== ''")
        assert browser.text("counter") == f"step 1 / {n}"
        assert browser.eval("document.title") == "a heuristic hand"
        assert browser.text("panel-title") == "Last move" and browser.text("result") == ""
        browser.press("ArrowRight")
        assert browser.text("counter") == f"step 2 / {n}" and browser.eval("location.hash") == "#step=2"
        assert browser.text("panel-lines") == log_steps(hand.log())[1].move
        browser.click("next")
        assert browser.text("counter") == f"step 3 / {n}"
        browser.press("ArrowLeft")
        browser.click("prev")
        assert browser.text("counter") == f"step 1 / {n}"
        browser.press("End")
        assert browser.text("counter") == f"step {n} / {n}"
        assert browser.text("panel-title") == "Showdown" and browser.text("result") == expected
        shot = tmp_path / "showdown.png"
        browser.screenshot(shot)
        browser.press("Home")
        assert browser.text("counter") == f"step 1 / {n}"
        browser.click("play")
        assert browser.text("play") == "pause"
        browser.wait_for(f"document.getElementById('counter').textContent === 'step 3 / {n}'", timeout=20)
        browser.press(" ")  # pauses
        assert browser.text("play") == "play"
        paused = browser.text("counter")
        time.sleep(1.0)
        assert browser.text("counter") == paused
    from PIL import Image

    with Image.open(shot) as im:
        assert im.width >= 1000 and im.height >= 600, im.size
        colours = im.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, "the screenshot is blank"
    print(f"\nviewer screenshot: {shot}")
