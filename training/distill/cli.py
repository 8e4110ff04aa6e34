"""``gin3 train`` for a config with ``pipeline: distill`` (``quick``, ``distill``): its flags and its start.

``gin3 train`` (:mod:`gin3_training.train`) chooses this door for a config whose ``pipeline`` is ``distill``,
or ``--resume`` of a distillation run folder.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from gin3_env.argparsing import OneLineErrorParser
from gin3_training.configs import read_config
from gin3_training.distill.config import DistillConfig
from gin3_training.options import add_backend_flag, add_option_flags, option_overrides, other_backend
from gin3_training.run.run import REFUSALS, Run, start_checks

DEFAULT_CONFIG = "quick"


def load_distill_config(spec: str | None, overrides: dict[str, Any]) -> DistillConfig:
    """The config ``spec`` (a shipped name or a path) with ``overrides``; on ``resume`` without a config,
    the resumed run's own config."""
    from gin3_training.distill.run import LAYOUT

    resume = overrides.get("resume")
    if resume and spec is None:  # the run's own config, read through the checked readers, its pipeline checked
        saved = Run(Path(resume), LAYOUT).check_resume()["config"]
        known = set(DistillConfig.__dataclass_fields__)
        return DistillConfig(**{**{k: v for k, v in saved.items() if k in known}, **overrides})
    return DistillConfig(**read_config(spec or DEFAULT_CONFIG, overrides, DistillConfig))


def main(argv: list[str] | None = None) -> int:
    parser = OneLineErrorParser(
        prog="gin3 train",
        description="Distil the strongest shipped player into `net`, a network acting alone (configs quick and "
        "distill); the PPO configs (ppo_quick, default, selfplay, gpu) train MaskablePPO instead.",
    )
    parser.add_argument("--config", default=None, help=f"config name or YAML path (default: {DEFAULT_CONFIG})")
    add_backend_flag(parser)
    add_option_flags(parser, DistillConfig)
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if (status := other_backend(args, argv)) is not None:
        return status
    try:
        overrides = option_overrides(args, DistillConfig)
        cfg = load_distill_config(args.config, overrides)
    except (ValueError, FileNotFoundError, TypeError) as exc:
        parser.error(str(exc))
    return start(cfg, "run_name" in overrides)


def start(cfg: DistillConfig, named: bool) -> int:
    """Check the run folder (a fresh run: numbered where not ``named``; a resume: a distillation run with the same
    settings, not complete) and the teacher, then run; every refusal one line, exit 2, nothing made before."""
    from gin3_training.distill.run import LAYOUT, is_complete, main_distill, teacher_of

    try:
        run_dir, state = start_checks(LAYOUT, cfg.run_dir, cfg.to_dict(), resume=bool(cfg.resume), named=named)
        if state is None:
            cfg.run_name = run_dir.name
        elif is_complete(state, cfg):
            print(f"{cfg.run_dir} is a complete run ({len(state['rounds'])} round(s), final evaluation in "
                  f"{cfg.run_dir / 'final.json'}); nothing to do (more rounds: --dagger-rounds "
                  f"{cfg.dagger_rounds + 1})", flush=True)
            return 0
        teacher = teacher_of(cfg)
    except (*REFUSALS, ValueError) as exc:
        print(f"gin3 train: error: {exc}", file=sys.stderr)
        return 2
    return main_distill(cfg, teacher)
