"""Typed arguments of ``gin3 train --backend rllib``, from ``configs/rllib/*.yaml`` and flags.

Every YAML key is a field of :class:`RLlibConfig`; an unknown key or a value of
the wrong type is a ``ValueError`` that names it; ``--flag value`` overrides the
file (``gin3 train --backend rllib --config selfplay --total-timesteps 20000``).
This module imports neither Ray nor torch.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from .config import CONFIG_DIR as TRAIN_CONFIG_DIR
from .config import _check_type, read_config

CONFIG_DIR = TRAIN_CONFIG_DIR / "rllib"  # configs/rllib/ in a checkout, copied into a wheel (setup.py)
POLICY_MAPPINGS = ("shared", "per_seat", "vs_heuristic")
ENVS = ("hand", "match")


@dataclass
class RLlibConfig:
    """Arguments of one RLlib training run (multi-agent PPO on the new API stack)."""

    run_name: str = "gin3_rllib"
    out_dir: str = "runs"
    seed: int = 1
    total_timesteps: int = 20_000  # env steps sampled (whole iterations: at least this many)
    env: str = "hand"  # "hand" (team_0 vs box_0) or "match" (player_0..2)
    policies: str = "shared"  # "shared" (one policy for every seat), "per_seat" (hand only), "vs_heuristic"
    features: str = "augmented"  # "augmented" (observation/features.py) or "plain"
    card_head: bool = True  # the card-aware logits term (needs augmented features)
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    reward_scale: float = 0.02
    rules: dict[str, Any] = field(default_factory=dict)  # rules options (knock_limit, ...)
    # Ray
    address: str = ""  # "" starts a local Ray instance on 127.0.0.1; else the cluster to join (HOST:PORT, auto)
    num_env_runners: int = 0  # 0: sample in the driver process
    num_cpus: int = 0  # CPUs of the local Ray instance (0: the machine's); ignored with address
    # PPO
    train_batch_size: int = 1000  # env steps per iteration
    minibatch_size: int = 250
    num_epochs: int = 4
    lr: float = 3e-4
    gamma: float = 0.995
    lambda_: float = 0.95
    clip_param: float = 0.2
    entropy_coeff: float = 0.01
    vf_loss_coeff: float = 0.5
    grad_clip: float = 0.5
    torch_threads: int = 1
    # checkpoints and evaluation
    checkpoint_every: int = 5  # iterations between checkpoints (0: only at the end)
    final_eval_hands: int = 200
    resume: bool = False  # continue RUN_DIR/checkpoint

    def __post_init__(self) -> None:
        validate(self)

    @property
    def run_dir(self) -> Path:
        return Path(self.out_dir) / self.run_name


def validate(cfg: RLlibConfig) -> None:
    """Check types and ranges; raise ``ValueError`` naming the bad key."""
    for name, tp in get_type_hints(RLlibConfig).items():
        setattr(cfg, name, _check_type(name, getattr(cfg, name), tp))
    for name in ("total_timesteps", "train_batch_size", "minibatch_size", "num_epochs", "final_eval_hands",
                 "torch_threads"):
        if getattr(cfg, name) <= 0:
            raise ValueError(f"config key {name!r} must be > 0, got {getattr(cfg, name)}")
    for name in ("num_env_runners", "num_cpus", "checkpoint_every"):
        if getattr(cfg, name) < 0:
            raise ValueError(f"config key {name!r} must be >= 0, got {getattr(cfg, name)}")
    if cfg.minibatch_size > cfg.train_batch_size:
        raise ValueError("config key 'minibatch_size' must be <= 'train_batch_size'")
    if cfg.env not in ENVS:
        raise ValueError(f"config key 'env' must be one of {list(ENVS)}, got {cfg.env!r}")
    if cfg.policies not in POLICY_MAPPINGS:
        raise ValueError(f"config key 'policies' must be one of {list(POLICY_MAPPINGS)}, got {cfg.policies!r}")
    if cfg.policies == "per_seat" and cfg.env != "hand":
        raise ValueError("config key 'policies': per_seat is for env: hand (a match's seats change roles; use shared)")
    if cfg.features not in ("augmented", "plain"):
        raise ValueError(f"config key 'features' must be 'augmented' or 'plain', got {cfg.features!r}")
    if cfg.card_head and cfg.features != "augmented":
        raise ValueError("config key 'card_head': true needs features: augmented")
    if not cfg.hidden or any(h <= 0 for h in cfg.hidden):
        raise ValueError(f"config key 'hidden' must list layer sizes > 0, got {cfg.hidden}")
    if not 0 < cfg.lr < 1:
        raise ValueError(f"config key 'lr' must be in (0, 1), got {cfg.lr}")
    if not 0 < cfg.gamma <= 1 or not 0 < cfg.lambda_ <= 1:
        raise ValueError("config keys 'gamma' and 'lambda_' must be in (0, 1]")
    for name in ("reward_scale", "clip_param", "grad_clip"):
        if getattr(cfg, name) <= 0:
            raise ValueError(f"config key {name!r} must be > 0, got {getattr(cfg, name)}")
    for name in ("entropy_coeff", "vf_loss_coeff"):
        if getattr(cfg, name) < 0:
            raise ValueError(f"config key {name!r} must be >= 0, got {getattr(cfg, name)}")
    if any(c in cfg.run_name for c in "/\\") or cfg.run_name in ("", ".", ".."):
        raise ValueError(f"config key 'run_name' must be a plain folder name, got {cfg.run_name!r}")
    from ..engine.rules import Rules

    Rules.from_dict(dict(cfg.rules))  # an unknown or bad rules option is a ValueError naming it


def load_config(spec: str | None, overrides: dict[str, Any] | None = None) -> RLlibConfig:
    """Read a YAML config (path or shipped RLlib config name) and apply overrides; validate all."""
    return RLlibConfig(**read_config(spec, overrides, RLlibConfig, CONFIG_DIR, "RLlib config"))


def _flag(name: str) -> str:
    return "--" + name.rstrip("_").replace("_", "-")


def add_flags(parser: argparse.ArgumentParser) -> None:
    """One ``--kebab-case`` flag per field; YAML syntax for lists and mappings; a bare
    boolean flag (``--resume``) means true."""
    types = get_type_hints(RLlibConfig)
    for f in dataclasses.fields(RLlibConfig):
        extra: dict[str, Any] = {"nargs": "?", "const": "true"} if types[f.name] is bool else {}
        parser.add_argument(_flag(f.name), dest=f"set_{f.name}", default=None, metavar="VALUE",
                            help=f"override '{f.name}' (YAML value)", **extra)


def flag_overrides(args: argparse.Namespace) -> dict[str, Any]:
    import yaml

    types = get_type_hints(RLlibConfig)
    out: dict[str, Any] = {}
    for f in dataclasses.fields(RLlibConfig):
        raw = getattr(args, f"set_{f.name}", None)
        if raw is None:
            continue
        if types[f.name] is str:
            out[f.name] = raw
            continue
        try:
            out[f.name] = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            raise ValueError(f"{_flag(f.name)}: not a YAML value: {exc}") from None
    return out
