"""One run folder, one writer: an advisory lock held for the life of a ``gin3 train``.

:class:`RunLock` takes ``fcntl.flock`` on ``RUN_DIR/.lock`` (``msvcrt.locking``
on Windows). The kernel holds the lock for an open file, so a process that dies
in any way (``kill -9`` included) releases it at once; the file itself stays
(deleting it would let two processes lock two different files) and holds the
pid of the last holder, for the message a second ``gin3 train`` prints.

The lock file is opened without following a link (``O_NOFOLLOW``), in a run
folder that is no link either (:func:`~.folder.make_run_dir`): a link planted
at ``RUN_DIR/.lock`` is refused (:class:`~.folder.RunFolderError`) instead of
having its target overwritten with the pid.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import TracebackType

from .folder import LOCK_NAME, RunFolderError, make_run_dir

__all__ = ["LOCK_NAME", "RunLock", "RunLockedError"]
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


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
        make_run_dir(self.run_dir)  # a linked or unwritable run folder: RunFolderError
        try:
            fd = os.open(self.path, _OPEN_FLAGS, 0o644)
        except OSError as exc:  # ELOOP: a link planted at .lock (O_NOFOLLOW)
            if self.path.is_symlink():
                raise RunFolderError(f"{self.path} is a symbolic link; the run lock is never taken through "
                                     "a link (remove it)") from None
            raise RunFolderError(f"cannot open the run lock {self.path}: {exc.strerror or exc}") from None
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
