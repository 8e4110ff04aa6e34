"""A tiny training run end to end, in a subprocess, and resuming from its checkpoint."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import forkrun
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
    return forkrun.run(["train", "--config", "ppo_quick", "--out-dir", str(tmp_path), "--run-name", "tiny", *TINY,
                        *extra], timeout=600)


@pytest.mark.pipelines
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
    history = json.loads((run / "eval_history.json").read_text())
    assert history[0]["step"] == 0 and history[0]["start"] == "cloned"  # the curve starts before PPO

    # shipping copies best.zip without the optimizer state, with a description beside it
    from gin3_env.observation import AUGMENTED_SIZE
    from gin3_env.policies import load_policy
    from gin3_training.ppo.ship import ship

    shipped = ship(run, extra={"note": "test"}, dest=tmp_path / "shipped" / "model.zip")
    assert shipped.stat().st_size < (run / "best.zip").stat().st_size
    meta = json.loads(shipped.with_suffix(".json").read_text())
    assert meta["note"] == "test" and meta["config"]["run_name"] == "tiny"
    policy = load_policy(str(shipped))
    assert policy.obs_dim == AUGMENTED_SIZE  # the card-aware model reads the derived features

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


@pytest.mark.pipelines
def test_a_second_run_into_the_same_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    """An earlier run's files are never overwritten unasked."""
    run = tmp_path / "tiny"
    run.mkdir()
    (run / "best.zip").write_bytes(b"earlier run")
    done = _train(tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "--resume" in lines[0] and "--overwrite" in lines[0] and str(run) in lines[0]
    assert (run / "best.zip").read_bytes() == b"earlier run"
    assert not (run / "config.json").exists()


@pytest.mark.pipelines
def test_overwrite_and_an_honest_choice_of_best(tmp_path: Path) -> None:
    """--overwrite starts again (one TensorBoard folder, the earlier run's recorded files deleted); the run says why it
    went past total_timesteps; the last step is evaluated once; best.zip is the candidate that
    did best on fresh deals, the starting point among them, and the final table is on deals used for nothing else."""
    run = tmp_path / "tiny"
    (run / "tb" / "ppo_1").mkdir(parents=True)
    (run / "tb" / "ppo_1" / "events.out.tfevents.old").write_text("old")
    (run / "eval_history.json").write_text("[]")
    # the earlier run's record of the files it wrote: --overwrite deletes those, and only those
    (run / ".run-manifest.json").write_text(json.dumps({"files": ["tb/ppo_1/events.out.tfevents.old",
                                                                  "eval_history.json"]}))
    done = _train(tmp_path, "--overwrite", "--total-timesteps", "600", "--final-eval-hands", "6")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "deleted the earlier run" in done.stdout
    assert [p.name for p in (run / "tb").iterdir()] == ["ppo_1"]
    assert not (run / "tb" / "ppo_1" / "events.out.tfevents.old").exists()

    # 600 steps in rollouts of 128 x 2 = 256: stops at 768 and says so
    assert "total_timesteps 600 rounds up to 768" in done.stdout
    summary = json.loads((run / "final_eval.json").read_text())
    assert summary["num_timesteps"] == 768
    history = json.loads((run / "eval_history.json").read_text())
    steps = [record["step"] for record in history]
    assert steps == [0, 256, 512, 768], steps  # step 0 (before PPO), 768 once, not again after learn()
    assert "in-training deals" in done.stdout

    selection = summary["selection"]
    # the starting point (step 0, the cloned start) is always among the candidates re-evaluated
    assert [c["step"] for c in selection["candidates"]] == [0, 256, 512, 768]
    assert selection["deals"] == 6 and selection["seed"] not in (None, 1 + 7, 1 + 1234)
    chosen = max(selection["candidates"], key=lambda c: c["mean"])
    assert summary["best_step"] == selection["step"] == chosen["step"]
    assert (run / "best.zip").read_bytes() == (run / "candidates" / f"step_{chosen['step']}.zip").read_bytes()
    assert f"best.zip = step {chosen['step']:,}" in done.stdout
    assert "deals used for nothing else" in done.stdout


def test_train_help_gives_meaning_type_and_default() -> None:
    """Every flag says what it is, from the one description beside its field, with type and default."""
    import argparse
    import dataclasses

    from gin3_training.options import describe, undescribed
    from gin3_training.ppo.config import TrainConfig, add_flags

    assert undescribed(TrainConfig) == []
    parser = argparse.ArgumentParser(formatter_class=lambda prog: argparse.HelpFormatter(prog, width=100_000))
    add_flags(parser)
    text = parser.format_help()
    assert "override '" not in text and "YAML value" not in text
    assert "deals of each of those evaluations" in text and "(integer; default 400)" in text
    for f in dataclasses.fields(TrainConfig):  # each description shown whole, once
        assert text.count(describe(f)) == 1, f.name


def test_train_help_names_only_files_that_exist() -> None:
    """A module a description points the reader to is in the package (``gin3_env/...``) or in the lab
    (``training/...``)."""
    import dataclasses
    import re

    import gin3_env
    from gin3_training.options import describe
    from gin3_training.ppo.config import TrainConfig

    root = Path(gin3_env.__file__).parent
    named = {m for f in dataclasses.fields(TrainConfig) for m in re.findall(r"[\w/]+\.py", describe(f))}
    assert named and all((root / m).is_file() or (root.parent / m).is_file() for m in named), named


def test_the_starting_point_stays_a_candidate_for_best(tmp_path: Path) -> None:
    """keep_candidate keeps a pinned model (PPO's start) whatever the later estimates, beside the top ones;
    choose_best then picks it where it does best on the fresh deals."""
    from gin3_training.ppo.selection import choose_best, keep_candidate

    state: dict = {"candidates": []}

    def save(path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(path.name.encode())

    assert keep_candidate(state, 0, -5.0, tmp_path, 2, save, pinned=True)
    for step, mean in ((100, 1.0), (200, 2.0), (300, 3.0)):
        assert keep_candidate(state, step, mean, tmp_path, 2, save)
    assert not keep_candidate(state, 400, 0.5, tmp_path, 2, save)
    assert sorted(c["step"] for c in state["candidates"]) == [0, 200, 300]
    assert not (tmp_path / "candidates" / "step_100.zip").exists()
    fresh = {0: 1.5, 200: 0.2, 300: -0.4}  # the start does best on the fresh deals: it is shipped
    record = choose_best(state, tmp_path, 10, 99, lambda path, hands, seed: {"mean": fresh[int(Path(path).stem[5:])]})
    assert record["step"] == 0
    assert (tmp_path / "best.zip").read_bytes() == b"step_0.zip"
