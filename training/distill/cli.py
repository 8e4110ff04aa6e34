"""``gin3 train`` for a config with ``pipeline: distill`` (``quick``, ``distill``): its flags and its start.

``gin3 train`` (:mod:`gin3_training.train`) chooses this door for a config whose ``pipeline`` is ``distill``,
or ``--resume`` of a distillation run folder.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gin3_env.argparsing import OneLineErrorParser
from gin3_training.configs import read_config
from gin3_training.distill.config import DistillConfig
from gin3_training.options import add_backend_flag, add_option_flags, option_overrides, other_backend
from gin3_training.run.folder import numbered_run_name

DEFAULT_CONFIG = "quick"


def load_distill_config(spec: str | None, overrides: dict[str, Any]) -> DistillConfig:
    """The config ``spec`` (a shipped name or a path) with ``overrides``; on ``resume`` without a config,
    the resumed run's own config."""
    resume = overrides.get("resume")
    if resume and spec is None:
        path = Path(resume) / "state.json"
        try:
            saved = json.loads(path.read_text())["config"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path} does not hold a distillation run's config ({exc})") from None
        return DistillConfig(**{**saved, **overrides})
    return DistillConfig(**read_config(spec or DEFAULT_CONFIG, overrides, DistillConfig))


def main(argv: list[str] | None = None) -> int:
    from gin3_training.distill.run import main_distill

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
    if not cfg.resume:
        if (cfg.run_dir / "state.json").exists() and "run_name" in overrides:
            parser.error(f"{cfg.run_dir} holds a run: continue it with --resume {cfg.run_dir}, or name another")
        name = numbered_run_name(Path(cfg.out_dir), cfg.run_name)
        if (Path(cfg.out_dir) / name / "state.json").exists():
            name = _free_name(Path(cfg.out_dir), cfg.run_name)
        if name != cfg.run_name:
            print(f"{cfg.run_dir} holds a run: this run goes to {Path(cfg.out_dir) / name}", flush=True)
            cfg.run_name = name
    elif not (cfg.run_dir / "state.json").is_file():
        parser.error(f"--resume {cfg.resume}: not a distillation run folder (no state.json)")
    return main_distill(cfg)


def _free_name(out_dir: Path, name: str) -> str:
    n = 2
    while (out_dir / f"{name}_{n}").exists():
        n += 1
    return f"{name}_{n}"
