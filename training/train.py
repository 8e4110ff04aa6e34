"""``gin3 train``: the one door to every pipeline of the lab.

A command line names its pipeline by its config's ``pipeline`` key (``distill`` for ``quick`` and ``distill``,
``improve`` for ``improve``, ``ppo`` for the MaskablePPO configs, the default where a config has no such key) or,
with ``--resume``, by the run it continues: a PPO checkpoint (``.zip``) or a run folder whose recorded state names
its pipeline. Without ``--config`` the command runs ``quick``. This module only chooses; each pipeline parses its
own flags and holds its run folder through :mod:`gin3_training.run`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

from gin3_training.configs import pipeline_of_config

DEFAULT_CONFIG = "quick"
# pipeline -> the module whose main(argv) runs it
PIPELINES: dict[str, str] = {
    "ppo": "gin3_training.ppo.train",
    "distill": "gin3_training.distill.cli",
    "improve": "gin3_training.improve.run",
}


def flag_value(argv: list[str], flag: str) -> str | None:
    """The value of ``--flag VALUE`` or ``--flag=VALUE`` in ``argv`` (the last one given), or None."""
    value = None
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith(flag + "="):
            value = arg[len(flag) + 1:]
    return value


def pipeline_of(argv: list[str]) -> str:
    """The pipeline a ``gin3 train`` command line is for; a ``ValueError`` (one line) where it names none."""
    from gin3_training.run.record import pipeline_of_run

    resume = flag_value(argv, "--resume")
    if resume is not None:
        if resume.endswith(".zip"):  # PPO's checkpoint file
            return "ppo"
        return pipeline_of_run(Path(resume))
    spec = flag_value(argv, "--config")
    return pipeline_of_config(spec or DEFAULT_CONFIG)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    wants_help = any(a in ("-h", "--help") for a in args)
    try:
        pipeline = pipeline_of(args)
    except (ValueError, FileNotFoundError) as exc:
        if not wants_help:
            print(f"gin3 train: error: {exc}", file=sys.stderr)
            return 2
        pipeline = "distill" if flag_value(args, "--config") is None else "ppo"
    run: Callable[[list[str]], int] = importlib.import_module(PIPELINES[pipeline]).main
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
