"""Ctrl-C and ``kill`` during ``gin3 train``: checkpoint, stop the workers, exit 130 or 143.

:class:`GracefulStop` owns SIGINT and SIGTERM for a training run:

- before PPO starts (setting up, imitation warm start) a signal stops at once:
  there is nothing to checkpoint yet (:class:`~gin3_env.signals.Interrupted`);
- while PPO runs (:meth:`GracefulStop.learn`) the first signal only sets a flag
  and says so; an SB3 callback checked at every environment step ends
  ``learn`` at the next step (an evaluation in progress finishes first); the
  training script then writes the checkpoint and calls :meth:`after_checkpoint`,
  which stops the workers and raises :class:`TrainingStopped` (the command line
  prints where the checkpoint is and how to resume, and exits ``128 + signal``);
- a second signal stops at once: workers are killed, half-written temporary
  files removed, and the process exits ``128 + signal``; the last complete
  checkpoint on disk is still whole (:mod:`.checkpoints`). After the stopped run
  has left the ``with`` block (the process is printing and ending) a further
  signal still exits ``128 + signal`` at once.

If a worker dies under ``learn`` (a SIGTERM sent to the whole process group
reaches the workers too, or the system killed one), the model in this process
is intact: ``learn`` returns as if stopped, and the run is checkpointed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from gin3_env.signals import STOP_SIGNALS, Interrupted, exit_code, signal_name
from gin3_training.run.checkpoints import remove_partial_files
from gin3_training.run.workers import stop_workers, worker_processes

WORKER_FAILURES = (EOFError, BrokenPipeError, ConnectionResetError)


class TrainingStopped(Exception):
    """Training stopped early (a signal or a dead worker) after writing its checkpoint."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.exit_code = code


class GracefulStop:
    """The stop handling of one training run (see the module doc). A context manager."""

    def __init__(
        self,
        run_dir: str | os.PathLike[str] | None = None,
        argv: list[str] | None = None,
        stream: TextIO | None = None,
        unit: str = "step",
    ) -> None:
        self.run_dir = None if run_dir is None else Path(run_dir)
        self.unit = unit  # what the first signal lets finish: an env step (SB3), an iteration (RLlib)
        self.argv = list(argv or [])
        self.stream = stream
        self.signum: int | None = None
        self.worker_failure: BaseException | None = None
        self._deferred = False
        self._vec_env: Any = None
        self._previous: dict[int, Any] = {}
        self.on_abort: Callable[[], None] | None = None  # more to kill on the second signal (a local Ray)

    # ------------------------------------------------------------ handlers
    def __enter__(self) -> GracefulStop:
        if threading.current_thread() is threading.main_thread():
            self._previous = {sig: signal.signal(sig, self._handle) for sig in STOP_SIGNALS}
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        if exc_type is not None and self._vec_env is not None:
            stop_workers(self._vec_env)  # a failure under learn: no worker outlives it
        if exc_type is TrainingStopped and self.signum is not None and self._previous:
            # stopped by a signal: the process is ending (the checkpoint is written); another signal
            # while it prints and exits ends it at once, with the same 128 + signal
            for sig in self._previous:
                signal.signal(sig, _exit_at_once)
        else:
            for sig, handler in self._previous.items():
                signal.signal(sig, handler)
        self._previous = {}

    def _say(self, text: str) -> None:
        print(text, file=self.stream or sys.stderr, flush=True)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        name = signal_name(signum)
        if self.signum is not None:
            self._abort(signum)
        if not self._deferred:
            raise Interrupted(signum)
        self.signum = signum
        self._say(f"\ngin3 train: {name} received: stopping after the current {self.unit} and writing a checkpoint "
                  f"({name} again stops at once, without it)")

    def _abort(self, signum: int) -> None:
        """The second signal: kill the workers, drop temporary files, exit now."""
        for process in worker_processes(self._vec_env):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                process.kill()
        if self.on_abort is not None:
            with contextlib.suppress(Exception):
                self.on_abort()
        if self.run_dir is not None:
            remove_partial_files(self.run_dir)
        where = f" in {self.run_dir}" if self.run_dir is not None else ""
        self._say(f"gin3 train: {signal_name(signum)} again: stopped at once; the last complete checkpoint{where} "
                  "is unchanged")
        os._exit(exit_code(signum))

    def reinstall(self) -> None:
        """Take SIGINT and SIGTERM back after a library replaced their handlers below Python (Ray's
        core, started by ``ray.init``, installs its own SIGTERM handler, which aborts the process)."""
        if self._previous and threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                signal.signal(sig, self._handle)

    def defer(self, on: bool = True) -> None:
        """From now on the first signal only sets the flag (:attr:`requested`), checked by the caller's
        loop (the RLlib backend checks it between ``algo.train()`` iterations); ``defer(False)``: a
        signal stops at once again (:class:`Interrupted`)."""
        self._deferred = on

    @property
    def requested(self) -> bool:
        """True once training should stop (a signal, or a worker that died)."""
        return self.signum is not None or self.worker_failure is not None

    # ------------------------------------------------------------ learning
    def callback(self) -> Any:
        """An SB3 callback that ends ``learn`` at the first step after a stop request."""
        from stable_baselines3.common.callbacks import BaseCallback

        stop = self

        class _StopOnSignal(BaseCallback):
            def _on_training_start(self) -> None:
                stop._vec_env = self.training_env
                print(f"training from step {self.model.num_timesteps:,}: Ctrl-C (SIGINT) or SIGTERM writes a "
                      "checkpoint and stops", flush=True)

            def _on_step(self) -> bool:
                return not stop.requested

        return _StopOnSignal()

    def learn(self, model: Any, callback: Any = None, **kwargs: Any) -> Any:
        """``model.learn(...)`` with stop signals deferred to the callback (and a dead worker caught)."""
        callbacks = [c for c in (callback if isinstance(callback, list) else [callback]) if c is not None]
        self._vec_env = model.get_env()
        self._deferred = True
        try:
            return model.learn(callback=[*callbacks, self.callback()], **kwargs)
        except WORKER_FAILURES as exc:
            self.worker_failure = exc
            return model
        # signals stay deferred (a flag) until after_checkpoint: the final checkpoint is written first

    def after_checkpoint(self, checkpoint: Path, steps: int, vec_env: Any) -> None:
        """Called once the checkpoint after ``learn`` is written: if a stop was asked for, stop the
        workers and raise :class:`TrainingStopped`; else later signals stop at once."""
        if not self.requested:
            self._deferred = False
            return
        stop_workers(vec_env)
        if self.signum is not None:
            why, code = f"stopped by {signal_name(self.signum)}", exit_code(self.signum)
        else:
            why, code = f"stopped: a vectorised-env worker died ({type(self.worker_failure).__name__})", 1
        raise TrainingStopped(
            f"gin3 train: {why} at step {steps:,}; checkpoint written to {checkpoint}\n"
            f"resume with: {resume_command(self.argv, checkpoint)}",
            code,
        )


def _exit_at_once(signum: int, frame: FrameType | None) -> None:
    """A signal after a run stopped by one: exit now, ``128 + signal``."""
    os._exit(exit_code(signum))


def resume_command(argv: list[str], checkpoint: Path) -> str:
    """The command that continues this run: the same arguments with ``--resume CHECKPOINT``
    (without ``--overwrite``, which would have no effect with it)."""
    import shlex

    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--resume":
            skip = True
            continue
        if arg.startswith("--resume=") or arg == "--overwrite":  # resuming writes on into the run
            continue
        out.append(arg)
    return shlex.join(["gin3", "train", *out, "--resume", str(checkpoint)])
