"""One run folder, one writer: an advisory lock held for the life of a ``gin3 train``.

:class:`RunLock` takes ``fcntl.flock`` on ``RUN_DIR/.lock`` (``msvcrt.locking``
on Windows). The kernel holds the lock for an open file, so a process that dies
in any way (``kill -9`` included) releases it at once; the file itself stays
(deleting it would let two processes lock two different files) and holds the
pid of the last holder, for the message a second ``gin3 train`` prints.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import TracebackType

LOCK_NAME = ".lock"


class RunLockedError(RuntimeError):
    """Another process holds the run folder."""


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - not run on the CI
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    return True


class RunLock:
    """``with RunLock(run_dir):`` -- :class:`RunLockedError` if another process already holds it."""

    def __init__(self, run_dir: str | os.PathLike[str]) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if not _try_lock(fd):
            holder = self._holder(fd)
            os.close(fd)
            who = f" (pid {holder})" if holder else ""
            raise RunLockedError(
                f"run folder {self.run_dir} is in use by another gin3 train{who}; wait for it to end, "
                "or choose another --run-name or --out-dir"
            )
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    @staticmethod
    def _holder(fd: int) -> str:
        try:
            return os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        except (OSError, AttributeError):
            return ""

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor drops the lock
            self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
