"""Every flag of ``gin3 evaluate`` and ``gin3 play`` is checked before anything is loaded or played, and
what was measured is printed before anything that could still fail is written."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

import gin3_env.evaluation.cli as evaluate_cli
import gin3_env.play.commands as play_commands
from gin3_env.cli import main
from gin3_env.evaluation import cli_main


@pytest.fixture
def nothing_played(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Loading or playing anything is recorded and fails the command with an AssertionError (which no
    command turns into a refusal)."""
    done: list[str] = []

    def forbidden(name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            done.append(name)
            raise AssertionError(f"{name} ran before the refusal")

        return call

    for name in ("_load", "evaluate_hands", "evaluate_matches", "evaluate_openspiel_hands",
                 "evaluate_openspiel_matches"):
        monkeypatch.setattr(evaluate_cli, name, forbidden(name))
    monkeypatch.setattr(play_commands, "play_hand", forbidden("play_hand"))
    monkeypatch.setattr(play_commands, "play_match", forbidden("play_match"))
    monkeypatch.setattr(play_commands, "load_opponent", forbidden("load_opponent"))
    return done


def _linked(tmp_path: Path) -> str:
    (tmp_path / "target").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "target")
    return str(tmp_path / "linked")


def _a_file(tmp_path: Path) -> str:
    (tmp_path / "file.txt").write_text("x")
    return str(tmp_path / "file.txt")


EVALUATE_REFUSALS = [
    (lambda t: ["--save-logs", str(t / "logs"), "--log-games", "0"], "--log-games must be >= 1"),
    (lambda t: ["--save-logs", _linked(t)], "symbolic link"),
    (lambda t: ["--save-logs", _a_file(t)], "exists and is not a folder"),
    (lambda t: ["--json", str(t / "missing" / "out.json")], "no such folder"),
    (lambda t: ["--json", str(t)], "is a folder"),
    (lambda t: ["--rules", '{"knock_limit": 5}', "--vs-openspiel"], "--rules does not apply to OpenSpiel"),
    (lambda t: ["--rules", '{"knock_limt": 5}'], "--rules"),
    (lambda t: ["--hands", "-1"], "--hands must be >= 1, got -1"),
]


@pytest.mark.parametrize(("extra", "message"), EVALUATE_REFUSALS)
def test_evaluate_refuses_each_bad_flag_before_loading_or_playing(
    tmp_path: Path, nothing_played: list[str], capsys: pytest.CaptureFixture[str], extra: Any, message: str
) -> None:
    assert cli_main(["heuristic", "random", "--hands", "300", "--matches", "30", *extra(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gin3 evaluate: error: ") and message in err, err
    assert len(err.strip().splitlines()) == 1, err  # no progress line before it
    assert nothing_played == []


@pytest.mark.parametrize("argv", [["heuristic", "--vs-openspiel", "--seat-baseline"],
                                  ["heuristic", "openspiel-simple", "--save-logs", "logs"]])
def test_evaluate_refuses_flags_that_need_a_policy_b_of_ours_before_playing(
    argv: list[str], nothing_played: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main([*argv, "--hands", "300"]) == 2
    assert "needs a policy B of this package" in capsys.readouterr().err
    assert nothing_played == []


def test_a_missing_openspiel_is_said_before_a_plays_b(
    nothing_played: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gin3_env.interop.openspiel as openspiel

    def missing() -> Any:
        raise ImportError("the OpenSpiel adapter needs open-spiel: pip install 'gin3_env[openspiel]'")

    monkeypatch.setattr(openspiel, "import_pyspiel", missing)
    assert cli_main(["heuristic", "random", "--hands", "300", "--vs-openspiel"]) == 2
    assert "gin3_env[openspiel]" in capsys.readouterr().err
    assert nothing_played == []


def test_a_json_file_that_cannot_be_written_at_the_end_keeps_the_printed_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full_disk(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(evaluate_cli, "save_json", full_disk)
    status = cli_main(["heuristic", "random", "--hands", "2", "--matches", "0", "--no-progress",
                       "--json", str(tmp_path / "out.json"), "--save-logs", str(tmp_path / "logs"),
                       "--log-games", "1"])
    out, err = capsys.readouterr()
    assert status == 1
    assert "heuristic" in out and "random" in out  # the report
    assert "cannot write --json" in err and "No space left on device" in err
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == ["hand_000_a_box.json", "hand_000_a_team.json"]


def test_logs_that_cannot_be_written_at_the_end_keep_the_results_and_the_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(args: argparse.Namespace, result: Any) -> None:
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(evaluate_cli, "save_logs", refuse)
    out_json = tmp_path / "out.json"
    status = cli_main(["heuristic", "random", "--hands", "2", "--matches", "0", "--no-progress",
                       "--json", str(out_json), "--save-logs", str(tmp_path / "logs")])
    out, err = capsys.readouterr()
    assert status == 1 and "results written to" in out
    assert json.loads(out_json.read_text())["reports"]["hands"]
    assert "game logs were not written" in err and "Permission denied" in err


@pytest.mark.parametrize(("target", "message"), [("missing/game.json", "no such folder"), (".", "is a folder")])
def test_play_refuses_a_save_log_it_could_not_write_before_the_game(
    tmp_path: Path, nothing_played: list[str], capsys: pytest.CaptureFixture[str], target: str, message: str
) -> None:
    assert main(["play", "--opponent", "random", "--save-log", str(tmp_path / target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gin3 play: error: --save-log ") and message in err, err
    assert nothing_played == []


def test_bench_refuses_a_json_it_could_not_write_before_measuring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gin3_env.benchmarks as benchmarks

    monkeypatch.setattr(benchmarks, "_load", lambda name: pytest.fail(f"benchmark {name} ran before the refusal"))
    with pytest.raises(SystemExit) as exc:
        benchmarks.main(["--only", "engine", "--json", str(tmp_path / "missing" / "bench.json")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("gin3 bench: error: --json ") and "no such folder" in err, err
