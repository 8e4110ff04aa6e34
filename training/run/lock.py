"""One run folder, one writer: an advisory lock held for the life of a ``gin3 train``.

:class:`RunLock` takes ``fcntl.flock`` on ``RUN_DIR/.lock`` (``msvcrt.locking``
on Windows). The kernel holds the lock for an open file, so a process that dies
in any way (``kill -9`` included) releases it at once; the file itself stays
(deleting it would let two processes lock two different files) and holds the
pid of the last holder, for the message a second ``gin3 train`` prints.

The lock file is opened without following a link (``O_NOFOLLOW``), through the
descriptor of a run folder that is no link either (:class:`~.folder.RunFolder`,
held for the run: the run's writes go through it), and must be a regular file with
one link: a link planted at ``RUN_DIR/.lock``, or a hard link to a file of the
user's, is refused (:class:`~.folder.RunFolderError`) instead of having its
target overwritten with the pid.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from types import TracebackType

from gin3_training.run.folder import LOCK_NAME, RunFolder, RunFolderError, make_run_dir, open_run_folder

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

    def __init__(self, run_dir: str | os.PathLike[str], command: str = "gin3 train",
                 check: tuple[str, ...] | None = None) -> None:
        """``command`` is named to a second process refused; ``check``: the names in the folder that must
        not be links (default: a run's files, :func:`~.folder.check_no_links`)."""
        self.run_dir = Path(run_dir)
        self.command = command
        self.check = check
        self.path = self.run_dir / LOCK_NAME
        self._fd: int | None = None
        self.folder: RunFolder | None = None

    def acquire(self) -> None:
        if self.check is None:  # a linked or unwritable run folder: RunFolderError
            make_run_dir(self.run_dir)
        else:
            make_run_dir(self.run_dir, self.check)
        folder = open_run_folder(self.run_dir, "run folder" if self.command == "gin3 train" else "folder")
        try:
            fd = os.open(LOCK_NAME, _OPEN_FLAGS, 0o644, dir_fd=folder.fd)
        except OSError as exc:  # ELOOP: a link planted at .lock (O_NOFOLLOW)
            folder.close()
            if self.path.is_symlink():
                raise RunFolderError(f"{self.path} is a symbolic link; the run lock is never taken through "
                                     "a link (remove it)") from None
            raise RunFolderError(f"cannot open the run lock {self.path}: {exc.strerror or exc}") from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            os.close(fd)
            folder.close()
            what = "not a regular file" if not stat.S_ISREG(st.st_mode) else f"a file with {st.st_nlink} links " \
                "(a hard link to another file)"
            raise RunFolderError(f"{self.path} is {what}; the run lock is only ever a file of its own (remove it)")
        if not _try_lock(fd):
            holder = self._holder(fd)
            os.close(fd)
            folder.close()
            who = f" (pid {holder})" if holder else ""
            raise RunLockedError(
                f"{'run folder ' if self.command == 'gin3 train' else ''}{self.run_dir} is in use by another "
                f"{self.command}{who}; wait for it to end, "
                + ("or choose another --run-name or --out-dir" if self.command == "gin3 train" else
                   "or choose another folder")
            )
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        self.folder = folder

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
        if self.folder is not None:
            self.folder.close()
            self.folder = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
