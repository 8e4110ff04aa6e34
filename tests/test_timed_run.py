"""Training under a time limit: max_minutes stops PPO; the timed run writes the model and its table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import forkrun
import pytest

pytest.importorskip("sb3_contrib")

SMALL = [
    "--batched-envs", "64", "--n-envs", "2", "--n-steps", "256", "--batch-size", "256", "--n-epochs", "1",
    "--net-arch", "[64, 64]", "--bc-samples", "1000", "--bc-epochs", "1", "--bc-batch-size", "256",
    "--eval-every", "2048", "--eval-hands", "20", "--checkpoint-every", "2048", "--final-eval-hands", "30",
    "--progress-bar", "false",
]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=900)


@pytest.mark.pipelines
def test_max_minutes_stops_ppo_and_the_run_still_ends_with_its_evaluation(tmp_path: Path) -> None:
    done = forkrun.run(["train", "--config", "ppo_quick", "--out-dir", str(tmp_path), "--run-name", "t", *SMALL,
                        "--total-timesteps", "10000000", "--max-minutes", "0.0001"], timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "max_minutes 0.0001 reached" in done.stdout
    summary = json.loads((tmp_path / "t" / "final_eval.json").read_text())
    assert 0 < summary["num_timesteps"] < 10_000_000
    assert set(summary["vs"]) == {"heuristic", "random"}


def test_timed_run_refuses_bad_arguments(tmp_path: Path) -> None:
    done = _run("-m", "gin3_training.ppo.timed_run", "--minutes", "0", "--out", str(tmp_path / "x"))
    assert done.returncode == 2 and "--minutes must be > 0" in done.stderr
    (tmp_path / "file").write_text("")
    done = _run("-m", "gin3_training.ppo.timed_run", "--minutes", "1", "--out", str(tmp_path / "file"))
    assert done.returncode == 2 and "is not a folder" in done.stderr
    done = _run("-m", "gin3_training.ppo.timed_run", "--minutes", "1", "--out", str(tmp_path / "y"),
                "--precision", "fp16")
    assert done.returncode == 2 and "precision" in done.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


@pytest.mark.slow
def test_the_gpu_config_trains_and_evaluates_under_a_time_limit_on_cpu(tmp_path: Path) -> None:
    out = tmp_path / "gpu"
    done = _run("-m", "gin3_training.ppo.timed_run", "--config", "gpu", "--minutes", "0.75", "--out", str(out),
                *SMALL, "--device", "cpu")
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((out / "final_eval.json").read_text())
    assert 0 < summary["num_timesteps"] < 100_000_000  # stopped by the limit, not by total_timesteps
    table = (out / "evaluation.md").read_text()
    from gin3_training.ppo.precision import resolve_precision

    precision = resolve_precision("auto", "cpu")  # bf16 on a CPU with bf16 instructions, else fp32
    assert f"Config `gpu` on cpu ({precision})" in table and "| heuristic |" in table and "| random |" in table
    from gin3_env.observation import AUGMENTED_SIZE
    from gin3_env.policies import load_policy

    policy = load_policy(str(out / "best.zip"))
    assert policy.obs_dim == AUGMENTED_SIZE
    again = _run("-m", "gin3_training.ppo.timed_run", "--config", "gpu", "--minutes", "1", "--out", str(out))
    assert again.returncode == 2 and "already holds a run" in again.stderr
