"""The run folder (``out_dir/run_name``): never overwritten unasked.

A second ``gin3 train`` into a folder that already holds a run would replace
its ``best.zip``, ``final.zip`` and histories and add a TensorBoard folder
``ppo_2`` beside ``ppo_1``. :func:`prepare_run_dir` refuses that with one line
that names the two ways on: ``--resume RUN/checkpoint.zip`` (continue the run)
or ``--overwrite`` (delete what the earlier run wrote, then start again). Files
that training does not write are left alone either way.
"""

from __future__ import annotations

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


class RunExistsError(FileExistsError):
    """The run folder already holds a run and neither ``resume`` nor ``overwrite`` was given."""


def existing_run_files(run_dir: Path) -> list[str]:
    """The names of the files and folders of an earlier run found in ``run_dir``."""
    return [name for name in (*RUN_FILES, *RUN_FOLDERS) if (run_dir / name).exists()]


def prepare_run_dir(run_dir: Path, *, resume: str = "", overwrite: bool = False) -> list[str]:
    """Create ``run_dir`` for a run; return what ``overwrite`` deleted (usually nothing).

    Raises :class:`RunExistsError` if it already holds a run, unless ``resume`` is set
    (the continued run writes on into it) or ``overwrite`` is (the old run is deleted)."""
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
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
    run_dir.mkdir(parents=True, exist_ok=True)
    return found if overwrite and not resume else []
