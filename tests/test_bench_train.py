"""``gin3 bench --only train``: the FLOPs a sample costs, the matmul rate, the report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")


def test_flops_per_sample_counts_the_rollout_forward_and_the_updates() -> None:
    from sb3_contrib import MaskablePPO

    from gin3_env.vector.sb3_env import GinSB3VecEnv
    from gin3_training.benchmarks.train import flops_per_sample

    env = GinSB3VecEnv(2, features="plain")
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=32, device="cpu",
                        policy_kwargs={"net_arch": [32, 16]})
    obs = 374
    macs = 2 * (obs * 32 + 32 * 16) + 16 * 107 + 16 * 1  # policy and value MLPs, then the two heads
    flops = flops_per_sample(model.policy, n_epochs=3)
    assert flops["rollout_forward"] == 2 * macs
    assert 2 * macs < flops["update_pass"] <= 3 * 2 * macs  # the backward adds at most twice the forward
    assert flops["per_sample"] == flops["rollout_forward"] + 3 * flops["update_pass"]


def test_matmul_rate_is_measured_for_both_precisions() -> None:
    from gin3_training.benchmarks.train import matmul_rate

    for precision in ("fp32", "bf16"):
        rate = matmul_rate(precision, seconds=0.3, size=256)
        assert rate["size"] == 256 and rate["gflops"] > 0


def test_the_benchmarks_time_the_ppo_trainers_quick_config() -> None:
    """``gin3 bench --only train`` (its PPO rate and its batched-against-subproc row) sets PPO up from the PPO trainer's
    quick config; they read ``quick`` after it became the network's distillation config, and failed."""
    from gin3_training.benchmarks.train import ppo_rate, train_rate

    ppo = ppo_rate("fp32", 256)  # one rollout of the config's batched env, and its update
    assert ppo["steps"] >= 256 and ppo["rollout_samples_per_s"] > ppo["samples_per_s"] > 0
    row = train_rate("batched", 256)
    assert row["steps"] >= 256 and row["samples_per_s"] > 0


@pytest.mark.slow
def test_bench_train_reports_rates_against_the_matmul_rate(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    done = subprocess.run([sys.executable, "-m", "gin3_env.cli", "bench", "--only", "train", "--quick",
                           "--json", str(out)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())["train"]
    for precision in ("fp32", "bf16"):
        ratio = report["ratios"][precision]
        ppo = report["ppo"][precision]
        assert ppo["rollout_samples_per_s"] > ppo["samples_per_s"] > 0
        assert ratio["per_gflops"] == pytest.approx(ppo["samples_per_s"] / report["matmul"][precision]["gflops"])
    assert "samples/s per GFLOP/s" in done.stdout and "target" not in done.stdout


def test_the_report_names_no_internal_target() -> None:
    """What ``gin3 bench`` prints is measured figures and their bounds, never a figure someone aimed at."""
    from gin3_training.benchmarks.train import format_report

    rates = {"samples_per_s": 1000.0, "rollout_samples_per_s": 3000.0, "samples_per_wall_s": 900.0,
             "flops": {"per_sample": 2e6, "rollout_forward": 5e5, "update_pass": 5e5}}
    ratio = {"per_gflops": 20.0, "bound_per_gflops": 500.0}
    report = {"benchmark": "PPO", "cpus": 2, "matmul": {p: {"size": 1024, "gflops": 50.0} for p in ("fp32", "bf16")},
              "ppo": {"fp32": rates, "bf16": rates}, "ratios": {"fp32": ratio, "bf16": ratio},
              "threads": {"1": 100.0, "2_passive": 150.0, "2_default": 50.0},
              "vec_envs": {"batched": {**rates, "sampling_samples_per_wall_s": 5000.0},
                           "subproc": {**rates, "sampling_samples_per_wall_s": 500.0}}}
    text = format_report(report)
    assert "samples/s per GFLOP/s: 20.0 (the FLOP bound is 500)" in text and "target" not in text
