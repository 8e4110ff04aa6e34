"""The steps of ``train()``: the rollout size and the stopping step come from the model in use
(the batched env scales ``n_steps``; a resumed model keeps its checkpoint's), progress runs
against that step, and a resumed model that already has its steps is evaluated and saved."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import forkrun
import pytest

pytest.importorskip("sb3_contrib")

import gin3_env
from gin3_training.ppo import monitor as monitoring
from gin3_training.ppo import train as training
from gin3_training.ppo.config import TrainConfig, load_config
from gin3_training.ppo.envs import make_vec_env
from gin3_training.run.signals import GracefulStop


class RecordingStop(GracefulStop):
    """Records what ``learn`` was asked instead of learning."""

    def learn(self, model: Any, callback: Any = None, **kwargs: Any) -> Any:
        self.asked = kwargs
        return model


def _cfg(tmp_path: Path, **overrides: Any) -> Any:
    base = {"out_dir": str(tmp_path), "run_name": "r", "bc_samples": 0, "policy": "mlp", "net_arch": [8],
            "batch_size": 64, "progress_bar": False}
    return load_config("ppo_quick", {**base, **overrides})


def test_the_batched_env_rolls_out_the_scaled_n_steps_and_says_so(tmp_path: Path, capsys) -> None:
    cfg = _cfg(tmp_path, vec_env="batched", n_envs=2, batched_envs=4, n_steps=128, total_timesteps=600)
    env = make_vec_env(cfg)
    model = training.new_model(cfg, env)
    assert model.n_steps == 64  # 128 x 2 scalar envs' samples per rollout, over 4 hands
    assert training.ppo_target(model, cfg.total_timesteps) == (256, 768)
    monitor = monitoring.TrainingMonitor(cfg, monitoring.fresh_state())
    stop = RecordingStop(tmp_path)
    training.learn(cfg, model, env, monitor, stop)
    out = capsys.readouterr().out
    assert "whole rollouts of 256 steps (n_steps 64 x 4 envs): total_timesteps 600 rounds up to 768" in out
    assert monitor.target == 768 and stop.asked["total_timesteps"] == 768
    env.close()


@pytest.mark.pipelines
def test_a_resumed_model_keeps_its_n_steps_and_progress_runs_to_its_target(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    first = _cfg(tmp_path, vec_env="dummy", n_envs=2, n_steps=64, total_timesteps=128)
    env = make_vec_env(first)
    model = training.new_model(first, env)
    model.num_timesteps = 1000
    model.save(tmp_path / "ckpt.zip")
    env.close()
    cfg = _cfg(tmp_path, vec_env="dummy", n_envs=2, n_steps=512, total_timesteps=3000,
               resume=str(tmp_path / "ckpt.zip"), run_name="r2")
    env = make_vec_env(cfg)
    resumed = training.resumed_model(cfg, env)
    assert resumed.n_steps == 64 and resumed.num_timesteps == 1000
    assert training.ppo_target(resumed, cfg.total_timesteps) == (128, 3048)  # 1000 + 16 rollouts of 128
    monitor = monitoring.TrainingMonitor(cfg, monitoring.fresh_state())
    monitor.lines = True
    clock = iter([0.0, 0.0, 100.0, 100.0])
    monkeypatch.setattr(monitoring.time, "monotonic", lambda: next(clock))
    monitor.start(1000, 3048)
    monitor.progress_line(2024)  # 1,024 steps in 100 s since the resume: 1,024 left, 100 s
    line = capsys.readouterr().out
    assert "step 2,024 of 3,048 (66%)" in line and "10 steps/s" in line and "about 100 s left" in line, line
    env.close()


@pytest.mark.pipelines
def test_resuming_a_model_that_already_has_the_steps_evaluates_and_saves_it(tmp_path: Path) -> None:
    """The shipped model copied without its description, resumed with fewer steps than it has."""
    copy = tmp_path / "copy.zip"
    shutil.copy(Path(gin3_env.__file__).parent / "models" / "ppo.zip", copy)
    done = forkrun.run(
        ["train", "--resume", str(copy), "--total-timesteps", "2048", "--out-dir", str(tmp_path / "out"), "--run-name",
         "r", "--eval-hands", "2", "--final-eval-hands", "2", "--select-hands", "2", "--progress-bar", "false"],
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "nothing to learn" in done.stdout
    run = tmp_path / "out" / "r"
    summary = json.loads((run / "final_eval.json").read_text())
    history = json.loads((run / "eval_history.json").read_text())
    assert [h["step"] for h in history] == [summary["num_timesteps"]]  # the last step, evaluated once
    assert (run / "checkpoint.zip").is_file() and (run / "final.zip").is_file() and (run / "best.zip").is_file()


def test_off_a_terminal_training_writes_a_line_a_minute_not_one_per_rollout(tmp_path: Path, capsys,
                                                                           monkeypatch) -> None:
    """The default config's 800 rollouts made 800 lines; now a progress line at most every progress_every
    seconds (60 by default), carrying the last rollout's sampling speed."""
    cfg = _cfg(tmp_path, vec_env="dummy", n_envs=2, n_steps=64, total_timesteps=128)
    assert TrainConfig().progress_every == 60 and cfg.progress_every == 60
    monitor = monitoring.TrainingMonitor(cfg, monitoring.fresh_state())
    monitor.lines = True
    now = [0.0]
    monkeypatch.setattr(monitoring.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(monitoring.time, "perf_counter", lambda: now[0])
    monitor.start(0, 2048 * 100)

    class Model:
        num_timesteps = 0

    class Logger:
        dir = None

        def record(self, key: str, value: float) -> None:
            pass

    model = Model()
    for _ in range(100):  # 100 rollouts of 2,048 steps, one every 10 s
        monitor.rollout_started(model)
        for _ in range(8):
            now[0] += 10 / 8
            model.num_timesteps += 256
            monitor.progress_line(model.num_timesteps)
        monitor.rollout_ended(model, Logger())
    lines = capsys.readouterr().out.splitlines()
    assert 10 <= len(lines) <= 17, lines  # 1,000 s: a line a minute
    assert all(line.startswith("[ppo] step") for line in lines) and "(sampling 205 samples/s)" in lines[-1]


def test_a_training_run_lists_its_stages_at_the_start(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, bc_samples=3000, bc_epochs=2, total_timesteps=50000, eval_every=5000, eval_hands=200,
               final_eval_hands=2000, select_top=3)
    text = monitoring.stages_text(cfg)
    for part in ("1. warm start: behaviour cloning of the heuristic, 3,000 decisions, 2 epochs",
                 "2. PPO to 50,000 steps, every 5,000 steps an evaluation on 200 deals (its progress lines say the "
                 "time left)", "3. the 3 best candidates re-evaluated on 2,000 fresh deals",
                 "4. the final evaluation of best.zip on 2,000 deals"):
        assert part in text, (part, text)
