"""Round 3 of hostile testing, the run folder: what a run reads back from its own files is data.

A training state's candidate paths, a manifest's names and a folder holding only a user's
``best.json`` are checked like any input; deletes go through the run folder's descriptor, so a
linked subfolder is never followed; TensorBoard writes by the held folder's descriptor."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from gin3_env import cli
from gin3_training.ppo.selection import checked_candidates, keep_candidate
from gin3_training.run.checkpoints import remove_partial_files
from gin3_training.run.folder import MANIFEST, RunFolderError, prepare_run_dir, read_manifest
from gin3_training.run.lock import RunLock

FAST = ["--config", "ppo_quick", "--total-timesteps", "64", "--final-eval-hands", "2", "--eval-hands", "2",
        "--progress-bar", "false"]


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    return victim


def test_a_candidate_path_in_a_training_state_never_deletes_a_file(tmp_path: Path) -> None:
    """(1) ``candidates[].path`` of ``gin3_state.json`` pointing at a user's file: dropped with a note on
    resume, and a dropped candidate is removed by its step's name in the run folder, never by that path."""
    victim = _victim(tmp_path)
    run = tmp_path / "out" / "run"
    state = {"candidates": [{"step": 1, "mean": -1e9, "path": str(victim)}]}
    with RunLock(run):
        def save(path: Path) -> None:
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(b"model")

        kept = keep_candidate(dict(state), 512, 0.5, run, 1, save)
        assert kept and victim.read_text() == "keep"  # the candidate of step 1 dropped: not the victim
        notes = checked_candidates(state, run)
    assert state["candidates"] == [] and str(victim) in notes[0]
    own = {"step": 3, "mean": 1.0, "path": str(run / "candidates" / "step_3.zip")}
    state = {"candidates": [own, {"step": "x"}, "junk"]}
    assert len(checked_candidates(state, run)) == 1 and state["candidates"] == [own]


def _link_tree(tmp_path: Path) -> tuple[Path, Path]:
    run = tmp_path / "out" / "run"
    outside = tmp_path / "x"
    (outside / "empty").mkdir(parents=True)
    (outside / ".f.gin3-partial").write_text("keep")
    (outside / "f.partial.zip").write_text("keep")
    (outside / "g.zip").write_text("keep")
    run.mkdir(parents=True)
    (run / "config.json").write_text("{}")
    return run, outside


def test_a_manifest_naming_files_no_run_writes_is_refused(tmp_path: Path) -> None:
    """(6) manifest entries under ``sub/`` with ``RUN/sub`` a link: refused in one line, nothing outside
    deleted by ``--resume``'s clean-up or ``--overwrite``."""
    run, outside = _link_tree(tmp_path)
    (run / "sub").symlink_to(outside)
    (run / MANIFEST).write_text(json.dumps({"files": ["config.json", "sub/f.zip", "sub/empty/y", "sub/g.zip"]}))
    with pytest.raises(RunFolderError, match="no file a run writes"):
        read_manifest(run)
    remove_partial_files(run)
    with pytest.raises(RunFolderError, match="no file a run writes"):
        prepare_run_dir(run, overwrite=True)
    assert sorted(p.name for p in outside.iterdir()) == [".f.gin3-partial", "empty", "f.partial.zip", "g.zip"]


def test_a_linked_folder_inside_a_run_folder_is_never_followed(tmp_path: Path) -> None:
    """(6) names a run writes (under ``tb/``) reached through a link planted inside the run folder: the
    deletes go through the folder's descriptor and stop at the link."""
    run, outside = _link_tree(tmp_path)
    (run / "tb").mkdir()
    (run / "tb" / "ppo_1").symlink_to(outside)
    (run / MANIFEST).write_text(json.dumps({"files": ["config.json", "tb/ppo_1/f.zip", "tb/ppo_1/empty/y",
                                                      "tb/ppo_1/g.zip"]}))
    remove_partial_files(run)
    prepare_run_dir(run, overwrite=True)
    assert sorted(p.name for p in outside.iterdir()) == [".f.gin3-partial", "empty", "f.partial.zip", "g.zip"]
    assert (outside / "g.zip").read_text() == "keep"


@pytest.mark.parametrize("name", ["best.json", "final.json"])
def test_a_users_sidecar_in_a_folder_without_a_run_is_not_replaced(tmp_path: Path, name: str) -> None:
    """(9) a ``best.json`` or ``final.json`` of the user's where no run is: refused, kept."""
    run = tmp_path / "run"
    run.mkdir()
    (run / name).write_text("mine")
    with pytest.raises(RunFolderError, match="gin3 did not write"):
        prepare_run_dir(run)
    assert (run / name).read_text() == "mine"


def test_tensorboard_writes_into_the_held_folder_after_a_swap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """(7) the run folder swapped for a link after the model is built, before PPO starts: TensorBoard's
    first files land in the run's own (moved) folder, not the link's target, and the run stops."""
    from gin3_training.ppo import train as train_module

    run = tmp_path / "out" / "run"
    outside = tmp_path / "outside"
    outside.mkdir()
    start = train_module.TrainingMonitor.start

    def swap_then_start(self: object, step: int, target: int) -> None:
        os.rename(run, tmp_path / "moved")
        run.symlink_to(outside)
        start(self, step, target)  # type: ignore[arg-type]

    monkeypatch.setattr(train_module.TrainingMonitor, "start", swap_then_start)
    try:
        code = cli.main(["train", *FAST, "--out-dir", str(tmp_path / "out"), "--run-name", "run", "--n-envs", "1",
                         "--vec-env", "dummy", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
                         "--bc-samples", "0", "--eval-every", "0", "--checkpoint-every", "64"])
    except SystemExit as usage:
        code = int(usage.code or 0)
    err = capsys.readouterr().err
    assert code == 2 and "moved or replaced" in err, err
    assert list(outside.rglob("*")) == []
    assert list((tmp_path / "moved" / "tb").rglob("events*"))
