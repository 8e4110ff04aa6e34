"""``gin3 train``: the one door to every pipeline of the lab.

A command line names its pipeline by its config's ``pipeline`` key (``distill`` for ``quick`` and ``distill``,
``improve`` for ``improve``, ``ppo`` for the MaskablePPO configs, the default where a config has no such key) or,
with ``--resume``, by the run it continues: a PPO checkpoint (``.zip``) or a run folder whose recorded state names
its pipeline. Without ``--config`` the command runs ``quick``. This module only chooses; each pipeline parses its
own flags and holds its run folder through :mod:`gin3_training.run`. A PPO flag given to another pipeline's config
(``gin3 train --total-timesteps 1000``: ``quick`` distils) is refused in one line that names the PPO configs and
the command meant (``gin3 train --config ppo_quick --total-timesteps 1000``).
"""

from __future__ import annotations

import dataclasses
import importlib
import shlex
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
# pipeline (not PPO) -> its config record (module, class): the flags it takes are its fields
RECORDS: dict[str, tuple[str, str]] = {
    "distill": ("gin3_training.distill.config", "DistillConfig"),
    "improve": ("gin3_training.improve.run", "ImproveConfig"),
}
WHAT: dict[str, str] = {"distill": "distillation", "improve": "improvement"}


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


def _flags(record: type) -> set[str]:
    from gin3_training.options import flag_name

    return {flag_name(f.name) for f in dataclasses.fields(record)}


def ppo_only_flags(argv: list[str], pipeline: str) -> list[str]:
    """The flags of ``argv`` that the PPO configs take and ``pipeline``'s config does not (none for PPO)."""
    if pipeline not in RECORDS:
        return []
    from gin3_training.ppo.config import TrainConfig

    module, name = RECORDS[pipeline]
    own = _flags(getattr(importlib.import_module(module), name)) | {"--config", "--backend"}
    ppo = _flags(TrainConfig) | {"--trust-model-file"}
    given = [a.split("=", 1)[0] for a in argv if a.startswith("--")]
    return list(dict.fromkeys(f for f in given if f in ppo and f not in own))


def ppo_flag_error(argv: list[str], pipeline: str, flags: list[str]) -> str:
    """The one line that refuses PPO ``flags`` on ``pipeline``'s config and shows the PPO command meant (the
    PPO flags of ``argv``, with their values, on ``ppo_quick``)."""
    from gin3_training.ppo.config import PPO_CONFIGS, QUICK_CONFIG

    kept: list[str] = []
    for i, arg in enumerate(argv):
        if arg.split("=", 1)[0] in flags:
            kept.append(arg)
            if "=" not in arg and i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                kept.append(argv[i + 1])
    config = flag_value(argv, "--config") or DEFAULT_CONFIG
    said = " and ".join(flags)
    verb = "is a flag" if len(flags) == 1 else "are flags"
    meant = shlex.join(["gin3", "train", "--config", QUICK_CONFIG, *kept])
    return (f"gin3 train: error: {said} {verb} of the PPO configs ({', '.join(PPO_CONFIGS)}), not of the config "
            f"{config} ({WHAT.get(pipeline, pipeline)}); run: {meant}")


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
    if not wants_help:
        flags = ppo_only_flags(args, pipeline)
        if flags:
            print(ppo_flag_error(args, pipeline, flags), file=sys.stderr)
            return 2
    run: Callable[[list[str]], int] = importlib.import_module(PIPELINES[pipeline]).main
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
