"""Help that lists every policy spec from one place, and refusals that come at once and name the problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import gin3_env.policies as policies
from gin3_env.cli import build_parser, main
from gin3_env.engine.match import MatchState
from gin3_env.evaluation import cli_main, play_seats
from gin3_env.evaluation.cli import build_parser as evaluate_parser
from gin3_env.files import save_json
from gin3_env.policies import HeuristicPolicy, check_policy_spec, policy_spec_help

SPECS = ("random", "heuristic", "search", "gated", "ppo", "rllib:PATH", ".json", ".zip")


def flat(text: str) -> str:
    return " ".join(text.split())


def subcommand_help(name: str) -> str:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return flat(action.choices[name].format_help())  # type: ignore[attr-defined]


# ------------------------------------------------------------------ help
def test_the_spec_list_names_every_kind_of_policy() -> None:
    text = policy_spec_help()
    for spec in SPECS:
        assert spec in text, spec


@pytest.mark.parametrize("command", ["evaluate", "play"])
def test_every_command_that_takes_a_policy_lists_the_same_specs(command: str) -> None:
    text = flat(evaluate_parser().format_help()) if command == "evaluate" else subcommand_help("play")
    assert flat(policy_spec_help()) in text
    for spec in SPECS:
        assert spec in text, f"gin3 {command} --help does not mention {spec}"


def test_replay_help_says_where_logs_come_from() -> None:
    text = subcommand_help("replay")
    assert "gin3 evaluate A B --save-logs DIR" in text and "gin3 play --save-log FILE" in text


# ------------------------------------------------------------------ specs checked first
@pytest.mark.parametrize("argv", [["gated", "nowhere/missing.zip"], ["nowhere/missing.zip", "gated"]])
def test_evaluate_refuses_a_missing_model_in_any_position_before_loading_any(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded: list[Any] = []
    real = policies.load_policy

    def spy(spec: Any, **kwargs: Any) -> Any:
        loaded.append(spec)
        return real(spec, **kwargs)

    monkeypatch.setattr(policies, "load_policy", spy)
    assert cli_main([*argv, "--hands", "2", "--matches", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gin3 evaluate: error: ") and "nowhere/missing.zip not found" in err
    assert loaded == [], f"loaded {loaded} before refusing the missing file"


def test_check_policy_spec_refuses_without_loading(tmp_path: Path) -> None:
    for good in ("random", "heuristic", "search", "search:samples=4", "gated", "ppo"):
        check_policy_spec(good)
    with pytest.raises(ValueError, match="unknown policy 'foo': choose random, heuristic, search"):
        check_policy_spec("foo")
    with pytest.raises(FileNotFoundError, match="RLlib checkpoint not found"):
        check_policy_spec(f"rllib:{tmp_path / 'none'}")
    with pytest.raises(ValueError, match="bad search option"):
        check_policy_spec("search:nonsense=1")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        check_policy_spec(str(tmp_path / "gate.json"))  # a gate file (gin3 train-gate)
    not_zip = tmp_path / "model.zip"
    not_zip.write_text("{}")
    with pytest.raises(policies.ModelFileError, match="not a zip file"):
        check_policy_spec(str(not_zip))


def test_play_refuses_a_bad_opponent_first_in_the_common_form(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["play", "--opponent", "foo"], ["play", "--match", "--opponent", "nowhere/missing.zip"]):
        assert main(argv) == 2
        out = capsys.readouterr()
        assert out.err.startswith(f"gin3 play: error: --opponent {argv[-1]}: "), out.err
        assert out.out == "", "gin3 play showed the table (or the draw for roles) before refusing the opponent"


# ------------------------------------------------------------------ logs
def match_log() -> dict[str, Any]:
    match: MatchState = play_seats([HeuristicPolicy()] * 3, np.random.default_rng(4))
    return match.log()


@pytest.mark.parametrize("output", [[], ["--html", "page.html"]])
def test_replay_names_the_bad_field(tmp_path: Path, output: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    log = match_log()
    extra = [str(tmp_path / o) if o.endswith(".html") else o for o in output]
    bad_score = json.loads(json.dumps(log))
    bad_score["hands"][0]["scores"] = ["twelve", 0, 0]
    cases = {
        "scores": bad_score,
        "version": {**log, "version": 99},
        "players": {**log, "players": ["heuristic"]},
    }
    hand = log["hands"][0]["log"]
    cases["hand version"] = {**hand, "version": "2"}
    for field, data in cases.items():
        path = tmp_path / "bad.json"
        save_json(path, data)
        assert main(["replay", str(path), "--all", *extra]) == 2, field
        err = capsys.readouterr().err
        assert err.startswith("gin3 replay: error: "), err
        assert f"'{field.split()[-1]}'" in err, f"the error does not name {field}: {err}"
    assert not (tmp_path / "page.html").exists()


def test_a_log_of_this_version_or_without_one_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = match_log()
    assert log["version"] == 1
    for data in (log, {k: v for k, v in log.items() if k != "version"}):
        path = tmp_path / "ok.json"
        save_json(path, data)
        assert main(["replay", str(path), "--all", "--ascii"]) == 0
        assert "Match over: Seat" in capsys.readouterr().out


# ------------------------------------------------------------------ the lab's doors: a config's near miss, the backends
@pytest.mark.parametrize("argv", [["train", "--config", "quik"], ["train-gate", "--config", "quik", "--out", "x"],
                                  ["train", "--config", "ppo_quik"]])
def test_a_mistyped_config_gets_a_did_you_mean_at_every_door(argv: list[str],
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    meant = "ppo_quick" if "ppo_quik" in argv else "quick"
    try:
        status = main(argv)
    except SystemExit as exc:  # a door's parser.error
        status = int(exc.code or 0)
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert f"did you mean {meant!r}?" in err and "\n" not in err, err


@pytest.mark.parametrize("config", ["quick", "ppo_quick"])
def test_train_help_lists_both_backends(config: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``gin3 train --help`` listed ``--backend {sb3}`` while its text offered ``--backend rllib``."""
    pytest.importorskip("torch")
    with pytest.raises(SystemExit):
        main(["train", "--config", config, "--help"])
    text = flat(capsys.readouterr().out)
    assert "--backend {sb3,rllib}" in text and "rllib: Ray RLlib" in text and "--backend {sb3}" not in text
