"""No command takes an abbreviation of a flag, and an unknown flag is named with the closest known one."""

from __future__ import annotations

import pytest

from gin3_env.cli import main
from gin3_env.evaluation import cli_main as evaluate_main


def _refusal(capsys: pytest.CaptureFixture[str], call: object) -> str:
    with pytest.raises(SystemExit) as exc:
        call()  # type: ignore[operator]
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_an_abbreviated_flag_is_refused_not_taken_for_the_long_one(capsys: pytest.CaptureFixture[str]) -> None:
    err = _refusal(capsys, lambda: evaluate_main(["heuristic", "random", "--hand", "3"]))
    assert err.startswith("gin3 evaluate: error: unrecognized arguments: --hand 3")
    assert "--hand: did you mean --hands?" in err


def test_an_unknown_flag_gets_a_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib")
    from gin3_training.train import main as train_main

    err = _refusal(capsys, lambda: train_main(["--config", "ppo_quick", "--totl-timesteps", "100"]))  # PPO's door
    assert "--totl-timesteps: did you mean --total-timesteps?" in err
    err = _refusal(capsys, lambda: train_main(["--teacher-decsions", "100"]))  # the default: distillation's door
    assert "--teacher-decsions: did you mean --teacher-decisions?" in err
    err = _refusal(capsys, lambda: main(["play", "--rol", "box"]))  # a subcommand of the gin3 parser
    assert "--rol: did you mean --role?" in err
    err = _refusal(capsys, lambda: evaluate_main(["heuristic", "random", "--zzzz"]))
    assert "did you mean" not in err  # nothing close: no guess
