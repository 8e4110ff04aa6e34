"""Vectorised-env workers that never outlive the training process, and stopping them.

stable-baselines3's ``SubprocVecEnv`` workers wait for commands on a pipe; with
the ``fork`` start method each worker also inherits the parent's ends of the
other workers' pipes, so a parent that dies (``kill -9``, a crash) never closes
them and the workers wait forever, adopted by init. :func:`guarded` wraps an
env factory so that the worker, first thing:

- ignores SIGINT: Ctrl-C reaches the whole foreground process group, and the
  training process decides how to stop (it needs the workers for the step in
  flight, then closes them);
- asks Linux to SIGKILL it when its parent dies (``prctl(PR_SET_PDEATHSIG)``),
  however the parent dies;
- runs a watchdog thread that exits the worker within about half a second once
  the training process is gone (where ``prctl`` is not available, and for start
  methods whose direct parent is a server process).

In the training process itself (``DummyVecEnv``) the wrapper does nothing.
:func:`stop_workers` closes a vectorised env and kills any worker that does not
exit in time.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
PR_SET_PDEATHSIG = 1
WATCH_INTERVAL_S = 0.5


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def set_parent_death_signal(signum: int | None = None) -> bool:
    """Linux: have the kernel send ``signum`` (default SIGKILL) to this process when its parent
    exits. False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    signum = signal.SIGKILL if signum is None else signum
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch(training_pid: int, parent_pid: int) -> None:
    while True:
        time.sleep(WATCH_INTERVAL_S)
        if os.getppid() != parent_pid or not _alive(training_pid):
            os._exit(1)


def guard_worker(training_pid: int) -> None:
    """Called first in a worker process: die with the training process ``training_pid``."""
    if os.getpid() == training_pid:
        return  # not a worker: the env is built in the training process
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_parent_death_signal()
    parent = os.getppid()
    if parent == 1 or not _alive(training_pid):  # it died before the death signal was set
        os._exit(1)
    threading.Thread(target=_watch, args=(training_pid, parent), name="gin3-parent-watchdog", daemon=True).start()


class _Guarded(Generic[T]):
    """A class rather than a closure, so that it pickles for every start method."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self.factory = factory
        self.training_pid = os.getpid()

    def __call__(self) -> T:
        guard_worker(self.training_pid)
        return self.factory()


def guarded(factory: Callable[[], T]) -> Callable[[], T]:
    """An env factory that first calls :func:`guard_worker` with the pid of the process calling this."""
    return _Guarded(factory)


def worker_processes(vec_env: Any) -> list[Any]:
    """The ``multiprocessing`` processes behind a (wrapped) ``SubprocVecEnv``; [] for others."""
    env = vec_env
    for _ in range(16):
        processes = getattr(env, "processes", None)
        if processes is not None:
            return list(processes)
        env = getattr(env, "venv", None)
        if env is None:
            break
    return []


def stop_workers(vec_env: Any, timeout: float = 10.0) -> None:
    """Close ``vec_env``; kill any worker still alive after ``timeout`` seconds. Never raises."""
    processes = worker_processes(vec_env)
    closer = threading.Thread(target=_close_quietly, args=(vec_env,), daemon=True)
    closer.start()
    closer.join(timeout)
    for process in processes:
        process.join(max(0.0, timeout / 4) if closer.is_alive() else 1.0)
        if process.is_alive():
            process.kill()
            process.join(2.0)


def _close_quietly(vec_env: Any) -> None:
    # a worker already gone breaks the pipes: its process is reaped by stop_workers
    with contextlib.suppress(OSError, EOFError, ValueError, AttributeError):
        vec_env.close()
