"""One run, one mechanism: :class:`Run` holds a pipeline's run folder, whichever pipeline it is.

Every pipeline of the lab (distillation, improvement, PPO, gates) holds its folder through this class:

* **checks first, nothing made before they pass**: :meth:`Run.check_fresh` (a fresh run: the folder is no
  link, holds no earlier run and no file of the user's at a name the run writes) and :meth:`Run.check_resume`
  (the folder holds a run of *this* pipeline, its ``state.json`` read through the checked readers, and the
  recorded settings that made its files match this command's) run before the folder, its lock or any file
  is created, so a refused command leaves nothing behind;
* **the lock** (:class:`~.lock.RunLock`: one run, one writer), taken by ``with run:``, which also holds the
  folder open (:class:`~.folder.RunFolder`);
* **writes and deletes through the folder's descriptor** (:meth:`Run.write`, :meth:`Run.unlink`): written to
  ``.NAME.gin3-partial`` inside the held folder and renamed into place, no link followed (a link planted at
  the partial name is removed, never written through; a linked subfolder such as ``shards`` is refused);
  a path inside the held folder written with :func:`~.checkpoints.write_bytes` goes the same way;
* **reads through the checked readers** (:meth:`Run.read`, :meth:`Run.read_state`): a regular file only,
  opened without following a link and without blocking (a FIFO or a link to ``/dev/zero`` is refused in
  one line), a size cap, and for JSON a nesting cap;
* **a numbered name** for a fresh run not named on the command line (:func:`fresh_run_name`).

Every refusal is a :class:`~.folder.RunFolderError` (a ``ValueError``) or a
:class:`~.lock.RunLockedError` with a one-line message; :data:`REFUSALS` lists them for a door's ``except``.
"""

from __future__ import annotations

import contextlib
import fnmatch
import io
import json
import os
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from gin3_env.files import PARTIAL, InputFileError, parse_json, read_regular_file
from gin3_training.run.folder import LOCK_NAME, MANIFEST, RunFolder, RunFolderError
from gin3_training.run.lock import RunLock, RunLockedError, _try_lock
from gin3_training.run.record import MAX_STATE_BYTES, MAX_STATE_DEPTH, STATE

__all__ = ["REFUSALS", "Layout", "Run", "RunFolderError", "RunLockedError", "fresh_run_name", "size_text",
           "start_checks", "stopped"]

REFUSALS: tuple[type[Exception], ...] = (RunFolderError, RunLockedError, InputFileError)
_OPEN_READ = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
              | getattr(os, "O_BINARY", 0))


@dataclass(frozen=True)
class Layout:
    """What a pipeline writes in its run folder: ``files`` (names or ``fnmatch`` patterns at the top),
    ``folders`` (subfolders it fills), ``settings`` (the config keys that made its files: a resume with
    other values is refused), ``resume_only`` (what only a resume needs: removed when the run finishes) and
    ``players`` (the config keys that name a player: read under today's names, :data:`NAMES`)."""

    pipeline: str
    files: tuple[str, ...]
    folders: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()
    resume_only: tuple[str, ...] = ()
    players: tuple[str, ...] = ()
    records: bool = True  # the run's manifest and half-written files are handled here (PPO: by prepare_run_dir)

    def is_run_name(self, name: str) -> bool:
        """Whether ``name`` (at the top of the folder) is one this pipeline writes."""
        if name in (STATE, LOCK_NAME, MANIFEST, *self.folders) or name.endswith(PARTIAL):
            return True
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.files)


# The player names a run's state is written under (its "names"): 2 since `trained` became the alias of the strongest
# learnt player and the gated heuristic was named `gated`. In a state without it, written under the names before, a
# player named by the layout's ``players`` settings is read under today's name (FORMER_NAMES).
NAMES = 2
FORMER_NAMES: dict[str, str] = {"trained": "gated"}


def today_name(spec: Any) -> Any:
    """A player spec as runs and files before :data:`NAMES` 2 wrote it, under today's name (else as it is)."""
    return FORMER_NAMES.get(spec, spec) if isinstance(spec, str) else spec


def size_text(n: int) -> str:
    """``n`` bytes for a person: ``1.2 GB``, ``340 MB``, ``12 kB``."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} bytes"


def stopped(exc: BaseException, run_dir: Path) -> int:
    """The exit code of a run that ended on ``exc``, said in one line on stderr: a refusal (one of
    :data:`REFUSALS` or a ``ValueError``) 2, a failed write 1 (the file it would have replaced kept), Ctrl-C 130
    (the finished work kept); each line says how to continue where there is a run to continue."""
    from gin3_training.run.checkpoints import RunWriteError

    again = f"continue with: gin3 train --resume {run_dir}"
    if isinstance(exc, RunWriteError):
        print(f"gin3 train: error: {exc}; the file it would have replaced is unchanged; {again}", file=sys.stderr)
        return 1
    if isinstance(exc, KeyboardInterrupt):
        print(f"gin3 train: stopped; its finished shards and rounds are kept; {again}", file=sys.stderr)
        return 130
    print(f"gin3 train: error: {exc}", file=sys.stderr)
    return 2


def start_checks(layout: Layout, run_dir: Path, settings: dict[str, Any], *, resume: bool,
                 named: bool) -> tuple[Path, dict[str, Any] | None]:
    """The checks a pipeline makes before it starts, nothing made yet: on ``resume``, the run recorded in
    ``run_dir`` (its state, checked against ``settings``); else the folder of a fresh run (the next free
    number where the run was not named on the command line, said in one line) checked as free. Returns the
    run folder and the recorded state (None for a fresh run); a refusal is one of :data:`REFUSALS`."""
    if resume:
        return run_dir, Run(run_dir, layout).check_resume(settings)
    if not named:
        name = fresh_run_name(run_dir.parent, run_dir.name)
        if name != run_dir.name:
            print(f"{run_dir} is taken: this run goes to {run_dir.parent / name}", flush=True)
            run_dir = run_dir.parent / name
    Run(run_dir, layout).check_fresh()
    return run_dir, None


def fresh_run_name(out_dir: Path, name: str) -> str:
    """The name of a fresh run not named on the command line: ``name`` while ``out_dir/name`` is missing or
    an empty folder, else ``name_N``, one more than the highest number taken (``quick``, ``quick_2``, ...).
    A linked folder keeps its name, so that it is refused, not moved aside."""
    base = out_dir / name
    if base.is_symlink() or not base.exists() or (base.is_dir() and not any(base.iterdir())):
        return name
    taken = [1]
    prefix = f"{name}_"
    if out_dir.is_dir():
        for entry in out_dir.iterdir():
            suffix = entry.name[len(prefix):]
            if entry.name.startswith(prefix) and suffix.isdigit() and suffix == str(int(suffix)):
                taken.append(int(suffix))
    n = max(taken) + 1
    while (out_dir / f"{name}_{n}").exists() or (out_dir / f"{name}_{n}").is_symlink():
        n += 1
    return f"{name}_{n}"


class Run:
    """A pipeline's run folder ``run_dir`` laid out as ``layout`` (see the module doc).

    ``with Run(...) as run:`` takes the lock and holds the folder (creating it); the checks
    (:meth:`check_fresh`, :meth:`check_resume`) come before, and create nothing."""

    def __init__(self, run_dir: str | os.PathLike[str], layout: Layout, command: str = "gin3 train",
                 check: tuple[str, ...] | None = None, elsewhere: str = "choose another --run-name") -> None:
        """``elsewhere``: the way out a refusal names (train-gate: another ``--out``)."""
        self.path = Path(run_dir)
        self.elsewhere = elsewhere
        self.layout = layout
        self.command = command
        self.lock = RunLock(self.path, command, check)

    # -------------------------------------------------------------- before anything is made
    def _check_not_linked(self) -> None:
        if self.path.is_symlink():
            raise RunFolderError(f"run folder {self.path} is a symbolic link; a run writes only into a real folder "
                                 "(choose another --run-name or --out-dir)")
        if self.path.exists() and not self.path.is_dir():
            raise RunFolderError(f"{self.path} is a file, not a run folder")
        above = self.path.parent
        while not above.exists() and not above.is_symlink() and above != above.parent:
            above = above.parent
        if above.exists() and not above.is_dir():
            raise RunFolderError(f"cannot create the run folder {self.path}: {above} is a file, not a folder")

    def check_free(self) -> None:
        """A :class:`~.lock.RunLockedError` where another process holds the folder's lock (probed, not taken; a lock
        file that is a link or no regular file is left to the lock's own refusal)."""
        if self.lock.folder is not None:  # held by this run
            return
        try:
            fd = os.open(self.path / LOCK_NAME, _OPEN_READ)
        except OSError:
            return
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return
            if not _try_lock(fd):
                holder = RunLock._holder(fd)
                who = f" (pid {holder})" if holder else ""
                raise RunLockedError(
                    f"{'run folder ' if self.command == 'gin3 train' else ''}{self.path} is in use by another "
                    f"{self.command}{who}; wait for it to end, or {self.elsewhere}")
        finally:
            os.close(fd)  # a lock taken by the probe goes with its descriptor

    def check_fresh(self) -> None:
        """Refuse a fresh run into ``run_dir`` if it is a link or a file, holds a run (``--resume`` it), or
        holds a file of the user's at a name this run writes; creates nothing."""
        self._check_not_linked()
        if not self.path.is_dir():
            return
        self.check_free()
        if os.path.lexists(self.path / STATE):
            raise RunFolderError(f"{self.path} holds a run: continue it with --resume {self.path}, or "
                                 f"{self.elsewhere}")
        theirs = sorted(entry.name for entry in self.path.iterdir() if self.layout.is_run_name(entry.name)
                        and entry.name not in (LOCK_NAME, MANIFEST))
        linked = [name for name in theirs if (self.path / name).is_symlink()]
        if linked:
            raise RunFolderError(f"{self.path / linked[0]} is a symbolic link; a run writes and deletes only its own "
                                 f"files inside its folder (remove the link or {self.elsewhere})")
        if theirs:
            shown = ", ".join(theirs[:4]) + (", ..." if len(theirs) > 4 else "")
            raise RunFolderError(f"{self.path} holds files gin3 did not write for a run ({shown}) at names a run "
                                 f"writes; move them away or {self.elsewhere}")

    def check_resume(self, config: dict[str, Any] | None = None) -> dict[str, Any]:
        """The state of the run to continue in ``run_dir``: refused (one line, nothing made) where there is no
        run there, a run of another pipeline, a state that is not a regular JSON file of bounded size and
        nesting, or (with ``config``) recorded settings (:attr:`Layout.settings`) that differ from ``config``."""
        if not self.path.exists() and not self.path.is_symlink():
            raise RunFolderError(f"--resume {self.path}: no run there (no such folder)")
        self._check_not_linked()
        self.check_free()
        if not os.path.lexists(self.path / STATE):
            raise RunFolderError(f"--resume {self.path}: no {self.layout.pipeline} run there (no {STATE})")
        state = self.read_state()
        recorded = state.get("config")
        pipeline = recorded.get("pipeline") if isinstance(recorded, dict) else None
        if not isinstance(recorded, dict) or pipeline != self.layout.pipeline:
            raise RunFolderError(f"--resume {self.path}: the run there is no {self.layout.pipeline} run "
                                 f"(its {STATE} names pipeline {pipeline!r})")
        if not isinstance(state.get("rounds"), list) or not all(isinstance(r, dict) for r in state["rounds"]):
            raise RunFolderError(f"--resume {self.path}: {self.path / STATE} is damaged (its 'rounds' is not a "
                                 "list of records)")
        if state.get("names") != NAMES:  # written under the names before: its players under today's
            recorded.update({k: today_name(recorded[k]) for k in self.layout.players if k in recorded})
        if config is not None:
            differ = [k for k in self.layout.settings if k in recorded and recorded[k] != config.get(k)]
            if differ:
                shown = ", ".join(f"--{k.replace('_', '-')} {recorded[k]!r:.60} (this command: {config.get(k)!r:.60})"
                                  for k in differ[:3])
                raise RunFolderError(f"--resume {self.path}: its files were made with {shown}; resume it with its "
                                     "own settings, or start a fresh run")
        return state

    def read_state(self) -> dict[str, Any]:
        """``run_dir/state.json`` through the checked readers (no link, a regular file, size and depth caps)."""
        data = parse_json(self._read_path(self.path / STATE, "run state", MAX_STATE_BYTES),
                          f"run state {self.path / STATE}", MAX_STATE_DEPTH)
        if not isinstance(data, dict):
            raise RunFolderError(f"run state {self.path / STATE}: it is not a JSON object; not read")
        return data

    # -------------------------------------------------------------- holding the folder
    def __enter__(self) -> Run:
        self.created = not os.path.lexists(self.path)
        self.lock.acquire()
        assert self.lock.folder is not None
        if not self.layout.records:
            return self
        try:
            self.folder.files = self._manifest()
            self.remove_partials()
        except BaseException:
            self.lock.release()
            raise
        return self

    def _manifest(self) -> list[str]:
        """The files an earlier session of this run recorded (its manifest), each a name this pipeline writes."""
        if self.folder.lstat(MANIFEST) is None:
            return []
        data = self.read_json(MANIFEST, "the run's record of its files")
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(files, list) or not all(isinstance(f, str) and f and self.layout.is_run_name(f.split("/")[0])
                                                  for f in files):
            raise RunFolderError(f"{self.path / MANIFEST} (the record of the files the run wrote) is damaged; "
                                 "remove the run's files yourself or choose another --run-name")
        return files

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        """Release the lock; a command refused inside the block (a ``ValueError``) in a folder it made and wrote
        nothing in leaves no folder behind."""
        leave = exc_type is not None and issubclass(exc_type, ValueError | RunLockedError) and self.created
        folder = self.lock.folder
        names = sorted(os.listdir(folder.fd)) if leave and folder is not None else []
        if folder is not None and leave and set(names) <= {LOCK_NAME, MANIFEST}:
            for name in names:  # through the held folder's descriptor
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=folder.fd)
        else:
            leave = False
        self.lock.release()
        if leave:
            with contextlib.suppress(OSError):
                os.rmdir(self.path)  # only where empty

    @property
    def folder(self) -> RunFolder:
        if self.lock.folder is None:
            raise RunFolderError(f"run folder {self.path} is not held (use `with run:`)")
        return self.lock.folder

    def write(self, rel: str, data: bytes) -> None:
        """``data`` as ``rel`` inside, atomically through the held folder (no link followed); a failed write
        (disk full, a file-size limit) is a :class:`~.checkpoints.RunWriteError` naming the file, the old file kept."""
        from gin3_training.run.checkpoints import RunWriteError

        try:
            self.folder.write(rel, data)
        except OSError as exc:
            raise RunWriteError(self.path / rel, exc) from exc

    def write_json(self, rel: str, data: Any) -> None:
        self.write(rel, (json.dumps(data, indent=2) + "\n").encode("utf-8"))

    def write_state(self, state: dict[str, Any]) -> None:
        self.write_json(STATE, {**state, "names": NAMES})

    def write_npz(self, rel: str, arrays: dict[str, Any]) -> None:
        """``arrays`` as the ``.npz`` ``rel`` (no pickles), written as :meth:`write`."""
        import numpy as np

        buffer = io.BytesIO()
        np.savez(buffer, allow_pickle=False, **arrays)
        self.write(rel, buffer.getvalue())

    def lstat(self, rel: str) -> os.stat_result | None:
        return self.folder.lstat(rel)

    def exists(self, rel: str) -> bool:
        """Whether ``rel`` is a regular file inside (a link or anything else there is refused, one line)."""
        st = self.folder.lstat(rel)
        if st is None:
            return False
        if not stat.S_ISREG(st.st_mode):
            raise RunFolderError(f"{self.path / rel} is not a regular file (a link, FIFO or folder?); a run reads "
                                 "and writes only its own files (remove it)")
        return True

    def unlink(self, rel: str) -> bool:
        return self.folder.unlink(rel)

    def listdir(self, rel: str) -> list[str]:
        """The names in the subfolder ``rel`` ([] where it is missing; a linked subfolder is refused)."""
        try:
            fd = self.folder.subfolder(rel.split("/"), create=False)
        except FileNotFoundError:
            return []
        try:
            return sorted(os.listdir(fd))
        finally:
            os.close(fd)

    def read(self, rel: str, what: str, max_bytes: int) -> bytes:
        """The bytes of the regular file ``rel`` inside, opened through the held folder without following a link
        or blocking (a FIFO, a device, a link: refused in one line), at most ``max_bytes``."""
        parts = rel.split("/")
        try:
            folder = self.folder.subfolder(parts[:-1], create=False)
        except FileNotFoundError:
            raise InputFileError(f"{what} {self.path / rel}", "no such file") from None
        try:
            return _read_at(parts[-1], folder, f"{what} {self.path / rel}", max_bytes)
        finally:
            os.close(folder)

    def read_json(self, rel: str, what: str, max_bytes: int = MAX_STATE_BYTES) -> Any:
        return parse_json(self.read(rel, what, max_bytes), f"{what} {self.path / rel}", MAX_STATE_DEPTH)

    def _read_path(self, path: Path, what: str, max_bytes: int) -> bytes:
        """A file read before the folder is held: its folder opened with no link followed, then as :meth:`read`."""
        try:
            fd = os.open(path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise InputFileError(f"{what} {path}", exc.strerror or str(exc)) from None
        try:
            return _read_at(path.name, fd, f"{what} {path}", max_bytes)
        finally:
            os.close(fd)

    def remove_partials(self) -> list[str]:
        """Remove what a killed run left half-written (``.NAME.gin3-partial``) at the top and in its folders."""
        removed = []
        for sub in ("", *self.layout.folders):
            try:
                names = self.listdir(sub) if sub else sorted(os.listdir(self.folder.fd))
            except (OSError, ValueError):
                continue
            for name in names:
                if name.endswith(PARTIAL):
                    rel = f"{sub}/{name}" if sub else name
                    if self.folder.unlink(rel):
                        removed.append(rel)
        return removed

    def finish(self, keep_note: bool = True) -> tuple[list[str], int]:
        """Remove what the run needed only to resume (:attr:`Layout.resume_only`: whole subfolders) once it is
        complete; returns the names removed and the bytes they held."""
        removed, freed = [], 0
        for sub in self.layout.resume_only:
            for name in self.listdir(sub):
                rel = f"{sub}/{name}"
                st = self.folder.lstat(rel)
                if st is not None and not stat.S_ISDIR(st.st_mode) and self.folder.unlink(rel):
                    freed += st.st_size if stat.S_ISREG(st.st_mode) else 0
                    removed.append(rel)
            self.folder.rmdir(sub)
        if removed:
            self.folder.files = [f for f in self.folder.files if f not in removed]
            self.folder.write(MANIFEST, json.dumps({"files": self.folder.files}, indent=1).encode(), record=False)
        return removed, freed

    def sizes(self) -> Iterable[tuple[str, int]]:
        """Each regular file left at the top of the folder and its size (the lock and the record left out)."""
        for name in sorted(os.listdir(self.folder.fd)):
            st = self.folder.lstat(name)
            if st is not None and stat.S_ISREG(st.st_mode) and name not in (LOCK_NAME, MANIFEST):
                yield name, st.st_size


def _read_at(name: str, dir_fd: int, where: str, max_bytes: int) -> bytes:
    """The regular file ``name`` of the held folder ``dir_fd`` (no link followed), read by the checked reader."""
    return read_regular_file(name, "", max_bytes, dir_fd=dir_fd, where=where)
