"""A tiny training run end to end, in a subprocess, and resuming from its checkpoint."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

TINY = [
    "--total-timesteps", "512",
    "--n-envs", "2",
    "--vec-env", "dummy",
    "--n-steps", "128",
    "--batch-size", "128",
    "--n-epochs", "1",
    "--bc-samples", "300",
    "--bc-epochs", "1",
    "--eval-every", "256",
    "--eval-hands", "4",
    "--checkpoint-every", "256",
    "--final-eval-hands", "4",
    "--progress-bar", "false",
]


def _train(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "gin3_env.cli", "train", "--config", "quick", "--out-dir", str(tmp_path),
           "--run-name", "tiny", *TINY, *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def test_tiny_training_run_writes_model_evaluation_and_plot(tmp_path: Path) -> None:
    done = _train(tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    run = tmp_path / "tiny"
    for name in ("best.zip", "final.zip", "checkpoint.zip", "checkpoint.json", "eval_history.json",
                 "final_eval.json", "learning_curve.png", "config.json"):
        assert (run / name).is_file(), name
    assert not list(run.glob("*.partial*")), "temporary files left behind"
    assert list((run / "tb").rglob("events.out.tfevents.*")), "no TensorBoard log"
    summary = json.loads((run / "final_eval.json").read_text())
    assert summary["num_timesteps"] >= 512
    assert set(summary["vs"]) == {"heuristic", "random"}
    assert "points/hand" in done.stdout and "heuristic" in done.stdout

    # shipping copies best.zip without the optimizer state, with a description beside it
    from gin3_env.policies import load_policy
    from gin3_env.training.ship import ship

    shipped = ship(run, extra={"note": "test"}, dest=tmp_path / "shipped" / "model.zip")
    assert shipped.stat().st_size < (run / "best.zip").stat().st_size
    meta = json.loads(shipped.with_suffix(".json").read_text())
    assert meta["note"] == "test" and meta["config"]["run_name"] == "tiny"
    policy = load_policy(str(shipped))
    assert policy.obs_dim == 586  # the card-aware model reads the derived features

    # resume continues the step count from the checkpoint
    checkpoint_steps = json.loads((run / "checkpoint.json").read_text())["num_timesteps"]
    resumed = _train(tmp_path, "--resume", str(run / "checkpoint.zip"), "--total-timesteps", "1024")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"resumed from {run / 'checkpoint.zip'} at step {checkpoint_steps:,}" in resumed.stdout
    after = json.loads((run / "final_eval.json").read_text())
    assert after["num_timesteps"] >= 1024 > checkpoint_steps


def test_resume_from_missing_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    done = _train(tmp_path, "--resume", str(tmp_path / "nope.zip"))
    assert done.returncode != 0
    assert "nope.zip" in done.stderr


def test_bad_config_value_is_a_usage_error(tmp_path: Path) -> None:
    done = _train(tmp_path, "--learner", "sitter")
    assert done.returncode == 2
    assert "learner" in done.stderr
