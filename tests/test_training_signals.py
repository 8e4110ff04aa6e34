"""Real signals to a real ``gin3 train`` (two SubprocVecEnv workers, ``--vec-env subproc`` chosen
explicitly: the default is the batched env, which has no worker process): checkpoint, exit code, no
process left; SIGKILL at any moment leaves a resumable run; one writer per run folder. One test
stops a run of the batched default the same way."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import forkrun
import pytest
from conftest import as_from_a_shell

pytest.importorskip("sb3_contrib")
if not Path("/proc/self/stat").exists():  # pragma: no cover - the process table is read from /proc
    pytest.skip("needs Linux /proc", allow_module_level=True)

from gin3_training.run.checkpoints import read_checkpoint
from gin3_training.run.lock import RunLock

READY = "Ctrl-C (SIGINT) or SIGTERM writes a checkpoint"
LONG = [
    "--total-timesteps", "1000000",
    "--n-envs", "2",
    "--vec-env", "subproc",
    "--n-steps", "128",
    "--batch-size", "128",
    "--n-epochs", "1",
    "--bc-samples", "0",
    "--eval-every", "1000000",
    "--eval-hands", "4",
    "--checkpoint-every", "1000000",
    "--final-eval-hands", "4",
    "--progress-bar", "false",
]
# the same run on the default vectorised env (batched: every hand in the training process)
BATCHED = [arg for i, arg in enumerate(LONG) if "--vec-env" not in LONG[i - 1 : i + 1]]
assert "--vec-env" not in BATCHED and "subproc" not in BATCHED


class Run:
    """``gin3 train`` in its own session (so its process group is its pid), output read by threads."""

    def __init__(self, out_dir: Path, *extra: str, base: list[str] = LONG) -> None:
        self.args = ["train", "--config", "ppo_quick", "--out-dir", str(out_dir), "--run-name", "run", *base, *extra]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gin3_env.cli", *self.args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=as_from_a_shell,
        )
        self.lines: queue.Queue[tuple[str, str]] = queue.Queue()
        self.out: list[str] = []
        self.err: list[str] = []
        for name, stream, sink in (("out", self.proc.stdout, self.out), ("err", self.proc.stderr, self.err)):
            threading.Thread(target=self._pump, args=(name, stream, sink), daemon=True).start()

    def _pump(self, name: str, stream: object, sink: list[str]) -> None:
        for line in stream:  # type: ignore[attr-defined]
            sink.append(line)
            self.lines.put((name, line))

    def wait_for(self, text: str, timeout: float = 90) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                _, line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            if text in line:
                return
        raise AssertionError(f"{text!r} never printed; stdout {''.join(self.out)[-2000:]} "
                             f"stderr {''.join(self.err)[-3000:]}")

    def finish(self, timeout: float = 90) -> int:
        try:
            code = self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
        time.sleep(0.2)  # let the reader threads drain the pipes
        return code

    @property
    def stderr(self) -> str:
        return "".join(self.err)


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # fields from the state on


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def _processes() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` in the process table."""
    children: dict[int, list[int]] = {}
    for p in _processes():
        fields = _stat(p)
        if fields is not None:
            children.setdefault(int(fields[1]), []).append(p)
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found and _alive(child):
                found.add(child)
                todo.append(child)
    return found


def group_members(pgid: int) -> set[int]:
    """Live processes of the process group ``pgid``."""
    out = set()
    for p in _processes():
        fields = _stat(p)
        if fields is not None and int(fields[3]) == pgid and fields[0] not in ("Z", "X"):
            out.add(p)
    return out


def workers_of(run: Run) -> set[int]:
    end = time.monotonic() + 30
    while time.monotonic() < end:
        found = descendants(run.proc.pid)
        if len(found) >= 2:
            return found
        time.sleep(0.1)
    raise AssertionError("the two SubprocVecEnv workers never appeared")


def assert_all_gone(pids: set[int], pgid: int, within: float = 5.0) -> None:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if not any(_alive(p) for p in pids) and not group_members(pgid):
            return
        time.sleep(0.1)
    left = {p for p in pids if _alive(p)} | group_members(pgid)
    raise AssertionError(f"processes left {within} s after the run ended: {sorted(left)}")


def _no_traceback(text: str) -> None:
    assert "Traceback" not in text, text[-3000:]


@pytest.mark.pipelines
def test_sigint_checkpoints_stops_workers_and_a_second_run_on_the_folder_is_refused(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.wait_for(READY)
    workers = workers_of(run)
    # one run, one writer: a second gin3 train on the same folder refuses with one line
    second = forkrun.run(run.args, timeout=120)
    assert second.returncode == 2, second.stderr
    assert second.stderr.strip().count("\n") == 0, second.stderr
    assert f"in use by another gin3 train (pid {run.proc.pid})" in second.stderr
    os.kill(run.proc.pid, signal.SIGINT)
    assert run.finish() == 130
    err = run.stderr
    _no_traceback(err)
    checkpoint = tmp_path / "run" / "checkpoint.zip"
    assert f"checkpoint written to {checkpoint}" in err
    assert f"resume with: gin3 train --config ppo_quick --out-dir {tmp_path}" in err and f"--resume {checkpoint}" in err
    assert_all_gone(workers, run.proc.pid)
    state, notes = read_checkpoint(checkpoint)
    assert [h["step"] for h in state["eval_history"]] == [0] and not notes  # only the point before PPO
    assert not list((tmp_path / "run").glob("*.partial*"))


@pytest.mark.pipelines
def test_sigint_checkpoints_with_the_batched_default(tmp_path: Path) -> None:
    run = Run(tmp_path, "--progress-every", "1", base=BATCHED)
    run.wait_for(READY)
    run.wait_for("(sampling ")  # a progress line after a whole rollout of the batched env is done
    assert not descendants(run.proc.pid)  # no worker process to stop
    os.kill(run.proc.pid, signal.SIGINT)
    assert run.finish() == 130
    err = run.stderr
    _no_traceback(err)
    checkpoint = tmp_path / "run" / "checkpoint.zip"
    assert "stopped by SIGINT at step" in err and f"checkpoint written to {checkpoint}" in err
    assert f"--resume {checkpoint}" in err and "subproc" not in err
    assert_all_gone(set(), run.proc.pid)
    state, notes = read_checkpoint(checkpoint)
    assert [h["step"] for h in state["eval_history"]] == [0] and not notes  # only the point before PPO
    import json

    assert json.loads((tmp_path / "run" / "checkpoint.json").read_text())["num_timesteps"] > 0
    assert not list((tmp_path / "run").glob("*.partial*"))


@pytest.mark.pipelines
def test_sigterm_checkpoints_and_the_checkpoint_resumes(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.wait_for(READY)
    workers = workers_of(run)
    os.kill(run.proc.pid, signal.SIGTERM)
    assert run.finish() == 143
    _no_traceback(run.stderr)
    assert "stopped by SIGTERM at step" in run.stderr
    assert_all_gone(workers, run.proc.pid)
    checkpoint = tmp_path / "run" / "checkpoint.zip"
    import json

    steps = json.loads((tmp_path / "run" / "checkpoint.json").read_text())["num_timesteps"]
    assert steps > 0
    resumed = forkrun.run([*run.args, "--vec-env", "dummy", "--total-timesteps", str(steps + 256), "--resume",
                           str(checkpoint)], timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"resumed from {checkpoint} at step {steps:,}" in resumed.stdout


@pytest.mark.pipelines
def test_a_second_signal_stops_at_once(tmp_path: Path) -> None:
    # every step evaluates (slow), so the first signal's stop is still waiting when the second comes
    run = Run(tmp_path, "--eval-every", "1", "--eval-hands", "60")
    run.wait_for(READY)
    workers = workers_of(run)
    os.kill(run.proc.pid, signal.SIGINT)
    run.wait_for("stopping after the current step")
    os.kill(run.proc.pid, signal.SIGINT)
    assert run.finish() == 130
    _no_traceback(run.stderr)
    assert "SIGINT again: stopped at once" in run.stderr
    assert_all_gone(workers, run.proc.pid)
    assert not (tmp_path / "run" / "checkpoint.zip").exists()
    assert not list((tmp_path / "run").glob("*.partial*"))


@pytest.mark.pipelines
def test_sigkill_leaves_no_process_and_a_resumable_run(tmp_path: Path) -> None:
    # a checkpoint at every step: the kill very likely lands while one is being written
    run = Run(tmp_path, "--checkpoint-every", "2")
    run.wait_for(READY)
    workers = workers_of(run)
    checkpoint = tmp_path / "run" / "checkpoint.zip"
    end = time.monotonic() + 60
    while not checkpoint.exists() and time.monotonic() < end:
        time.sleep(0.05)
    time.sleep(0.3)
    os.kill(run.proc.pid, signal.SIGKILL)
    assert run.finish() == -signal.SIGKILL
    assert_all_gone(workers, run.proc.pid)
    with RunLock(tmp_path / "run"):  # the dead run holds no lock
        pass
    state, _ = read_checkpoint(checkpoint)  # the last complete checkpoint: model and state agree
    assert state["last_checkpoint"] > 0
