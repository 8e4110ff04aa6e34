"""Where the batched core is used: evaluate_hands' batched path, training on the batched env."""

from __future__ import annotations

import json
from pathlib import Path

import forkrun
import numpy as np
import pytest

from gin3_env.evaluation import evaluate_hands
from gin3_env.evaluation.batched_hands import batched_form
from gin3_env.policies import SIMPLE, HeuristicPolicy, RandomPolicy


def _without_time(report) -> dict:
    data = report.to_dict()
    data.pop("seconds")
    return data


def test_batched_evaluation_gives_the_scalar_report_field_for_field() -> None:
    a, b = HeuristicPolicy(), HeuristicPolicy(SIMPLE)
    for seat_baseline in (False, True):
        scalar = evaluate_hands(a, b, 30, seed=5, seat_baseline=seat_baseline, batched=False)
        batched = evaluate_hands(a, b, 30, seed=5, seat_baseline=seat_baseline, batched=True)
        assert _without_time(batched) == _without_time(scalar)
    assert scalar.to_text().splitlines()[:-1] == batched.to_text().splitlines()[:-1]


class _FirstLegal:
    """A policy with no batched form."""

    name = "first-legal"

    def act(self, observation: dict) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_batched_evaluation_only_for_policies_with_batched_forms() -> None:
    assert batched_form(RandomPolicy(0)) is None  # not by default: its draws would not be the scalar loop's
    assert batched_form(RandomPolicy(0), random_ok=True) is not None
    with pytest.raises(ValueError, match="batched=True"):
        evaluate_hands(HeuristicPolicy(), _FirstLegal(), 5, batched=True)
    # automatic: a random side keeps the scalar loop (its results do not change)
    auto = evaluate_hands(HeuristicPolicy(SIMPLE), RandomPolicy(1), 60, seed=2)
    scalar = evaluate_hands(HeuristicPolicy(SIMPLE), RandomPolicy(1), 60, seed=2, batched=False)
    assert _without_time(auto) == _without_time(scalar)


def test_training_samples_from_the_batched_env_and_logs_samples_per_second(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    args = ["train", "--config", "ppo_quick", "--out-dir", str(tmp_path), "--run-name", "tiny",
            "--total-timesteps", "512", "--batched-envs", "16", "--n-steps", "128", "--batch-size", "128",
            "--n-epochs", "1", "--bc-samples", "300",
            "--bc-epochs", "1", "--eval-every", "0", "--checkpoint-every", "0", "--final-eval-hands", "4",
            "--progress-bar", "false"]
    done = forkrun.run(args, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "samples/s" in done.stdout and "(batched env)" in done.stdout
    config = json.loads((tmp_path / "tiny" / "config.json").read_text())
    assert config["vec_env"] == "batched"
    assert json.loads((tmp_path / "tiny" / "final_eval.json").read_text())["num_timesteps"] >= 512
