"""Bad files, failed writes, checkpoints as one unit, resuming, the run lock, ``gin3 evaluate`` stopped.

Every bad model file (missing, empty, truncated, foreign, corrupted) is one line naming it and
exit code 2 in ``gin3 train --resume``, ``gin3 evaluate`` and ``gin3 play``; a write that fails
(simulated by monkeypatching) leaves what it would have replaced as it was."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import forkrun
import pytest

pytest.importorskip("sb3_contrib")

from gin3_env import cli
from gin3_env.policies import load_policy
from gin3_env.policies.loading import check_model_file
from gin3_env.policies.model_fields import MissingModelFileError, ModelFileError
from gin3_training.run import checkpoints
from gin3_training.run.checkpoints import RunWriteError, read_checkpoint, remove_partial_files, write_checkpoint
from gin3_training.run.folder import RunExistsError, prepare_run_dir
from gin3_training.run.lock import RunLock, RunLockedError

TINY = [
    "--config", "ppo_quick",
    "--n-envs", "2",
    "--vec-env", "dummy",
    "--n-steps", "128",
    "--batch-size", "128",
    "--n-epochs", "1",
    "--bc-samples", "0",
    "--eval-every", "256",
    "--eval-hands", "4",
    "--checkpoint-every", "256",
    "--final-eval-hands", "4",
    "--progress-bar", "false",
]


def _train(out_dir: Path, run_name: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return forkrun.run(["train", *TINY, "--out-dir", str(out_dir), "--run-name", run_name, *extra], timeout=300)


@pytest.fixture(scope="module")
def base_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny run (512 steps, checkpoints at 256 and 512)."""
    out = tmp_path_factory.mktemp("base")
    done = _train(out, "base", "--total-timesteps", "512")
    assert done.returncode == 0, done.stderr[-3000:]
    return out / "base"


def _copy_run(base: Path, dest: Path) -> Path:
    shutil.copytree(base, dest, ignore=shutil.ignore_patterns(".lock", "tb"))
    return dest


def _tiny_model() -> object:
    from sb3_contrib import MaskablePPO

    from gin3_env.envs.single_agent import ThreeHandedGinEnv

    return MaskablePPO("MlpPolicy", ThreeHandedGinEnv(opponent="random"), n_steps=64, batch_size=64,
                       policy_kwargs={"net_arch": [8]}, seed=0)


def _state(**changes: object) -> dict[str, object]:
    state: dict[str, object] = {"snapshots": [], "eval_history": [{"step": 1, "mean": 0.5}], "best_mean": 0.5,
                                "best_step": 1, "last_snapshot": 0, "last_eval": 1, "last_checkpoint": 1}
    state.update(changes)
    return state


# ------------------------------------------------------------------ bad files
def _bad_files(good: Path, folder: Path) -> dict[str, Path]:
    data = good.read_bytes()
    files = {
        "missing": folder / "missing.zip",
        "empty": folder / "empty.zip",
        "halved": folder / "halved.zip",
        "no_end": folder / "no_end.zip",
        "png": folder / "picture.zip",
        "foreign_zip": folder / "foreign.zip",
        "flipped": folder / "flipped.zip",
        "folder": folder / "folder.zip",
    }
    files["empty"].write_bytes(b"")
    files["halved"].write_bytes(data[: len(data) // 2])
    files["no_end"].write_bytes(data[:-40])
    files["png"].write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    with zipfile.ZipFile(files["foreign_zip"], "w") as archive:
        archive.writestr("notes.txt", "not a model")
    with zipfile.ZipFile(good) as archive:
        info = archive.getinfo("policy.pth")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    flipped = bytearray(data)
    flipped[start + info.compress_size // 2] ^= 0xFF
    files["flipped"].write_bytes(bytes(flipped))
    files["folder"].mkdir()
    return files


EXPECTED = {
    "missing": "not found",
    "empty": "is empty",
    "halved": "truncated or damaged",
    "no_end": "truncated or damaged",
    "png": "not a zip file (it looks like a PNG image)",
    "foreign_zip": "not a saved stable-baselines3 model (no data, policy.pth inside)",
    "flipped": "fails its checksum",
    "folder": "is a folder",
}


@pytest.mark.pipelines
def test_bad_model_files_are_one_clear_error(base_run: Path, tmp_path: Path) -> None:
    files = _bad_files(base_run / "best.zip", tmp_path)
    for kind, path in files.items():
        with pytest.raises(ModelFileError) as caught:
            load_policy(str(path))
        message = str(caught.value)
        assert str(path) in message and EXPECTED[kind] in message and "\n" not in message, (kind, message)
        with pytest.raises(ModelFileError, match=re.escape(EXPECTED[kind])):
            read_checkpoint(path)
    with pytest.raises(FileNotFoundError) as missing:
        load_policy(str(files["missing"]))
    assert isinstance(missing.value, MissingModelFileError)
    assert check_model_file(base_run / "best.zip") == base_run / "best.zip"


def _one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], path: Path, problem: str) -> None:
    code = cli.main(argv)
    err = capsys.readouterr().err.strip()
    assert code == 2, (argv, err)
    assert "\n" not in err and str(path) in err and problem in err and "Traceback" not in err, (argv, err)


@pytest.mark.pipelines
def test_bad_files_in_train_resume_evaluate_and_play(
    base_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _bad_files(base_run / "checkpoint.zip", tmp_path)
    for kind, path in files.items():
        problem = EXPECTED[kind]
        _one_line_exit_2(capsys, ["evaluate", str(path), "heuristic", "--hands", "1", "--matches", "0"], path,
                         problem)
        _one_line_exit_2(capsys, ["play", "--opponent", str(path)], path, problem)
        _one_line_exit_2(capsys, ["train", *TINY, "--out-dir", str(tmp_path / "out"), "--run-name", kind,
                                  "--resume", str(path)], path, problem)


@pytest.mark.pipelines
def test_resume_of_a_truncated_checkpoint_in_a_real_process(base_run: Path, tmp_path: Path) -> None:
    bad = tmp_path / "checkpoint.zip"
    bad.write_bytes((base_run / "checkpoint.zip").read_bytes()[:100_000])
    done = _train(tmp_path, "r", "--resume", str(bad))
    assert done.returncode == 2
    assert done.stderr.strip() == f"gin3 train: error: checkpoint {bad} is truncated or damaged: a zip file " \
                                  f"without its end (100000 bytes)"


# ------------------------------------------------------------- checkpoints
def test_checkpoint_is_one_unit_and_survives_a_kill_between_its_writes(tmp_path: Path, monkeypatch) -> None:
    model = _tiny_model()
    write_checkpoint(model, _state(), tmp_path)
    state, notes = read_checkpoint(tmp_path / "checkpoint.zip")
    assert state == {k: v for k, v in _state().items()} and notes == []
    old_json = (tmp_path / "checkpoint.json").read_bytes()

    # killed after the zip is renamed, before checkpoint.json: the zip carries its own state
    def killed(path, data, indent=2):
        raise KeyboardInterrupt

    monkeypatch.setattr(checkpoints, "save_json", killed)
    with pytest.raises(KeyboardInterrupt):
        write_checkpoint(model, _state(best_mean=2.0, last_checkpoint=9), tmp_path)
    monkeypatch.undo()
    assert (tmp_path / "checkpoint.json").read_bytes() == old_json  # the stale copy
    state, notes = read_checkpoint(tmp_path / "checkpoint.zip")
    assert state["best_mean"] == 2.0 and state["last_checkpoint"] == 9
    assert any("is not the copy of this checkpoint" in note for note in notes)


def test_an_old_style_checkpoint_with_a_json_of_another_step_is_refused(tmp_path: Path) -> None:
    model = _tiny_model()
    model.save(tmp_path / "checkpoint.zip")  # no state inside: the layout before this state moved in
    (tmp_path / "checkpoint.json").write_text(json.dumps({**_state(), "num_timesteps": 5000}))
    with pytest.raises(ModelFileError, match=r"is for step 5,000 but checkpoint\.zip holds step 0"):
        read_checkpoint(tmp_path / "checkpoint.zip")
    (tmp_path / "checkpoint.json").write_text(json.dumps({**_state(), "num_timesteps": 0}))
    assert read_checkpoint(tmp_path / "checkpoint.zip")[0]["best_mean"] == 0.5
    (tmp_path / "checkpoint.json").write_text("{not json")
    with pytest.raises(ModelFileError, match=r"checkpoint\.json is not valid JSON"):
        read_checkpoint(tmp_path / "checkpoint.zip")


def _fail_replace_to(monkeypatch, name: str, error: OSError) -> None:
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if Path(dst).name == name:
            raise error
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)


@pytest.mark.parametrize(
    ("target", "error"),
    [
        ("checkpoint.zip", OSError(errno.ENOSPC, "No space left on device")),
        ("checkpoint.json", PermissionError(errno.EACCES, "Permission denied")),
        ("eval_history.json", OSError(errno.ENOSPC, "No space left on device")),
    ],
)
def test_a_failed_checkpoint_write_leaves_the_previous_files(tmp_path: Path, monkeypatch, target: str,
                                                             error: OSError) -> None:
    model = _tiny_model()
    write_checkpoint(model, _state(), tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    _fail_replace_to(monkeypatch, target, error)
    with pytest.raises(RunWriteError, match=f"cannot write {tmp_path / target}: {error.strerror}"):
        write_checkpoint(model, _state(best_mean=3.0), tmp_path)
    assert (tmp_path / target).read_bytes() == before[target]
    if target == "checkpoint.zip":
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert not list(tmp_path.glob("*.partial*")) and not list(tmp_path.glob(".gin3-*"))


def test_disk_full_in_the_middle_of_a_model_save_removes_the_partial_file(tmp_path: Path, monkeypatch) -> None:
    import stable_baselines3.common.save_util as save_util

    model = _tiny_model()
    write_checkpoint(model, _state(), tmp_path)
    before = (tmp_path / "checkpoint.zip").read_bytes()
    real_save = save_util.th.save

    def save(obj, f, *args, **kwargs):  # writes part of a member, then the disk is full
        real_save(obj, f, *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(save_util.th, "save", save)
    with pytest.raises(RunWriteError, match="No space left on device"):
        write_checkpoint(model, _state(), tmp_path)
    assert (tmp_path / "checkpoint.zip").read_bytes() == before
    assert not list(tmp_path.glob("*.partial*"))


@pytest.mark.pipelines
def test_a_failed_write_stops_gin3_train_with_one_line_and_keeps_the_run(
    base_run: Path, tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy_run(base_run, tmp_path / "run")
    keep = ("checkpoint.zip", "checkpoint.json", "best.zip", "eval_history.json")
    before = {name: (run / name).read_bytes() for name in keep}
    _fail_replace_to(monkeypatch, "checkpoint.zip", OSError(errno.ENOSPC, "No space left on device"))
    # a worse model can never replace best.zip: every evaluation's new best fails too
    _fail_replace_to(monkeypatch, "best.zip", PermissionError(errno.EACCES, "Permission denied"))
    code = cli.main(["train", *TINY, "--out-dir", str(tmp_path), "--run-name", "run", "--total-timesteps", "1024",
                     "--resume", str(run / "checkpoint.zip")])
    err = capsys.readouterr().err.strip()
    assert code == 1
    assert err.startswith("gin3 train: error: cannot write ") and "\n" not in err, err
    assert "the files it would have replaced are unchanged" in err
    for name in keep:
        assert (run / name).read_bytes() == before[name], name
    assert not list(run.glob("*.partial*")) and not list(run.glob(".gin3-*"))


def test_partial_files_of_a_killed_run_are_removed(tmp_path: Path) -> None:
    (tmp_path / "snapshots").mkdir()
    left = [tmp_path / "checkpoint.partial.zip", tmp_path / ".best.zip.gin3-partial", tmp_path / "snapshots" /
            "step_8.partial.zip"]
    for path in left:
        path.write_bytes(b"half")
    (tmp_path / "best.zip").write_bytes(b"kept")
    (tmp_path / ".gin3-x.json.tmp").write_bytes(b"a file of the user's, named like a temporary one: kept")
    assert sorted(remove_partial_files(tmp_path)) == sorted(left)
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [".gin3-x.json.tmp", "best.zip"]


# ------------------------------------------------------------------ resume
@pytest.mark.pipelines
def test_resuming_twice_from_one_checkpoint_gives_the_same_run(base_run: Path, tmp_path: Path) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    checkpoint = tmp_path / "start.zip"
    shutil.copy(base_run / "checkpoint.zip", checkpoint)
    results = []
    for name in ("first", "second"):
        # random opponents too: their choices must come from the seeds, not from fresh entropy
        done = _train(tmp_path, name, "--total-timesteps", "768", "--resume", str(checkpoint),
                      "--opponent-schedule", "[{until: 1.0, random: 1, heuristic: 1}]")
        assert done.returncode == 0, done.stderr[-3000:]
        assert "resumed from" in done.stdout and "at step 512" in done.stdout
        params = MaskablePPO.load(tmp_path / name / "final.zip", device="cpu").policy.state_dict()
        history = json.loads((tmp_path / name / "eval_history.json").read_text())
        results.append((params, [(h["step"], h["mean"]) for h in history]))
    (first, history_1), (second, history_2) = results
    assert history_1 == history_2 and history_1[-1][0] == 768
    assert first.keys() == second.keys()
    assert all(torch.equal(first[k], second[k]) for k in first)
    original = MaskablePPO.load(checkpoint, device="cpu").policy.state_dict()
    assert not all(torch.equal(first[k], original[k]) for k in first)  # it trained on


# -------------------------------------------------------------------- lock
def test_the_run_lock_refuses_a_second_holder_and_a_dead_one_holds_nothing(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from gin3_training.run.lock import RunLock; "
         "RunLock(sys.argv[1]).acquire(); print('locked', flush=True); time.sleep(60)", str(tmp_path)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(RunLockedError, match=f"in use by another gin3 train \\(pid {holder.pid}\\)"), \
                RunLock(tmp_path):
            pass
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
    finally:
        if holder.poll() is None:
            holder.kill()
    with RunLock(tmp_path) as lock:
        assert (tmp_path / ".lock").read_text().strip() == str(os.getpid())
        assert lock.path == tmp_path / ".lock"


# --------------------------------------------------------------- evaluate
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_gin3_evaluate_stops_cleanly_on_a_signal(tmp_path: Path, sig: int, code: int) -> None:
    out = tmp_path / "result.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gin3_env.cli", "evaluate", "heuristic", "random", "--hands", "100000",
         "--matches", "0", "--progress", "--json", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=False,
    )
    try:
        assert proc.stderr is not None
        seen = b""
        end = time.monotonic() + 60
        while b"[deals" not in seen and time.monotonic() < end:  # the first progress line: it is playing
            seen += os.read(proc.stderr.fileno(), 4096)
        proc.send_signal(sig)
        rest_out, rest_err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = (seen + rest_err).decode()
    assert proc.returncode == code
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last == f"gin3 evaluate: stopped by {signal.Signals(sig).name}; nothing was reported or written"
    assert not out.exists() and rest_out == b""


def test_the_lock_file_alone_is_not_an_earlier_run(tmp_path: Path) -> None:
    """The run lock's file stays after its run (a dead process's too): the refusal to overwrite
    an earlier run ignores it, and still refuses a folder that holds a run."""
    run = tmp_path / "run"
    with RunLock(run):
        assert prepare_run_dir(run) == []  # the lock's own file, under the lock: a new run starts
    assert (run / ".lock").is_file()
    assert prepare_run_dir(run) == []
    (run / "best.zip").write_bytes(b"earlier run")
    with RunLock(run), pytest.raises(RunExistsError, match="already holds a run"):
        prepare_run_dir(run)
    assert (run / "best.zip").read_bytes() == b"earlier run"
