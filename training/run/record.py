"""What a run folder says about itself: the pipeline that made it, read through the checked readers.

A distillation or improvement run records its state in ``state.json`` (``{"config": {"pipeline": ...}, ...}``),
a PPO run in ``checkpoint.zip`` beside ``config.json``. ``gin3 train --resume DIR`` reads this first to choose
its pipeline, so it reads only a regular file of bounded size and nesting (a FIFO, a device or a deeply nested
file is refused in one line, never waited on or recursed into).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gin3_env.files import InputFileError, read_json

STATE = "state.json"
MAX_STATE_BYTES = 16 << 20
MAX_STATE_DEPTH = 20


def read_state(run_dir: Path, what: str = "run state") -> dict[str, Any]:
    """``run_dir/state.json`` as a mapping; an :class:`~gin3_env.files.InputFileError` (a ``ValueError``)
    naming the file when it is missing, not a regular file, too large, too deep or not a mapping."""
    state = read_json(run_dir / STATE, what, MAX_STATE_BYTES, MAX_STATE_DEPTH)
    if not isinstance(state, dict):
        raise InputFileError(f"{what} {run_dir / STATE}", "it is not a JSON object; not read")
    return state


def pipeline_of_run(run_dir: Path) -> str:
    """The pipeline that wrote the run folder ``run_dir`` (``distill``, ``improve`` or ``ppo``), or a
    ``ValueError`` that says in one line why ``--resume`` has no run there."""
    if not run_dir.exists() and not run_dir.is_symlink():
        raise ValueError(f"--resume {run_dir}: no such run folder")
    if not run_dir.is_dir():
        raise ValueError(f"--resume {run_dir}: not a run folder (a run folder, or PPO's checkpoint.zip)")
    if (run_dir / STATE).exists() or (run_dir / STATE).is_symlink():
        try:
            state = read_state(run_dir)
        except InputFileError as exc:
            raise ValueError(f"--resume {run_dir}: {exc}") from None
        config = state.get("config")
        pipeline = config.get("pipeline") if isinstance(config, dict) else None
        if pipeline in ("distill", "improve"):
            return str(pipeline)
        raise ValueError(f"--resume {run_dir}: {run_dir / STATE} names no pipeline this command knows")
    if (run_dir / "checkpoint.zip").is_file():
        raise ValueError(f"--resume {run_dir}: a PPO run; resume it from its checkpoint: "
                         f"--resume {run_dir / 'checkpoint.zip'}")
    raise ValueError(f"--resume {run_dir}: no run there (no {STATE}, no checkpoint.zip)")
