"""The run folder (``out_dir/run_name``): never overwritten unasked.

A second ``gin3 train`` into a folder that already holds a run would replace
its ``best.zip``, ``final.zip`` and histories and add a TensorBoard folder
``ppo_2`` beside ``ppo_1``. :func:`prepare_run_dir` refuses that with one line
that names the two ways on: ``--resume RUN/checkpoint.zip`` (continue the run)
or ``--overwrite`` (delete what the earlier run wrote, then start again). Files
that training does not write are left alone either way.

A run stays in its folder: the run name is one plain path component
(:func:`check_run_name`), and the run folder and the files and folders a run
writes in it are never symbolic links (:func:`check_no_links`): a link would let
a write, or ``--overwrite``'s delete, reach a file outside ``out_dir``. Both
refusals are a :class:`RunFolderError`.

While a run holds its folder (:class:`RunFolder`, opened by the run lock), every file it writes goes
through the folder's own descriptor (``dir_fd``, no link followed, :func:`write_in_run`), so a folder
swapped for a link mid-run cannot send a write outside ``out_dir``; what SB3 writes by path
(TensorBoard) is preceded by a re-check (:meth:`RunFolder.check`) at every rollout, and a swapped folder
ends the run with a :class:`RunFolderError`. Each file the run writes is recorded in the folder's
manifest (:data:`MANIFEST`): ``--overwrite`` deletes only those and names every other file it leaves,
and refuses where a file of the user's sits at a name the run would write.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gin3_env.files import HeldFolder, read_json, relative_parts

# Everything a run writes in its folder (snapshots/ and candidates/ hold models, tb/ TensorBoard).
RUN_FILES = (
    "config.json",
    "best.zip",
    "final.zip",
    "checkpoint.zip",
    "checkpoint.json",
    "eval_history.json",
    "final_eval.json",
    "learning_curve.png",
    "evaluation.md",  # the table of training/sb3/timed_run.py
)
RUN_FOLDERS = ("tb", "snapshots", "candidates")
SIDECARS = ("best.json", "final.json")  # the descriptions written beside best.zip and final.zip
LOCK_NAME = ".lock"  # the run lock's file (lock.py)
MANIFEST = ".run-manifest.json"  # the files this run wrote, relative to the run folder
MAX_RUN_NAME = 100  # characters
MAX_MANIFEST_BYTES = 16 << 20  # the record of a run's files (TensorBoard's included)


class RunFolderError(ValueError):
    """The run name or the run folder would let the run write outside ``out_dir``, or the folder
    cannot be created."""


def check_run_name(name: str, key: str = "run_name") -> str:
    """``name`` if it is one plain path component (not empty, ``.``, ``..``, absolute or holding a
    separator), else a ``ValueError`` naming the config ``key``."""
    separators = {"/", "\\", os.sep, os.altsep or "/"}
    if not isinstance(name, str):
        raise ValueError(f"config key {key!r} must be a folder name (a string), got {name!r}")
    if name in ("", ".", "..") or any(sep in name for sep in separators) or "\0" in name:
        raise ValueError(f"config key {key!r} must be a plain folder name (one path component, not '.' "
                         f"or '..'), got {name!r}")
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise ValueError(f"config key {key!r} must be a folder name without control characters "
                         f"(newlines, tabs), got {name!r}")
    if len(name) > MAX_RUN_NAME or len(os.fsencode(name)) > 255:
        raise ValueError(f"config key {key!r} must be a folder name of at most {MAX_RUN_NAME} characters, "
                         f"got one of {len(name)}")
    return name


def check_no_links(run_dir: Path, names: tuple[str, ...] = (*RUN_FILES, *RUN_FOLDERS, LOCK_NAME)) -> None:
    """A :class:`RunFolderError` if ``run_dir`` or one of ``names`` inside it is a symbolic link."""
    if run_dir.is_symlink():
        raise RunFolderError(f"run folder {run_dir} is a symbolic link; a run writes only into a real folder "
                             "(choose another --run-name or --out-dir)")
    for name in names:
        if (run_dir / name).is_symlink():
            raise RunFolderError(f"{run_dir / name} is a symbolic link; a run writes and deletes only its own "
                                 "files inside its folder (remove the link or choose another --run-name)")


def make_run_dir(run_dir: Path, names: tuple[str, ...] | None = None) -> None:
    """Create ``run_dir`` (and ``out_dir`` above it); a :class:`RunFolderError` naming the folder if it
    is a link, holds a linked run file (or one of ``names``), or cannot be created (a read-only ``out_dir``,
    a file in the way, say)."""
    if names is None:
        check_no_links(run_dir)
    else:
        check_no_links(run_dir, names)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise RunFolderError(f"cannot create the run folder {run_dir}: {reason}") from None
    if not os.access(run_dir, os.W_OK | os.X_OK):
        raise RunFolderError(f"cannot write in the run folder {run_dir}: permission denied")


_active: dict[Path, RunFolder] = {}


class RunFolder(HeldFolder):
    """The run folder held open for a run (:class:`~gin3_env.files.HeldFolder`: writes and deletes
    through its descriptor, the re-check), with the run's manifest."""

    error = RunFolderError

    def __init__(self, run_dir: Path, what: str = "run folder") -> None:
        if Path(run_dir).is_symlink():
            raise RunFolderError(f"{what} {run_dir} is a symbolic link; a run writes only into a real "
                                 "folder (choose another --run-name or --out-dir)")
        super().__init__(run_dir, what)
        self.files: list[str] = []
        self.recording = what == "run folder"  # a run's files are recorded in its manifest (train-gate: none)
        self.aliases: dict[str, tuple[int, str]] = {}  # a path by descriptor -> (the descriptor, its name inside)

    def alias(self, rel: str) -> str | None:
        """A path that names the folder ``rel`` inside (made where missing) by a descriptor held for the run
        (``/proc/self/fd/N``), for what writes by path (TensorBoard): a run folder swapped for a link later
        cannot redirect it. None where the system has no such paths."""
        if not os.path.isdir(f"/proc/self/fd/{self.fd}"):
            return None
        self.check()
        fd = self.subfolder(self._parts(rel), create=True)
        path = f"/proc/self/fd/{fd}"
        self.aliases[path] = (fd, rel)
        return path

    def unalias(self, path: str) -> Path:
        """``path`` with a prefix of :meth:`alias` put back as the folder's own path."""
        for prefix, (_, rel) in self.aliases.items():
            if path == prefix or path.startswith(prefix + "/"):
                return self.path / rel / path[len(prefix):].lstrip("/")
        return Path(path)

    def write(self, rel: str, data: bytes, record: bool = True) -> None:
        """``data`` as the file ``rel`` (``a/b``) of the run, atomically, through the folder's descriptor
        (recorded in the manifest first, unless not ``record`` or the folder keeps no manifest)."""
        self.check()
        if record and self.recording:
            self.record(rel)
        super().write(rel, data)

    # -- the manifest
    def load_manifest(self) -> None:
        self.files = read_manifest(self.path)

    def record(self, rel: str) -> None:
        if rel not in self.files:
            self.files.append(rel)
            self.write(MANIFEST, json.dumps({"files": self.files}, indent=1).encode(), record=False)

    def record_tree(self, folder: Path) -> None:
        """Record every regular file under ``folder`` (inside the run; TensorBoard's, written by path)."""
        self.check()
        try:
            base = folder.resolve().relative_to(self.path.resolve())
        except (OSError, ValueError):
            return
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                self.record((base / path.relative_to(folder)).as_posix())

    def close(self) -> None:
        _active.pop(self.path, None)
        for fd, _ in self.aliases.values():
            os.close(fd)
        self.aliases = {}
        super().close()


def open_run_folder(run_dir: Path, what: str = "run folder") -> RunFolder:
    """Hold ``run_dir`` for this process's run (the writes of :func:`write_in_run` go through it)."""
    folder = RunFolder(run_dir, what)
    _active[folder.path] = folder
    return folder


@contextlib.contextmanager
def holding(run_dir: Path) -> Iterator[RunFolder]:
    """Hold ``run_dir`` (its earlier record loaded) for a few writes after a run, e.g. its table."""
    folder = open_run_folder(run_dir)
    try:
        folder.load_manifest()
        yield folder
    finally:
        folder.close()


@contextlib.contextmanager
def in_run_folder(run_dir: Path) -> Iterator[RunFolder]:
    """The run folder held for ``run_dir`` by this process, else one opened for the block (not held)."""
    held = _active.get(Path(os.path.abspath(run_dir)))
    if held is not None:
        yield held
        return
    folder = RunFolder(run_dir)
    try:
        yield folder
    finally:
        HeldFolder.close(folder)


def run_folder_of(path: Path) -> tuple[RunFolder, str] | None:
    """The held run folder ``path`` lies in and its path inside it, or None."""
    full = Path(os.path.abspath(path))
    for root, folder in _active.items():
        if full.parent == root or root in full.parents:
            return folder, full.relative_to(root).as_posix()
    return None


def write_in_run(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` through its held run folder (:meth:`RunFolder.write`); False where
    ``path`` lies in no held run folder (the caller then writes it by path)."""
    found = run_folder_of(path)
    if found is None:
        return False
    folder, rel = found
    folder.write(rel, data)
    return True


def check_run_folder(path: Path) -> None:
    """:meth:`RunFolder.check` of the held run folder ``path`` lies in (nothing where none is held)."""
    held = _active.get(Path(os.path.abspath(path)))
    found = (held, ".") if held is not None else run_folder_of(path)
    if found is not None:
        found[0].check()


def tensorboard_dir(run_dir: Path) -> str:
    """Where SB3 writes TensorBoard's files (``RUN/tb``): by the held run folder's descriptor
    (:meth:`RunFolder.alias`) where this process holds ``run_dir``, so that its files land in the run's
    own folder even if the folder's path is swapped for a link before the next re-check."""
    held = _active.get(Path(os.path.abspath(run_dir)))
    alias = held.alias("tb") if held is not None else None
    return alias if alias is not None else str(run_dir / "tb")


def plain_path(path: str) -> str:
    """``path`` with a held folder's descriptor path (:func:`tensorboard_dir`) put back as the folder's
    own path: what a saved model names and a person reads."""
    for held in list(_active.values()):
        path = os.fspath(held.unalias(path))
    return path


def record_folder(folder: str | os.PathLike[str] | None) -> None:
    """Re-check the held run folder ``folder`` lies in and record the files under it (what SB3 wrote by
    path, TensorBoard's); nothing where ``folder`` is None or in no held run folder."""
    if folder is None:
        return
    found = run_folder_of(Path(plain_path(os.fspath(folder))) / "x")
    if found is not None:
        found[0].record_tree(Path(folder))


def read_manifest(run_dir: Path) -> list[str]:
    """The files an earlier run recorded in ``run_dir`` (its :data:`MANIFEST`); [] where it has none."""
    path = run_dir / MANIFEST
    try:
        st = os.lstat(path)
    except OSError:
        return []
    if not stat.S_ISREG(st.st_mode):
        raise RunFolderError(f"{path} is not a regular file; a run's record of its files is never a link")
    try:
        data: Any = read_json(path, "the run's record", MAX_MANIFEST_BYTES)
    except ValueError:
        raise RunFolderError(f"{path} (the record of the files the run wrote) is damaged; remove the run's "
                             "files yourself or choose another --run-name") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise RunFolderError(f"{path} (the record of the files the run wrote) is damaged")
    for rel in files:
        if not is_run_file_name(rel):
            raise RunFolderError(f"{path} (the record of the files the run wrote) names {rel[:80]!r}, which is "
                                 "no file a run writes; remove the run's files yourself or choose another "
                                 "--run-name")
    return files


def is_run_file_name(rel: str) -> bool:
    """Whether ``rel`` is a name a run writes in its folder: one of :data:`RUN_FILES` or :data:`SIDECARS`,
    or a file under one of :data:`RUN_FOLDERS` (no ``..``, no absolute path)."""
    try:
        parts = relative_parts(rel)
    except ValueError:
        return False
    if len(parts) == 1:
        return rel in RUN_FILES or rel in SIDECARS
    return parts[0] in RUN_FOLDERS


class RunExistsError(FileExistsError):
    """The run folder already holds a run and neither ``resume`` nor ``overwrite`` was given."""


def existing_run_files(run_dir: Path) -> list[str]:
    """The names of the files and folders of an earlier run found in ``run_dir``."""
    found = [name for name in (*RUN_FILES, *RUN_FOLDERS) if (run_dir / name).exists()]
    return found + ([MANIFEST] if (run_dir / MANIFEST).exists() and not found else [])



def numbered_run_name(out_dir: Path, name: str) -> str:
    """The name of a new run that was not named on the command line: ``name`` while ``out_dir/name``
    holds no run (and no lock), else ``name_N`` with ``N`` one more than the highest number taken
    (``quick``, ``quick_2``, ``quick_3``, ...), as SB3 numbers its TensorBoard runs. A linked folder keeps
    its name, so that the run is refused (:func:`check_no_links`), not moved aside."""
    base = out_dir / name
    if base.is_symlink() or not base.exists() or (base.is_dir() and not existing_run_files(base)
                                                 and not (base / LOCK_NAME).exists()):
        return name
    taken = [1]
    prefix = f"{name}_"
    for entry in out_dir.iterdir():
        suffix = entry.name[len(prefix):]
        if entry.name.startswith(prefix) and suffix.isdigit() and suffix == str(int(suffix)):
            taken.append(int(suffix))
    return f"{name}_{max(taken) + 1}"

def _user_files(run_dir: Path, recorded: set[str]) -> list[str]:
    """Every file under ``run_dir`` that no run recorded (links listed, not followed)."""
    out = []
    for path in sorted(run_dir.rglob("*")):
        rel = path.relative_to(run_dir).as_posix()
        if rel in (LOCK_NAME, MANIFEST) or rel in recorded or (path.is_dir() and not path.is_symlink()):
            continue
        out.append(rel)
    return out


def check_run_dir(run_dir: Path, *, resume: str = "", overwrite: bool = False) -> list[str]:
    """The refusals of :func:`prepare_run_dir`, made before anything is created (a refused command leaves
    nothing behind); returns what ``overwrite`` would delete (the earlier run's record)."""
    check_no_links(run_dir)
    found = existing_run_files(run_dir)
    if not found and not resume:
        theirs = [name for name in SIDECARS if os.path.lexists(run_dir / name)]
        if theirs:  # no run here, so the file is the user's: a new run would replace it
            raise RunFolderError(
                f"{run_dir / theirs[0]} is a file gin3 did not write (the folder holds no run) at a name a run "
                "writes; move it away or choose another --run-name"
            )
    if found and not resume:
        if not overwrite:
            shown = ", ".join(found[:4]) + (", ..." if len(found) > 4 else "")
            raise RunExistsError(
                f"{run_dir} already holds a run ({shown}): continue it with "
                f"--resume {run_dir / 'checkpoint.zip'}, start it again with --overwrite (deletes it), "
                "or choose another --run-name"
            )
        recorded = read_manifest(run_dir)
        theirs = [rel for rel in _user_files(run_dir, set(recorded))
                  if rel in (*RUN_FILES, *SIDECARS)]
        if theirs:
            why = ("the earlier run kept no record of its files" if not recorded
                   else f"it is not in the earlier run's record {MANIFEST}")
            raise RunFolderError(
                f"--overwrite leaves files gin3 did not write, and {run_dir / theirs[0]} is at a name this run "
                f"writes ({why}); move it away (or remove the earlier run's files yourself), or choose another "
                "--run-name"
            )
        return recorded
    return []


def prepare_run_dir(run_dir: Path, *, resume: str = "", overwrite: bool = False) -> list[str]:
    """Create ``run_dir`` for a run; return what ``overwrite`` deleted (usually nothing).

    Raises :class:`RunExistsError` if it already holds a run, unless ``resume`` is set
    (the continued run writes on into it) or ``overwrite`` is (the files the earlier run recorded in
    its manifest are deleted, nothing else: :func:`left_by_overwrite` names the rest); a
    :class:`RunFolderError` if the folder or one of its run files is a symbolic link, or if a file the
    earlier run did not record sits at a name this run writes."""
    recorded = check_run_dir(run_dir, resume=resume, overwrite=overwrite)
    found = existing_run_files(run_dir)
    held = run_folder_of(run_dir / MANIFEST)
    if found and not resume:
        deleted = []
        with in_run_folder(run_dir) as folder:  # through its descriptor: a linked subfolder is never followed
            for rel in recorded:
                try:
                    st = folder.lstat(rel)
                    if st is not None and not stat.S_ISDIR(st.st_mode) and folder.unlink(rel):
                        deleted.append(rel)
                except RunFolderError:  # a link on its way inside the folder: left, and named as left
                    continue
            for sub in sorted({p for rel in recorded for p in Path(rel).parents if str(p) != "."},
                              key=lambda p: len(p.parts), reverse=True):
                folder.rmdir(sub.as_posix())  # only once empty: a user's file inside keeps it
            folder.files = []
            folder.unlink(MANIFEST)
        make_run_dir(run_dir)
        return deleted
    make_run_dir(run_dir)
    if held is not None and resume:
        held[0].load_manifest()
    return []


def left_by_overwrite(run_dir: Path) -> list[str]:
    """The files in ``run_dir`` that no run recorded (what ``--overwrite`` left), links included."""
    return _user_files(run_dir, set(read_manifest(run_dir)))
