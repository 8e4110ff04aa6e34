"""Typed arguments of ``gin3 train --backend rllib``, from ``configs/rllib/*.yaml`` and flags.

Every YAML key is a field of :class:`RLlibConfig`, described once, beside the
field (:func:`~gin3_training.options.option`, the SB3 backend's mechanism too);
``gin3 train --backend rllib --help`` shows those descriptions with each field's type and
default. An unknown key or a value of
the wrong type is a ``ValueError`` that names it; ``--flag value`` overrides the
file (``gin3 train --backend rllib --config selfplay --total-timesteps 20000``).
This module imports neither Ray nor torch.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_type_hints

from gin3_env.observation.features import FEATURE_NAMES
from gin3_training.configs import CONFIG_DIR as TRAIN_CONFIG_DIR
from gin3_training.configs import read_config
from gin3_training.options import add_option_flags, option, option_overrides
from gin3_training.ppo.config import check_type

CONFIG_DIR = TRAIN_CONFIG_DIR / "rllib"  # configs/rllib/ in a checkout, copied into a wheel (setup.py)
POLICY_MAPPINGS = ("shared", "per_seat", "vs_heuristic")
ENVS = ("hand", "match")


@dataclass
class RLlibConfig:
    """Arguments of one RLlib training run (PPO on the new API stack)."""

    run_name: str = option("gin3_rllib", "name of the run: its files go to OUT_DIR/RUN_NAME")
    out_dir: str = option("runs", "folder that holds the run folders")
    seed: int = option(1, "seed of the envs, the networks and the evaluation deals")
    total_timesteps: int = option(
        20_000, "env steps to train; whole iterations of train_batch_size, so the last one may pass it")
    env: str = option("hand", "hand (team_0 against box_0) or match (player_0..2 to the target score)")
    policies: str = option(
        "shared", "shared (one policy for every seat), per_seat (one per seat, env hand) or vs_heuristic "
        "(one learner against the heuristic in the batched core, its seat drawn for every hand; env hand)")
    features: str = option(
        "augmented", "augmented (the observation plus derived card features, observation/features.py) or plain")
    card_head: bool = option(True, "add the card-aware logits term (needs features: augmented)")
    hidden: list[int] = option([256, 256], "hidden layer sizes of the policy and value networks, YAML list")
    reward_scale: float = option(0.02, "reward per game point")
    rules: dict[str, Any] = option({}, "rules options, YAML mapping, e.g. '{knock_limit: 7}'")
    # Ray
    address: str = option(
        "", "Ray cluster to join (HOST:PORT of its head, or auto); empty: a local Ray instance on 127.0.0.1")
    num_env_runners: int = option(0, "Ray actors that sample in parallel (0: sample in the driver process)")
    num_envs_per_env_runner: int = option(
        1, "hands each env runner steps together: with vs_heuristic the batched core in one vector env, "
        "otherwise RLlib's vector of scalar envs")
    num_cpus: int = option(0, "logical CPUs of the local Ray instance (0: the machine's); unused with address")
    # PPO
    train_batch_size: int = option(1000, "env steps sampled per iteration")
    minibatch_size: int = option(250, "PPO minibatch size")
    num_epochs: int = option(4, "PPO epochs over each iteration's samples")
    lr: float = option(3e-4, "learning rate")
    gamma: float = option(0.995, "discount factor")
    lambda_: float = option(0.95, "GAE lambda")
    clip_param: float = option(0.2, "PPO clip range")
    entropy_coeff: float = option(0.01, "entropy bonus coefficient")
    vf_loss_coeff: float = option(0.5, "value loss coefficient")
    grad_clip: float = option(0.5, "gradient clipping norm")
    torch_threads: int = option(1, "torch threads of the learner (the driver process)")
    # checkpoints and evaluation
    checkpoint_every: int = option(5, "iterations between checkpoints (0: only at the end)")
    final_eval_hands: int = option(200, "deals of the final evaluation against the heuristic and random")
    resume: bool = option(False, "continue the run in RUN_DIR/checkpoint")

    def __post_init__(self) -> None:
        validate(self)

    @property
    def run_dir(self) -> Path:
        return Path(self.out_dir) / self.run_name


def validate(cfg: RLlibConfig) -> None:
    """Check types and ranges; raise ``ValueError`` naming the bad key."""
    for name, tp in get_type_hints(RLlibConfig).items():
        setattr(cfg, name, check_type(name, getattr(cfg, name), tp))
    for name in ("total_timesteps", "train_batch_size", "minibatch_size", "num_epochs", "final_eval_hands",
                 "torch_threads", "num_envs_per_env_runner"):
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
    if cfg.policies == "vs_heuristic" and cfg.env != "hand":
        raise ValueError("config key 'policies': vs_heuristic is for env: hand (the batched core plays hands)")
    if cfg.features not in FEATURE_NAMES:
        raise ValueError(f"config key 'features' must be one of {list(FEATURE_NAMES)}, got {cfg.features!r}")
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
    from gin3_env.engine.rules import Rules

    Rules.from_dict(dict(cfg.rules))  # an unknown or bad rules option is a ValueError naming it


def load_config(spec: str | None, overrides: dict[str, Any] | None = None) -> RLlibConfig:
    """Read a YAML config (path or shipped RLlib config name) and apply overrides; validate all."""
    return RLlibConfig(**read_config(spec, overrides, RLlibConfig, CONFIG_DIR, "RLlib config"))


def add_flags(parser: argparse.ArgumentParser) -> None:
    """One ``--kebab-case`` flag per field, with its description, type and built-in default; YAML
    syntax for lists and mappings; a bare boolean flag (``--resume``) means true."""
    add_option_flags(parser, RLlibConfig)


def flag_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The config keys given as flags (a value that is not YAML is a ``ValueError`` naming its flag)."""
    return option_overrides(args, RLlibConfig)
