"""Saved games name who played each seat, and the text replay, the viewer page and the video show it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gin3_env.cli import main
from gin3_env.evaluation import cli_main
from gin3_env.render.html import replay_html
from gin3_env.render.steps import log_steps


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("logs")
    argv = ["heuristic", "random", "--hands", "1", "--matches", "2", "--seed", "7", "--no-progress"]
    assert cli_main([*argv, "--save-logs", str(folder), "--log-games", "2"]) == 0
    return folder


def read(folder: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / name).read_text())
    return data


def test_evaluate_logs_record_each_seats_spec(logs: Path) -> None:
    assert read(logs, "hand_000_a_team.json")["players"] == ["heuristic", "random"]
    assert read(logs, "hand_000_a_box.json")["players"] == ["random", "heuristic"]
    assert read(logs, "match_000_a_seat0.json")["players"] == ["heuristic", "random", "random"]
    assert read(logs, "match_001_a_seat1.json")["players"] == ["random", "heuristic", "random"]


def test_steps_and_the_viewer_name_the_players(logs: Path) -> None:
    hand = read(logs, "hand_000_a_box.json")
    model = log_steps(hand)[-1].model()
    assert {row["name"] for row in model["rows"]} == {"Team (random)", "Box (heuristic)"}
    match = read(logs, "match_001_a_seat1.json")
    steps = log_steps(match)
    roles = steps[0].roles
    assert roles is not None
    first = steps[0].model()
    assert first["scores"] is not None and f"Seat 1 (heuristic, {roles.role_of(1)})" in first["scores"]
    assert first["scores"] is not None and "Seat 1 (heuristic, " in first["scores"]
    assert "Seat 0 (random, " in first["scores"] and "Seat 2 (random, " in first["scores"]
    assert steps[0].heading.startswith("Hand 1: Seat ") and "(heuristic)" in steps[0].heading
    page = replay_html(match)
    found = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S)
    assert found
    data = json.loads(found.group(1))
    shown = {row["name"] for step in data["steps"] for row in step["model"]["rows"]}
    assert any(name.startswith("Seat 1 (heuristic, ") for name in shown), shown


def test_the_video_frames_draw_the_names(logs: Path) -> None:
    pytest.importorskip("PIL")
    from gin3_env.render.video import video_frames

    hand = read(logs, "hand_000_a_team.json")
    anonymous = {k: v for k, v in hand.items() if k != "players"}
    named = next(video_frames(log_steps(hand)))[0]
    plain = next(video_frames(log_steps(anonymous)))[0]
    rows = np.nonzero(np.any(named != plain, axis=(1, 2)))[0]
    assert rows.size, "the frame is the same with and without the players' names"
    assert rows.min() >= 58, "only the name lines (below the title bar) should change"


def test_text_replay_names_the_players(logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(logs / "hand_000_a_team.json"), "--all", "--ascii"]) == 0
    out = capsys.readouterr().out
    assert "Team (heuristic) hand:" in out and "Box (random) hand:" in out
    assert main(["replay", str(logs / "match_000_a_seat0.json"), "--all", "--ascii"]) == 0
    out = capsys.readouterr().out
    assert "Seat 0 (heuristic, " in out and "Match scores after hand 1: Seat 0 (heuristic) " in out


def test_a_bad_players_field_is_refused(logs: Path) -> None:
    hand = read(logs, "hand_000_a_team.json")
    for bad in (["heuristic"], "heuristic", ["heuristic", 3], ["heuristic", ""]):
        with pytest.raises(ValueError, match="'players' must be 2 policy names"):
            log_steps({**hand, "players": bad})
