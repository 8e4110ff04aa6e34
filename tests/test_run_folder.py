"""A run stays in its folder, and a refused start is one line.

The run name is one plain path component; the run folder, its run files and folders and its
lock are never reached through a symbolic link; ``--overwrite`` deletes only the run's own
files inside the folder; ``gin3 evaluate --save-logs`` and ``gin3 replay --html`` write no
file through a link. Each refusal is one line on stderr and exit 2, and nothing is written
outside ``--out-dir``. A read-only ``--out-dir``, a flag value that is not YAML and Ctrl-C
while ``gin3 train`` starts are one line too."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import forkrun
import pytest
from conftest import as_from_a_shell

pytest.importorskip("sb3_contrib")

from gin3_env import cli
from gin3_training.run.checkpoints import remove_partial_files, write_bytes, write_json
from gin3_training.run.folder import (
    RunFolderError,
    check_run_folder,
    check_run_name,
    left_by_overwrite,
    prepare_run_dir,
)
from gin3_training.run.lock import RunLock

FAST = ["--config", "ppo_quick", "--total-timesteps", "64", "--final-eval-hands", "2", "--eval-hands", "2",
        "--progress-bar", "false"]


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` (links not followed) with a file's bytes (a link's target as bytes)."""
    out: dict[str, bytes | None] = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            out[rel] = os.readlink(path).encode()
        elif path.is_file():
            out[rel] = path.read_bytes()
        else:
            out[rel] = None
    return out


def train(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    try:
        code = cli.main(["train", *FAST, *args])
    except SystemExit as usage:  # a refused flag value: the parser's one-line error
        code = int(usage.code or 0)
    return code, capsys.readouterr().err


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("name", ["../victim", "..", ".", "", "a/b", "a\\b", "/abs/victim"])
def test_a_run_name_that_is_not_one_folder_name_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    name = str(tmp_path / "victim") if name.startswith("/") else name
    (tmp_path / "victim").mkdir()
    (tmp_path / "victim" / "config.json").write_text("{}")  # another folder's run files
    (tmp_path / "victim" / "best.zip").write_bytes(b"keep")
    before = tree(tmp_path)
    code, err = train(capsys, "--out-dir", str(tmp_path / "out"), "--run-name", name, "--overwrite")
    assert code == 2
    assert "run_name" in one_line(err) and "plain folder name" in err
    assert tree(tmp_path) == before  # nothing deleted, nothing written, not even --out-dir


def test_check_run_name_accepts_plain_names() -> None:
    for name in ("gin3", "run-2", "a.b", "..x", "x.."):
        assert check_run_name(name) == name


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep")
    (victim / "events").write_text("keep")
    return victim


@pytest.mark.parametrize("linked", [".lock", "tb", "snapshots", "candidates", "best.zip"])
def test_a_linked_file_in_the_run_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], linked: str
) -> None:
    victim = _victim(tmp_path)
    run = tmp_path / "out" / "run"
    run.mkdir(parents=True)
    (run / "config.json").write_text("{}")  # an earlier run, started again with --overwrite
    target = victim / "precious.txt" if linked in (".lock", "best.zip") else victim
    (run / linked).symlink_to(target)
    before = tree(tmp_path)
    code, err = train(capsys, "--out-dir", str(tmp_path / "out"), "--run-name", "run", "--overwrite")
    assert code == 2
    line = one_line(err)
    assert str(run / linked) in line and "symbolic link" in line
    assert tree(tmp_path) == before  # the link's target untouched (the pid not written into it)


def test_a_linked_run_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    victim = _victim(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "run").symlink_to(victim)
    before = tree(tmp_path)
    code, err = train(capsys, "--out-dir", str(tmp_path / "out"), "--run-name", "run")
    assert code == 2 and "symbolic link" in one_line(err)
    assert tree(tmp_path) == before


def test_the_lock_opens_no_link_even_when_planted_after_the_check(tmp_path: Path, monkeypatch) -> None:
    """The lock file is opened with O_NOFOLLOW: a link that appears between the check and the open
    is refused too, and its target keeps its bytes."""
    from gin3_training.run import lock as run_lock

    target = tmp_path / "target.txt"
    target.write_text("keep")
    run = tmp_path / "run"

    def make_then_plant(folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ".lock").symlink_to(target)

    monkeypatch.setattr(run_lock, "make_run_dir", make_then_plant)
    with pytest.raises(RunFolderError, match="symbolic link"), RunLock(run):
        pass
    assert target.read_text() == "keep"


def _earlier_run(run: Path) -> None:
    """A run folder as a run leaves it: files written through the held folder, recorded in its manifest."""
    with RunLock(run):
        write_json(run / "config.json", {})
        write_bytes(run / "best.zip", b"old")
        write_json(run / "best.json", {"name": "best"})
        write_bytes(run / "snapshots" / "step_64.zip", b"old")
        write_bytes(run / "tb" / "ppo_1" / "events", b"x")


def test_overwrite_deletes_only_the_run_files_inside_the_folder(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _earlier_run(run)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    (run / "tb" / "ppo_1" / "link").symlink_to(outside)  # a link inside tb/: not the run's, left, target kept
    (run / "notes.txt").write_text("mine")  # not a run file: stays
    (run / "tb" / "notes.txt").write_text("mine")  # a user's notes inside the run's folders stay too
    (run / "snapshots" / "why.txt").write_text("mine")
    (run / ".gin3-mine.tmp").write_text("mine")  # a user's file named like a temporary one
    deleted = prepare_run_dir(run, overwrite=True)
    assert sorted(deleted) == ["best.json", "best.zip", "config.json", "snapshots/step_64.zip", "tb/ppo_1/events"]
    left = left_by_overwrite(run)
    assert left == [".gin3-mine.tmp", "notes.txt", "snapshots/why.txt", "tb/notes.txt", "tb/ppo_1/link"]
    assert remove_partial_files(run) == [] and (run / ".gin3-mine.tmp").read_text() == "mine"
    assert outside.read_text() == "keep" and (run / "tb" / "notes.txt").read_text() == "mine"


def test_overwrite_names_the_users_files_it_leaves_and_replaces_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    run = out / "run"
    _earlier_run(run)
    (run / "tb" / "notes.txt").write_text("mine")
    (run / "final.json").write_text("mine")  # at a name the run writes, but not the earlier run's
    before = tree(tmp_path)
    code, err = train(capsys, "--out-dir", str(out), "--run-name", "run", "--overwrite")
    assert code == 2 and str(run / "final.json") in one_line(err) and "did not write" in err
    assert tree(tmp_path) == before  # refused before anything is deleted
    (run / "final.json").unlink()
    assert prepare_run_dir(run, overwrite=True) and left_by_overwrite(run) == ["tb/notes.txt"]


def test_a_hard_linked_lock_is_refused_and_its_file_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_text("my notes")
    run = tmp_path / "out" / "run"
    run.mkdir(parents=True)
    os.link(mine, run / ".lock")
    with pytest.raises(RunFolderError, match="2 links"), RunLock(run):
        pass
    code, err = train(capsys, "--out-dir", str(tmp_path / "out"), "--run-name", "run")
    assert code == 2 and "hard link" in one_line(err)
    assert mine.read_text() == "my notes"


def test_a_run_folder_swapped_for_a_link_gets_no_more_writes(tmp_path: Path) -> None:
    run = tmp_path / "out" / "run"
    outside = tmp_path / "outside"
    outside.mkdir()
    with RunLock(run):
        write_json(run / "config.json", {})
        os.rename(run, tmp_path / "moved")
        run.symlink_to(outside)
        for write in (lambda: write_json(run / "best.json", {}), lambda: write_bytes(run / "snapshots" / "s.zip", b"x"),
                      lambda: check_run_folder(run)):
            with pytest.raises(RunFolderError, match="moved or replaced"):
                write()
    assert list(outside.iterdir()) == []


def test_a_swap_during_gin3_train_stops_it_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gin3_training.ppo import train as train_module

    run = tmp_path / "out" / "run"
    outside = tmp_path / "outside"
    outside.mkdir()
    started = train_module.TrainingMonitor.rollout_started

    def swap_then_start(self: object, model: object) -> None:
        if not run.is_symlink():
            os.rename(run, tmp_path / "moved")
            run.symlink_to(outside)
        started(self, model)  # type: ignore[arg-type]

    monkeypatch.setattr(train_module.TrainingMonitor, "rollout_started", swap_then_start)
    code, err = train(capsys, "--out-dir", str(tmp_path / "out"), "--run-name", "run", "--n-envs", "1",
                      "--vec-env", "dummy", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
                      "--bc-samples", "0", "--eval-every", "0", "--checkpoint-every", "64")
    assert code == 2 and "moved or replaced" in one_line(err)
    assert list(outside.rglob("*")) == []


@pytest.mark.parametrize("flags", [["--seed", "99999999999999999999999"], ["--seed", "-1"],
                                   ["--seed", str(2**32)], ["--run-name", "r" * 300], ["--run-name", "a\nb"],
                                   ["--run-name", "a\tb"]])
def test_bad_seeds_and_run_names_are_one_line_and_leave_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    out = tmp_path / "out"
    code, err = train(capsys, "--out-dir", str(out), *(flags if "--run-name" in flags else ["--run-name", "r", *flags]))
    assert code == 2
    line = one_line(err)
    assert ("'seed' must be in 0..4294967295" in line) if "--seed" in flags else ("run_name" in line)
    assert not out.exists()


def test_an_out_dir_that_cannot_be_created_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, err = train(capsys, "--out-dir", str(blocker / "out"), "--run-name", "run")
    assert code == 2 and f"cannot create the run folder {blocker / 'out' / 'run'}" in one_line(err)


def test_a_read_only_out_dir_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o555)
    if os.access(out, os.W_OK):  # root writes anywhere: the refusal the kernel gives a user, simulated
        def refuse(self: Path, *args: object, **kwargs: object) -> None:
            raise PermissionError(13, "Permission denied", str(self))

        monkeypatch.setattr(Path, "mkdir", refuse)
    try:
        code, err = train(capsys, "--out-dir", str(out), "--run-name", "run")
    finally:
        out.chmod(0o755)
    assert code == 2 and "run folder" in one_line(err) and "ermission denied" in err
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("flag,value", [("--total-timesteps", "foo: ["), ("--net-arch", "!!python/object:os.system x"),
                                        ("--opponent-schedule", "[{until: 1.0, heuristic: 1}")])
def test_a_flag_value_that_is_not_yaml_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    code, err = train(capsys, "--out-dir", str(tmp_path / "out"), flag, value)
    assert code == 2
    line = one_line(err)
    assert flag in line and "not a YAML value" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.pipelines
def test_ctrl_c_while_gin3_train_starts_is_one_line(tmp_path: Path) -> None:
    """A SIGINT as soon as the command line runs (the training libraries still loading) stops with one
    line and exit 130, wherever it lands after that."""
    argv = ["train", *FAST, "--out-dir", str(tmp_path), "--total-timesteps", "100000"]
    code = f"import sys, gin3_env.cli as c; print('ready', flush=True); sys.exit(c.main({argv!r}))"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_from_a_shell)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    time.sleep(0.3)  # past the test's own two statements, into the command (loading takes seconds)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "SIGINT" in err, err


# ----------------------------------------------------- evaluate --save-logs, replay
def test_save_logs_into_a_linked_folder_is_refused(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    (tmp_path / "logs").symlink_to(victim)
    before = tree(tmp_path)
    done = forkrun.run(["evaluate", "heuristic", "random", "--hands", "2", "--save-logs", str(tmp_path / "logs"),
                        "--log-games", "1"])
    assert done.returncode == 2, done.stderr
    assert "symbolic link" in one_line(done.stderr)
    assert tree(tmp_path) == before


def test_save_logs_and_replay_never_write_through_a_linked_file(tmp_path: Path) -> None:
    """A link where a log or a page is written is replaced by the file; its target keeps its bytes."""
    victim = _victim(tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "hand_000_a_team.json").symlink_to(victim / "precious.txt")
    done = forkrun.run(["evaluate", "heuristic", "random", "--hands", "2", "--save-logs", str(logs),
                        "--log-games", "1"])
    assert done.returncode == 0, done.stderr
    log = logs / "hand_000_a_team.json"
    assert not log.is_symlink() and json.loads(log.read_text())
    page = tmp_path / "page.html"
    page.symlink_to(victim / "events")
    done = forkrun.run(["replay", str(log), "--html", str(page)])
    assert done.returncode == 0, done.stderr
    assert not page.is_symlink() and "<html" in page.read_text().lower()
    assert (victim / "precious.txt").read_text() == "keep" and (victim / "events").read_text() == "keep"


# ----------------------------------------------------- a run not named on the command line
def _started(monkeypatch: pytest.MonkeyPatch, *argv: str) -> str:
    """The run name ``gin3 train ARGV`` would train under (the training itself is not run)."""
    from gin3_training.ppo import train as train_module

    seen: list[str] = []
    monkeypatch.setattr(train_module, "run_train", lambda cfg, argv: seen.append(cfg.run_name) or 0)
    assert train_module.main(list(argv)) == 0
    return seen[0]


def test_a_run_not_named_gets_the_next_numbered_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    argv = ("--config", "ppo_quick", "--out-dir", str(out))
    assert _started(monkeypatch, *argv) == "ppo_quick"  # no run yet
    (out / "ppo_quick").mkdir(parents=True)
    assert _started(monkeypatch, *argv) == "ppo_quick"  # an empty folder holds no run
    (out / "ppo_quick" / "config.json").write_text("{}")
    assert _started(monkeypatch, *argv) == "ppo_quick_2"
    assert f"{out / 'ppo_quick'} holds a run: this run goes to {out / 'ppo_quick_2'}" in capsys.readouterr().out
    (out / "ppo_quick_2").mkdir()
    (out / "ppo_quick_7").mkdir()
    (out / "ppo_quick_x").mkdir()
    assert _started(monkeypatch, *argv) == "ppo_quick_8"
    assert _started(monkeypatch, *argv, "--overwrite") == "ppo_quick"  # --overwrite and --resume mean that run
    assert _started(monkeypatch, *argv, "--resume", str(out / "ppo_quick" / "checkpoint.zip")) == "ppo_quick"
    assert _started(monkeypatch, *argv, "--run-name", "ppo_quick") == "ppo_quick"  # named: refused below


def test_a_named_run_that_exists_is_still_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "out" / "run"
    run.mkdir(parents=True)
    (run / "final.zip").write_text("earlier")
    code, err = train(capsys, "--out-dir", str(tmp_path / "out"), "--run-name", "run")
    assert code == 2 and "already holds a run" in one_line(err)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["run"]
