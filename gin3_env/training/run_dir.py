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
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

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
    "evaluation.md",  # the table of training/timed_run.py
)
RUN_FOLDERS = ("tb", "snapshots", "candidates")
LOCK_NAME = ".lock"  # the run lock's file (run_lock.py)


class RunFolderError(ValueError):
    """The run name or the run folder would let the run write outside ``out_dir``, or the folder
    cannot be created."""


def check_run_name(name: str, key: str = "run_name") -> str:
    """``name`` if it is one plain path component (not empty, ``.``, ``..``, absolute or holding a
    separator), else a ``ValueError`` naming the config ``key``."""
    separators = {"/", "\\", os.sep, os.altsep or "/"}
    if name in ("", ".", "..") or any(sep in name for sep in separators) or "\0" in name:
        raise ValueError(f"config key {key!r} must be a plain folder name (one path component, not '.' "
                         f"or '..'), got {name!r}")
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


class RunExistsError(FileExistsError):
    """The run folder already holds a run and neither ``resume`` nor ``overwrite`` was given."""


def existing_run_files(run_dir: Path) -> list[str]:
    """The names of the files and folders of an earlier run found in ``run_dir``."""
    return [name for name in (*RUN_FILES, *RUN_FOLDERS) if (run_dir / name).exists()]


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


def prepare_run_dir(run_dir: Path, *, resume: str = "", overwrite: bool = False) -> list[str]:
    """Create ``run_dir`` for a run; return what ``overwrite`` deleted (usually nothing).

    Raises :class:`RunExistsError` if it already holds a run, unless ``resume`` is set
    (the continued run writes on into it) or ``overwrite`` is (the old run is deleted); a
    :class:`RunFolderError` if the folder or one of its run files is a symbolic link."""
    check_no_links(run_dir)
    found = existing_run_files(run_dir)
    if found and not resume:
        if not overwrite:
            shown = ", ".join(found[:4]) + (", ..." if len(found) > 4 else "")
            raise RunExistsError(
                f"{run_dir} already holds a run ({shown}): continue it with "
                f"--resume {run_dir / 'checkpoint.zip'}, start it again with --overwrite (deletes it), "
                "or choose another --run-name"
            )
        for name in found:
            path = run_dir / name
            if path.is_dir():  # not a link (checked above): rmtree deletes links inside, not their targets
                shutil.rmtree(path)
            else:
                path.unlink()
    make_run_dir(run_dir)
    return found if overwrite and not resume else []
