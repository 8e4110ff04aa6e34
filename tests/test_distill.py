"""`gin3 train` with a distillation config: a tiny run end to end, its last lines, and resuming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from gin3_env.policies import load_policy
from gin3_env.policies.net import NetPolicy
from gin3_training.distill.cli import main
from gin3_training.distill.config import DistillConfig
from gin3_training.train import pipeline_of

TINY = ["--teacher-decisions", "2000", "--dagger-decisions", "1000", "--shard-size", "1000", "--num-envs", "64",
        "--hidden", "[8, 4]", "--epochs", "0.5", "--batch-size", "64", "--choice-deals", "8",
        "--final-eval-hands", "8", "--threads", "1"]


def test_which_door_a_command_line_opens(tmp_path: Path) -> None:
    assert pipeline_of([]) == pipeline_of(["--config", "quick"]) == pipeline_of(["--config=distill"]) == "distill"
    assert pipeline_of(["--config", "ppo_quick"]) == pipeline_of(["--config", "default"]) == "ppo"
    assert pipeline_of(["--config", "improve"]) == "improve"
    (tmp_path / "state.json").write_text('{"config": {"pipeline": "distill"}}')
    assert pipeline_of(["--config", "default", "--resume", str(tmp_path)]) == "distill"
    assert pipeline_of(["--resume", str(tmp_path / "checkpoint.zip")]) == "ppo"  # PPO's checkpoint
    with pytest.raises(ValueError, match="no such run folder"):
        pipeline_of(["--resume", str(tmp_path / "nonexistent")])
    with pytest.raises(ValueError, match="did you mean 'quick'"):
        pipeline_of(["--config", "quik"])


def test_a_bad_key_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--config", "quick", "--epochs", "0"])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'epochs' must be a number > 0" in err[0]
    with pytest.raises(ValueError, match="hidden"):
        DistillConfig(hidden=[8])


@pytest.mark.pipelines
def test_a_tiny_run_ends_saying_where_the_network_stands_and_resumes(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    assert main(["--config", "quick", "--out-dir", str(out), "--run-name", "t", "--dagger-rounds", "0", *TINY]) == 0
    text = capsys.readouterr().out
    run = out / "t"
    lines = text.strip().splitlines()
    assert "the heuristic:" in lines[-4] and "duplicate deals" in lines[-4]
    assert "trained (the strongest shipped player)" in lines[-3]
    assert "gin3 train --config distill" in lines[-1]
    assert "min left]" in text  # progress with the time left
    state = json.loads((run / "state.json").read_text())
    assert [r["round"] for r in state["rounds"]] == [0]
    assert "removed what only a resume needs: 2 shard(s)" in text and not (run / "shards").exists()
    assert f"kept in {run}: best.npz (" in text and "final.json (" in text and "net_r0.npz (" in text
    r0 = (run / "net_r0.npz").read_bytes()
    final = json.loads((run / "final.json").read_text())
    assert final["best_round"] == 0 and final["heuristic"]["deals"] == 8
    assert isinstance(load_policy(str(run / "best.npz")), NetPolicy)

    # resumed with one more round: round 0's shards and network are kept, round 1 is played by the network
    assert main(["--resume", str(run), "--dagger-rounds", "1"]) == 0
    text = capsys.readouterr().out
    assert f"resuming {run}: 1 round(s) done" in text and "the network playing" in text
    state = json.loads((run / "state.json").read_text())
    assert [r["round"] for r in state["rounds"]] == [0, 1]
    assert (run / "net_r0.npz").read_bytes() == r0 and (run / "net_r1.npz").is_file()

    # a finished run resumed is complete: said so, nothing evaluated again
    assert main(["--resume", str(run)]) == 0
    assert "is a complete run" in capsys.readouterr().out


def test_a_named_run_that_exists_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "t"
    run.mkdir()
    (run / "state.json").write_text("{}")
    assert main(["--config", "quick", "--out-dir", str(tmp_path), "--run-name", "t", *TINY]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--resume" in err[0]
