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
PARTIAL = ".gin3-partial"  # a file being written is ".NAME.gin3-partial" beside NAME
MAX_RUN_NAME = 100  # characters


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


def make_run_dir(run_dir: Path) -> None:
    """Create ``run_dir`` (and ``out_dir`` above it); a :class:`RunFolderError` naming the folder if it
    is a link, holds a linked run file, or cannot be created (a read-only ``out_dir``, say)."""
    check_no_links(run_dir)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise RunFolderError(f"cannot create the run folder {run_dir}: {reason}") from None
    if not os.access(run_dir, os.W_OK | os.X_OK):
        raise RunFolderError(f"cannot write in the run folder {run_dir}: permission denied")


_FLAGS_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FLAGS_NEW = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_active: dict[Path, RunFolder] = {}


def _parts(rel: str) -> list[str]:
    parts = rel.split("/")
    if not parts or any(p in ("", ".", "..") for p in parts):
        raise RunFolderError(f"{rel!r} is not a path inside the run folder")
    return parts


class RunFolder:
    """The run folder held open for a run: writes through its descriptor, the manifest, the re-check."""

    def __init__(self, run_dir: Path) -> None:
        self.path = Path(os.path.abspath(run_dir))
        try:
            self.fd = os.open(self.path, _FLAGS_DIR)
        except OSError as exc:
            if self.path.is_symlink():
                raise RunFolderError(f"run folder {run_dir} is a symbolic link; a run writes only into a real "
                                     "folder (choose another --run-name or --out-dir)") from None
            raise RunFolderError(f"cannot open the run folder {run_dir}: {exc.strerror or exc}") from None
        st = os.fstat(self.fd)
        self.identity = (st.st_dev, st.st_ino)
        self.files: list[str] = []

    # -- the folder is still the one opened
    def check(self) -> None:
        """A :class:`RunFolderError` if the run folder's path no longer names the folder this run holds
        (swapped for a link or another folder)."""
        try:
            st = os.lstat(self.path)
        except OSError:
            st = None
        if st is None or not stat.S_ISDIR(st.st_mode) or (st.st_dev, st.st_ino) != self.identity:
            raise RunFolderError(f"run folder {self.path} was moved or replaced (by a link or another folder) "
                                 "during the run; nothing more is written through it")

    def _folder(self, parts: list[str], create: bool) -> int:
        """A descriptor of the folder ``parts`` inside the run (made where ``create``), no link followed."""
        fd = os.dup(self.fd)
        for part in parts:
            try:
                nxt = os.open(part, _FLAGS_DIR, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    os.close(fd)
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                nxt = os.open(part, _FLAGS_DIR, dir_fd=fd)
            except OSError as exc:
                os.close(fd)
                raise RunFolderError(f"{self.path / part} is not a real folder (a symbolic link?); a run writes "
                                     f"only inside its folder ({exc.strerror or exc})") from None
            os.close(fd)
            fd = nxt
        return fd

    def write(self, rel: str, data: bytes, record: bool = True) -> None:
        """``data`` as the file ``rel`` (``a/b``) of the run, atomically, through the folder's descriptor."""
        self.check()
        parts = _parts(rel)
        if record:
            self.record(rel)
        folder = self._folder(parts[:-1], create=True)
        name, tmp = parts[-1], f".{parts[-1]}{PARTIAL}"
        try:
            fd = os.open(tmp, _FLAGS_NEW, 0o666, dir_fd=folder)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
            with contextlib.suppress(OSError):
                os.fsync(folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
            raise
        finally:
            os.close(folder)

    def unlink(self, rel: str) -> None:
        """Remove the run's file ``rel`` (never through a link)."""
        self.check()
        parts = _parts(rel)
        try:
            folder = self._folder(parts[:-1], create=False)
        except FileNotFoundError:
            return
        try:
            os.unlink(parts[-1], dir_fd=folder)
        except FileNotFoundError:
            pass
        finally:
            os.close(folder)

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
        os.close(self.fd)


def open_run_folder(run_dir: Path) -> RunFolder:
    """Hold ``run_dir`` for this process's run (the writes of :func:`write_in_run` go through it)."""
    folder = RunFolder(run_dir)
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


def record_folder(folder: str | os.PathLike[str] | None) -> None:
    """Re-check the held run folder ``folder`` lies in and record the files under it (what SB3 wrote by
    path, TensorBoard's); nothing where ``folder`` is None or in no held run folder."""
    if folder is None:
        return
    found = run_folder_of(Path(folder) / "x")
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
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        raise RunFolderError(f"{path} (the record of the files the run wrote) is damaged; remove the run's "
                             "files yourself or choose another --run-name") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise RunFolderError(f"{path} (the record of the files the run wrote) is damaged")
    return [f for f in files if all(p not in ("", ".", "..") for p in f.split("/"))]


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


def prepare_run_dir(run_dir: Path, *, resume: str = "", overwrite: bool = False) -> list[str]:
    """Create ``run_dir`` for a run; return what ``overwrite`` deleted (usually nothing).

    Raises :class:`RunExistsError` if it already holds a run, unless ``resume`` is set
    (the continued run writes on into it) or ``overwrite`` is (the files the earlier run recorded in
    its manifest are deleted, nothing else: :func:`left_by_overwrite` names the rest); a
    :class:`RunFolderError` if the folder or one of its run files is a symbolic link, or if a file the
    earlier run did not record sits at a name this run writes."""
    check_no_links(run_dir)
    found = existing_run_files(run_dir)
    held = run_folder_of(run_dir / MANIFEST)
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
        deleted = []
        for rel in recorded:
            path = run_dir / rel
            if os.path.lexists(path) and (path.is_symlink() or not path.is_dir()):
                if held is not None:
                    held[0].unlink(rel)
                else:
                    path.unlink()
                deleted.append(rel)
        for folder in sorted({p for rel in recorded for p in Path(rel).parents if str(p) != "."},
                             key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError):  # only once empty: a user's file inside keeps it
                (run_dir / folder).rmdir()
        if held is not None:
            held[0].files = []
        (run_dir / MANIFEST).unlink(missing_ok=True)
        make_run_dir(run_dir)
        return deleted
    make_run_dir(run_dir)
    if held is not None and resume:
        held[0].load_manifest()
    return []


def left_by_overwrite(run_dir: Path) -> list[str]:
    """The files in ``run_dir`` that no run recorded (what ``--overwrite`` left), links included."""
    return _user_files(run_dir, set(read_manifest(run_dir)))
