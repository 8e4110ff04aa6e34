"""One run, one mechanism: the same checks of the run folder, run once per pipeline.

Every pipeline (distillation, improvement, PPO, gates) holds its folder through ``gin3_training.run.run.Run``; each
check below runs through the pipeline's own door (``gin3 train`` or ``gin3 train-gate``) and expects a one-line
refusal (exit 2, no traceback), nothing written outside the folder, and nothing left behind by a refused command.
The checks that need a real run use the tiniest configs; one that does not apply to a pipeline says why.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

from gin3_training.distill.config import DistillConfig
from gin3_training.improve.run import ImproveConfig
from gin3_training.run.lock import RunLock

ROOT = Path(__file__).resolve().parent.parent
DISTILL_TINY = ["--teacher-decisions", "2000", "--dagger-decisions", "1000", "--shard-size", "1000", "--num-envs",
                "64", "--hidden", "[8, 4]", "--epochs", "0.5", "--batch-size", "64", "--choice-deals", "8",
                "--final-eval-hands", "8", "--threads", "1", "--dagger-rounds", "0"]
IMPROVE_TINY = ["--decisions", "12", "--shard-size", "6", "--shuffles", "2", "--rate", "0.5", "--continuation",
                "heuristic", "--folds", "2"]
GATE_YAML = ("stages:\n  - {decision: knock, deals: 20, seed: 4, shuffles: 2, chunk: 20}\n"
             "folds: 2\nepochs: 1\nhidden: 4\n")


class Blocked(BaseException):
    """A block that ran past its deadline: no ``except OSError`` or ``except Exception`` of the code under test
    turns it into a refusal (a ``TimeoutError`` is an ``OSError``)."""


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail (instead of hanging) where the block takes longer than ``seconds``."""
    def expired(signum: int, frame: Any) -> None:
        raise Blocked(f"blocked for more than {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@dataclass(frozen=True)
class Pipeline:
    """A pipeline's door and how to make a run folder of it without training."""

    name: str
    default_run: str  # the run folder's name under --out-dir
    subfolder: str  # the subfolder of its shards (or its TensorBoard folder)
    user_files: tuple[str, ...]  # names of the user's own files at names the run writes
    fresh: Callable[[Path, str], list[str]]  # out_dir, run_name -> argv
    state: Callable[[Path], dict[str, Any]] | None  # run_dir -> a recorded state (None: no state.json)
    door: str = "train"

    def run(self, argv: list[str]) -> int:
        if self.door == "train":
            return gin3_train(argv)
        from gin3_training.gates.train import main

        try:
            return int(main(argv))
        except SystemExit as exc:  # a refusal while parsing: argparse's one line
            return int(exc.code or 0)


def gin3_train(argv: list[str]) -> int:
    """``gin3 train ARGV``'s exit status (a refusal while parsing is argparse's one line and SystemExit)."""
    from gin3_training.train import main

    try:
        return int(main(argv))
    except SystemExit as exc:
        return int(exc.code or 0)


def _distill_state(run_dir: Path) -> dict[str, Any]:
    cfg = DistillConfig(out_dir=str(run_dir.parent), run_name=run_dir.name, teacher_decisions=2000,
                        dagger_decisions=1000, shard_size=1000, num_envs=64, hidden=[8, 4], epochs=0.5, batch_size=64,
                        choice_deals=8, final_eval_hands=8, dagger_rounds=0)
    return {"rounds": [], "config": {**cfg.to_dict(), "resume": ""}}


def _improve_state(run_dir: Path) -> dict[str, Any]:
    from dataclasses import asdict

    cfg = ImproveConfig(out_dir=str(run_dir.parent), run_name=run_dir.name, decisions=12, shard_size=6, shuffles=2,
                        rate=0.5, continuation="heuristic", folds=2)
    return {"rounds": [], "config": {**asdict(cfg), "resume": ""}}


def _gate_argv(out: Path, name: str) -> list[str]:
    config = out.parent / "tiny_gate.yaml"
    config.write_text(GATE_YAML)
    return ["--config", str(config), "--out", str(out / name)]


PIPELINES = [
    Pipeline("distill", "quick", "shards", ("best.npz", "final.json", "curve.png"),
             lambda out, name: ["--config", "quick", "--out-dir", str(out), "--run-name", name, *DISTILL_TINY],
             _distill_state),
    Pipeline("improve", "improve", "labels", ("improved_r0.npz",),
             lambda out, name: ["--config", "improve", "--out-dir", str(out), "--run-name", name, *IMPROVE_TINY],
             _improve_state),
    Pipeline("ppo", "ppo_quick", "tb", ("final.json", "best.json"),
             lambda out, name: ["--config", "ppo_quick", "--out-dir", str(out), "--run-name", name,
                                "--total-timesteps", "256", "--n-envs", "1", "--vec-env", "dummy"],
             None),
    Pipeline("gates", "g", "labels_1_knock", ("gated.json",), _gate_argv, None, door="train-gate"),
]
IDS = [p.name for p in PIPELINES]


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The refusal: the one line of stderr that starts with ``gin3`` (train-gate's progress lines aside), the
    last one, no traceback."""
    err = capsys.readouterr().err.strip()
    said = [line for line in err.splitlines() if line.startswith("gin3 ")]
    assert len(said) == 1 and said[0] == err.splitlines()[-1] and "Traceback" not in err, err
    return said[0]


def write_state(run_dir: Path, state: dict[str, Any]) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "state.json").write_text(json.dumps(state))


# ------------------------------------------------------------------ the lock
@pytest.mark.parametrize("pipe", PIPELINES, ids=IDS)
def test_a_second_run_on_a_held_folder_is_refused(pipe: Pipeline, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """one run, one writer, for every pipeline (the lock held as a running run holds it)."""
    out = tmp_path / "runs"
    run_dir = out / "held"
    with RunLock(run_dir):
        with deadline(120):
            assert pipe.run(pipe.fresh(out, "held")) == 2
        assert "in use by another" in one_line(capsys)
    assert sorted(p.name for p in run_dir.iterdir()) == [".lock"]


# ------------------------------------------------------------------ links
@pytest.mark.parametrize("pipe", PIPELINES, ids=IDS)
def test_a_linked_subfolder_is_refused_and_nothing_is_written_outside(pipe: Pipeline, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """a ``shards``/``labels`` link in the run folder never sends a file outside it."""
    out, outside = tmp_path / "runs", tmp_path / "outside"
    outside.mkdir()
    run_dir = out / "linked"
    run_dir.mkdir(parents=True)
    (run_dir / pipe.subfolder).symlink_to(outside, target_is_directory=True)
    argv = pipe.fresh(out, "linked")
    if pipe.state is not None:  # a run under way, resumed: its shards go to the linked folder
        write_state(run_dir, pipe.state(run_dir))
        argv = ["--resume", str(run_dir)]
    with deadline(300):
        assert pipe.run(argv) == 2
    line = one_line(capsys)
    assert "symbolic link" in line or "not a real folder" in line or "did not write" in line, line
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("pipe", PIPELINES[:2], ids=IDS[:2])
def test_a_link_planted_at_a_partial_name_is_never_written_through(pipe: Pipeline, tmp_path: Path) -> None:
    """links at a shard's partial names (old and new spelling) leave their targets alone."""
    out = tmp_path / "runs"
    run_dir = out / "planted"
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's")
    write_state(run_dir, pipe.state(run_dir))  # type: ignore[misc]
    sub = run_dir / pipe.subfolder
    sub.mkdir()
    first = "r00_0000.npz" if pipe.name == "distill" else "shard_00_0000.npz"
    for name in (f".{first}.gin3-partial", first.replace(".npz", ".partial.zip"), ".state.json.gin3-partial"):
        (sub / name).symlink_to(victim)
    (run_dir / ".state.json.gin3-partial").symlink_to(victim)
    with deadline(300):
        assert pipe.run(["--resume", str(run_dir)]) == 0
    assert victim.read_text() == "the user's"
    assert not (run_dir / ".state.json.gin3-partial").is_symlink()


def test_a_finished_distillation_resumed_writes_nothing_through_planted_links(tmp_path: Path,
                                                                               capsys: pytest.CaptureFixture[str]
                                                                               ) -> None:
    """a finished run keeps its networks, record and curve and drops its
    shards (saying what is left, with sizes); resumed, it says it is complete; planted links stay untouched."""
    main = gin3_train
    out = tmp_path / "runs"
    assert main(PIPELINES[0].fresh(out, "done")) == 0
    text = capsys.readouterr().out
    run_dir = out / "done"
    assert "removed what only a resume needs: 2 shard(s)" in text and not (run_dir / "shards").exists()
    assert f"kept in {run_dir}: best.npz" in text and " in all" in text
    assert {"best.npz", "net_r0.npz", "state.json", "final.json"} <= {p.name for p in run_dir.iterdir()}
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's")
    for name in ("best.partial.zip", ".best.npz.gin3-partial", ".final.json.gin3-partial"):
        (run_dir / name).symlink_to(victim)
    final = (run_dir / "final.json").read_bytes()
    assert main(["--resume", str(run_dir)]) == 0
    assert "is a complete run" in capsys.readouterr().out
    assert victim.read_text() == "the user's" and (run_dir / "final.json").read_bytes() == final


# ------------------------------------------------------------------ foreign files
@pytest.mark.parametrize("pipe", PIPELINES, ids=IDS)
def test_the_users_files_are_never_written_over(pipe: Pipeline, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """a folder holding the user's own files (no run) is refused, the files left as they were."""
    out = tmp_path / "runs"
    run_dir = out / "mine"
    run_dir.mkdir(parents=True)
    for name in pipe.user_files:
        (run_dir / name).write_text("the user's own")
    with deadline(120):
        assert pipe.run(pipe.fresh(out, "mine")) == 2
    line = one_line(capsys)
    assert "did not write" in line, line
    assert sorted(p.name for p in run_dir.iterdir()) == sorted(pipe.user_files)  # no lock, no manifest
    assert all((run_dir / name).read_text() == "the user's own" for name in pipe.user_files)


# ------------------------------------------------------------------ resume with other settings
@pytest.mark.parametrize("pipe", PIPELINES, ids=IDS)
def test_a_resume_with_other_settings_is_refused(pipe: Pipeline, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """and the same for every pipeline: the recorded settings are kept, the command refused."""
    out = tmp_path / "runs"
    run_dir = out / "r"
    if pipe.name == "ppo":
        pytest.skip("PPO resumes a checkpoint (.zip): its settings are checked against the checkpoint's model "
                    "(tests/test_training_faults.py); a run folder holds no recorded settings of its own")
    if pipe.name == "gates":
        run_dir.mkdir(parents=True)
        (run_dir / "train-gate.json").write_text(json.dumps({"config": {"folds": 3}}))
        argv = pipe.fresh(out, "r")
    else:
        state = pipe.state(run_dir)  # type: ignore[misc]
        write_state(run_dir, state)
        argv = ["--resume", str(run_dir), "--seed", "99"] + (["--shuffles", "3"] if pipe.name == "improve" else [])
    before = {p.name: p.read_bytes() for p in run_dir.iterdir()}
    with deadline(120):
        assert pipe.run(argv) == 2
    line = one_line(capsys)
    assert "made with" in line, line
    assert {p.name: p.read_bytes() for p in run_dir.iterdir()} == before  # nothing rewritten, no lock


# ------------------------------------------------------------------ state and shards that are not regular files
@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "huge", "deep", "not_a_mapping"])
@pytest.mark.parametrize("pipe", PIPELINES, ids=IDS)
def test_a_bad_state_file_is_refused_in_one_line_without_hanging(pipe: Pipeline, kind: str, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``state.json`` (PPO: ``checkpoint.zip``; gates: ``train-gate.json``) as a FIFO, a
    link to /dev/zero, a huge or deeply nested file: one line, at once."""
    out = tmp_path / "runs"
    run_dir = out / "bad"
    run_dir.mkdir(parents=True)
    name = {"ppo": "checkpoint.zip", "gates": "train-gate.json"}.get(pipe.name, "state.json")
    path = run_dir / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")
    elif kind == "huge":
        with open(path, "wb") as fh:
            fh.truncate(2 << 30)
    elif kind == "deep":
        path.write_text('{"config": {"pipeline": "' + pipe.name + '"}, "rounds": ' + "[" * 50_000 + "]" * 50_000 + "}")
    else:
        path.write_text("[1, 2]")
    if pipe.name == "gates":
        argv = pipe.fresh(out, "bad")
    elif pipe.name == "ppo":
        argv = ["--config", "ppo_quick", "--out-dir", str(out), "--run-name", "bad", "--resume", str(path)]
    else:
        argv = ["--resume", str(run_dir)]
    with deadline(30):
        assert pipe.run(argv) == 2
    one_line(capsys)
    assert sorted(p.name for p in run_dir.iterdir()) == [name]  # no lock, no manifest, nothing else


@pytest.mark.parametrize("pipe", [PIPELINES[0], PIPELINES[1], PIPELINES[3]], ids=["distill", "improve", "gates"])
def test_a_shard_that_is_a_fifo_is_refused(pipe: Pipeline, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """a FIFO at a shard's name is refused in one line, never waited on. (PPO keeps no shards.)"""
    out = tmp_path / "runs"
    run_dir = out / "fifo"
    first = {"distill": "shards/r00_0000.npz", "improve": "labels/shard_00_0000.npz",
             "gates": "labels_1_knock/labels_00000.npz"}[pipe.name]
    (run_dir / first).parent.mkdir(parents=True)
    os.mkfifo(run_dir / first)
    if pipe.state is not None:
        write_state(run_dir, pipe.state(run_dir))
        argv = ["--resume", str(run_dir)]
    else:  # train-gate's record of the run, as a first session wrote it
        from dataclasses import asdict

        from gin3_training.configs import read_config
        from gin3_training.gates.train import GateConfig

        argv = pipe.fresh(out, "fifo")
        cfg = GateConfig(**read_config(argv[1], {}, GateConfig))
        (run_dir / "train-gate.json").write_text(json.dumps({"config": asdict(cfg)}))
    with deadline(120):
        assert pipe.run(argv) == 2
    line = one_line(capsys)
    assert "regular file" in line, line


@pytest.mark.parametrize("pipe", [PIPELINES[0], PIPELINES[1], PIPELINES[3]], ids=["distill", "improve", "gates"])
def test_a_shard_declaring_a_huge_array_is_refused_before_allocation(pipe: Pipeline, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """a shard whose member's header declares 2**40 elements (64 bytes held) is one line, never allocated."""
    import io
    import zipfile

    from numpy.lib import format as npy

    out = tmp_path / "runs"
    run_dir = out / "huge"
    first = {"distill": "shards/r00_0000.npz", "improve": "labels/shard_00_0000.npz",
             "gates": "labels_1_knock/labels_00000.npz"}[pipe.name]
    (run_dir / first).parent.mkdir(parents=True)
    header = io.BytesIO()
    npy.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (2**20, 2**20)})
    with zipfile.ZipFile(run_dir / first, "w") as zf:
        zf.writestr("obs.npy", header.getvalue() + b"\0" * 64)
        zf.writestr("run.npy", header.getvalue() + b"\0" * 64)
    if pipe.state is not None:
        write_state(run_dir, pipe.state(run_dir))
        argv = ["--resume", str(run_dir)]
    else:
        from dataclasses import asdict

        from gin3_training.configs import read_config
        from gin3_training.gates.train import GateConfig

        argv = pipe.fresh(out, "huge")
        cfg = GateConfig(**read_config(argv[1], {}, GateConfig))
        (run_dir / "train-gate.json").write_text(json.dumps({"config": asdict(cfg)}))
    with deadline(120):
        assert pipe.run(argv) == 2
    line = one_line(capsys)
    assert "declares shape (1048576, 1048576)" in line, line


# ------------------------------------------------------------------ kill and resume
def test_a_distillation_interrupted_after_a_shard_resumes_to_identical_weights(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Kill and resume: a run stopped after its first shard and resumed ends with the network of a run never
    stopped (the same bytes)."""
    from gin3_training.distill import run as distill_run
    main = gin3_train
    out = tmp_path / "runs"
    assert main(PIPELINES[0].fresh(out, "whole")) == 0
    real = distill_run.save_shard
    calls = {"n": 0}

    def stop_after_one(*args: Any) -> None:
        if calls["n"] == 1:
            raise KeyboardInterrupt
        calls["n"] += 1
        real(*args)

    monkeypatch.setattr(distill_run, "save_shard", stop_after_one)
    assert main(PIPELINES[0].fresh(out, "cut")) == 130
    assert "continue with: gin3 train --resume" in capsys.readouterr().err
    assert [p.name for p in (out / "cut" / "shards").iterdir()] == ["r00_0000.npz"]
    monkeypatch.setattr(distill_run, "save_shard", real)
    assert main(["--resume", str(out / "cut")]) == 0
    for name in ("net_r0.npz", "best.npz"):  # the weights (the provenance names the run folder)
        with np.load(out / "cut" / name) as a, np.load(out / "whole" / name) as b:
            assert a.files == b.files and all(np.array_equal(a[k], b[k]) for k in a.files if k != "meta")


def test_an_improvement_interrupted_after_a_shard_resumes_to_identical_weights(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gin3_training.improve import labels
    main = gin3_train
    out = tmp_path / "runs"
    assert main(PIPELINES[1].fresh(out, "whole")) == 0
    real = labels.label_shard
    calls = {"n": 0}

    def stop_after_one(*args: Any, **kw: Any) -> Any:
        if calls["n"] == 1:
            raise KeyboardInterrupt
        calls["n"] += 1
        return real(*args, **kw)

    monkeypatch.setattr(labels, "label_shard", stop_after_one)
    assert main(PIPELINES[1].fresh(out, "cut")) == 130
    assert [p.name for p in (out / "cut" / "labels").iterdir()] == ["shard_00_0000.npz"]
    monkeypatch.setattr(labels, "label_shard", real)
    assert main(["--resume", str(out / "cut")]) == 0
    with np.load(out / "cut" / "improved_r0.npz") as a, np.load(out / "whole" / "improved_r0.npz") as b:
        assert all(np.array_equal(a[k], b[k]) for k in a.files if k != "meta")


# ------------------------------------------------------------------ the improvement door and the run state
def test_a_second_fresh_improvement_run_never_replaces_a_finished_one(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """a named run into a finished one is refused; an unnamed one gets the next number."""
    main = gin3_train
    out = tmp_path / "runs"
    run_dir = out / "improve"
    write_state(run_dir, {**_improve_state(run_dir), "rounds": [{"round": 0, "state_player": "net"}]})
    (run_dir / "labels").mkdir()
    (run_dir / "labels" / "shard_00_0000.npz").write_bytes(b"theirs")
    before = (run_dir / "state.json").read_bytes()
    assert main(PIPELINES[1].fresh(out, "improve")) == 2
    assert "holds a run: continue it with --resume" in one_line(capsys)
    assert main(["--config", "improve", "--out-dir", str(out), *IMPROVE_TINY]) == 0  # not named: numbered
    assert "this run goes to" in capsys.readouterr().out and (out / "improve_2" / "improved_r0.npz").is_file()
    assert (run_dir / "state.json").read_bytes() == before


def test_improvement_refusals_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """a bad base or continuation player, a shard made with other settings, a tampered state:
    one line each, exit 2, no run folder left by a refused fresh run."""
    main = gin3_train
    out = tmp_path / "runs"
    tiny = PIPELINES[1].fresh(out, "x")
    assert main([*tiny, "--base", "/etc/passwd"]) == 2
    assert "--base /etc/passwd" in one_line(capsys)
    assert main([*tiny, "--continuation", str(tmp_path / "nope.json")]) == 2
    assert "--continuation" in one_line(capsys)
    assert not out.exists()  # nothing made by a refused fresh run
    run_dir = out / "r"
    write_state(run_dir, _improve_state(run_dir))
    (run_dir / "labels").mkdir()
    np.savez(run_dir / "labels" / "shard_00_0000.npz", run=np.array(json.dumps({"shuffles": 7})))
    assert main(["--resume", str(run_dir)]) == 2
    assert "was written with" in one_line(capsys)
    write_state(run_dir, {**_improve_state(run_dir), "rounds": [{"round": 0}]})
    (run_dir / "improved_r0.npz").write_bytes((ROOT / "gin3_env" / "models" / "net.npz").read_bytes())
    assert main(["--resume", str(run_dir), "--rounds", "2"]) == 2
    assert "damaged" in one_line(capsys)


def test_run_state_faults_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """a tampered ``rounds`` entry, a ``--teacher`` that is no player (no folder left behind),
    ``--hidden [100000,100000]``."""
    main = gin3_train
    out = tmp_path / "runs"
    run_dir = out / "t"
    write_state(run_dir, {**_distill_state(run_dir), "rounds": [{"round": 0, "choice": "x"}]})
    assert main(["--resume", str(run_dir)]) == 2
    assert "damaged" in one_line(capsys)
    write_state(run_dir, {**_distill_state(run_dir), "rounds": ["x"]})
    assert main(["--resume", str(run_dir)]) == 2
    assert "damaged" in one_line(capsys)
    assert main([*PIPELINES[0].fresh(out, "teach"), "--teacher", "/etc/passwd"]) == 2
    assert "--teacher /etc/passwd" in one_line(capsys)
    assert not (out / "teach").exists()
    assert main([*PIPELINES[0].fresh(out, "big"), "--hidden", "[100000, 100000]"]) == 2
    assert "hidden" in one_line(capsys) and not (out / "big").exists()


def test_a_full_disk_is_one_line(tmp_path: Path) -> None:
    """a file-size limit (``ulimit -f``) hit while a shard is written: one line, exit 1, the
    partial file removed."""
    import resource

    out = tmp_path / "runs"
    code = ("import sys; from gin3_training.train import main; sys.exit(main(sys.argv[1:]))")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    done = subprocess.run([sys.executable, "-c", code, *PIPELINES[0].fresh(out, "full")], cwd=ROOT, text=True,
                          capture_output=True, timeout=280, preexec_fn=limit)
    err = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(err) == 1 and "cannot write" in err[0], done.stderr[-2000:]
    assert not [p for p in (out / "full").rglob("*") if "partial" in p.name]


# ------------------------------------------------------------------ a resume that finds no run, or a finished one
@pytest.mark.parametrize("config", ["quick", "improve", "ppo_quick", None])
def test_a_mistyped_resume_says_there_is_no_run_there(config: str | None, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    main = gin3_train
    argv = ["--config", config] if config else []
    assert main([*argv, "--resume", str(tmp_path / "nonexistent")]) == 2
    assert "no such run folder" in one_line(capsys)
    (tmp_path / "other").mkdir()
    assert main([*argv, "--resume", str(tmp_path / "other")]) == 2
    assert "no run there" in one_line(capsys)


def test_a_complete_run_resumed_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main = gin3_train
    run_dir = tmp_path / "done"
    write_state(run_dir, {**_distill_state(run_dir), "rounds": [{"round": 0}], "final": True})
    assert main(["--resume", str(run_dir)]) == 0
    assert "is a complete run" in capsys.readouterr().out
    assert sorted(p.name for p in run_dir.iterdir()) == ["state.json"]


def test_a_refused_ppo_resume_leaves_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main = gin3_train
    out = tmp_path / "runs"
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    assert main(["--config", "ppo_quick", "--out-dir", str(out), "--resume", str(tmp_path / "bad.zip")]) == 2
    one_line(capsys)
    assert not out.exists()


@pytest.mark.parametrize(("layout_of", "key"), [("distill", "teacher"), ("improve", "continuation")])
def test_a_run_written_under_the_former_player_names_resumes_under_todays(tmp_path: Path, layout_of: str,
                                                                        key: str) -> None:
    """A state without ``names`` (written when the gated heuristic was named ``trained``) is read with that player
    under today's name, ``gated``, so a resume keeps the player its files were made with; a state written since
    (``names`` 2) keeps ``trained``, today the alias of the strongest learnt player; write_state records the names."""
    from gin3_training.distill.cli import load_distill_config
    from gin3_training.distill.run import LAYOUT as DISTILL
    from gin3_training.improve.run import LAYOUT as IMPROVE
    from gin3_training.improve.run import load_improve_config
    from gin3_training.run.run import NAMES, Run

    layout, load = {"distill": (DISTILL, load_distill_config), "improve": (IMPROVE, load_improve_config)}[layout_of]
    old, new = tmp_path / "old", tmp_path / "new"
    for run_dir, names in ((old, {}), (new, {"names": NAMES})):
        run_dir.mkdir()
        write_state(run_dir, {"config": {"pipeline": layout_of, key: "trained"}, "rounds": [], **names})
    assert Run(old, layout).check_resume()["config"][key] == "gated"
    assert getattr(load(None, {"resume": str(old)}), key) == "gated"
    assert Run(old, layout).check_resume({key: "gated"})["config"][key] == "gated"  # the settings compared so
    assert Run(new, layout).check_resume()["config"][key] == "trained"
    with Run(new, layout) as held:
        held.write_state({"config": {"pipeline": layout_of}, "rounds": []})
    assert json.loads((new / "state.json").read_text())["names"] == NAMES
