"""Typed training arguments, loaded from ``configs/*.yaml`` and overridden by flags.

Every YAML key is a field of :class:`TrainConfig`; an unknown key or a value of
the wrong type is a ``ValueError`` that names it. ``--flag value`` on the command
line overrides the file (``gin3 train --config ppo_quick --total-timesteps 20000``).
"""

from __future__ import annotations

import argparse
import re
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

from gin3_env.envs.errors import check_learner_role
from gin3_env.observation.features import FEATURE_NAMES
from gin3_training.configs import read_config
from gin3_training.options import add_option_flags, option, option_overrides
from gin3_training.run.folder import check_run_name

SEED_MAX = 2**32 - 1  # what numpy's and SB3's seeding accept

OPPONENT_KINDS = ("random", "heuristic", "self")
QUICK_CONFIG = "ppo_quick"  # the PPO trainer's quick config (``quick`` distils the network player)
PPO_CONFIGS = (QUICK_CONFIG, "default", "selfplay", "gpu")  # the shipped configs of this pipeline


@dataclass
class TrainConfig:
    """Arguments of one training run (CleanRL style: one flat, typed record). Each field says what
    it means; ``gin3 train --help`` shows that with its type and default (:mod:`gin3_training.options`)."""

    run_name: str = option("gin3", "name of the run: its files go to OUT_DIR/RUN_NAME (one plain folder name; "
                           "a run not named by this flag goes to RUN_NAME_2, _3, ... when that folder holds a run)")
    out_dir: str = option("runs", "folder that holds the run folders")
    seed: int = option(1, "seed of the envs, the network and the evaluation deals")
    total_timesteps: int = option(200_000, "PPO environment steps (rounded up to whole rollouts of "
                                  "n_steps x n_envs)")
    n_envs: int = option(0, "scalar environments sampled in parallel (vec_env subproc or dummy; 0: one per "
                         "CPU core); with vec_env batched they set the samples per rollout, n_steps x n_envs")
    vec_env: str = option("batched", "batched (the compiled core: batched_envs hands in this process, n_steps "
                          "scaled so that a rollout holds n_steps x n_envs samples as with the scalar envs), "
                          "subproc (one process per env) or dummy (scalar envs in this process)")
    batched_envs: int = option(64, "with vec_env batched: how many hands are stepped together")
    learner: str = option("random", "the learner's seat: team, box, or random (a role drawn for every hand)")
    reward_scale: float = option(0.02, "reward per game point")
    duplicate_reward: bool = option(False, "reward = points minus the heuristic's on the same deal (cuts the "
                                    "luck of the cards)")
    features: str = option("augmented", "augmented (derived card features, observation/features.py) or plain "
                           "(the env observation)")
    policy: str = option("card", "card (card-aware network, policies/network.py, needs features: augmented) "
                         "or mlp")
    # MaskablePPO
    learning_rate: float = option(3e-4, "PPO learning rate")
    n_steps: int = option(512, "steps per env in each rollout")
    batch_size: int = option(512, "PPO minibatch size")
    n_epochs: int = option(4, "PPO epochs over each rollout")
    gamma: float = option(0.995, "discount factor")
    gae_lambda: float = option(0.95, "GAE lambda")
    clip_range: float = option(0.2, "PPO clip range")
    ent_coef: float = option(0.01, "entropy bonus coefficient")
    vf_coef: float = option(0.5, "value loss coefficient")
    max_grad_norm: float = option(0.5, "gradient clipping norm")
    net_arch: list[int] = option([256, 256], "hidden layer sizes, YAML list, e.g. '[256, 256]'")
    device: str = option("cpu", "torch device: cpu, cuda, cuda:N, mps, or auto (cuda where present; the "
                         "batched core stays on CPU threads)")
    precision: str = option("fp32", "fp32, bf16 (the network body under bf16 autocast in the warm start, "
                            "rollouts and updates; heads, losses and weights stay float32) or auto (bf16 "
                            "on CUDA and on a CPU with bf16 matmul instructions, else fp32)")
    torch_threads: int = option(1, "torch threads in the learner process (small batches: one thread is "
                                "fastest, and far faster on a busy machine)")
    core_threads: int = option(1, "numba threads of the batched core (training/threads.py; 0: one per "
                               "available core)")
    # opponents
    opponent_schedule: list[dict[str, Any]] = option(
        [{"until": 1.0, "random": 1.0, "heuristic": 3.0}],
        "phases of opponent pools, YAML list, e.g. '[{until: 1.0, heuristic: 1}]': each phase lasts until "
        "the given fraction of training and weighs the kinds random, heuristic and self (frozen snapshots "
        "of the learner)",
    )
    snapshot_every: int = option(50_000, "steps between frozen snapshots of the learner (self-play opponents)")
    max_snapshots: int = option(5, "snapshots kept in the opponent pool")
    # imitation warm start
    bc_samples: int = option(0, "heuristic decisions to imitate before PPO (behaviour cloning; 0: no warm start)")
    bc_epochs: int = option(5, "epochs of that imitation")
    bc_learning_rate: float = option(1e-3, "learning rate of that imitation")
    bc_batch_size: int = option(512, "minibatch size of that imitation")
    # evaluation and checkpoints
    eval_every: int = option(25_000, "steps between evaluations against the heuristic (0: only at the end)")
    eval_hands: int = option(400, "deals of each of those evaluations (the same deals each time)")
    checkpoint_every: int = option(25_000, "steps between resumable checkpoints (checkpoint.zip)")
    final_eval_hands: int = option(2000, "deals of the final evaluation table (deals used for nothing else)")
    select_top: int = option(3, "best in-training candidates re-evaluated on fresh deals at the end to "
                             "choose best.zip")
    select_hands: int = option(0, "deals of that re-evaluation (0: final_eval_hands)")
    resume: str = option("", "checkpoint .zip to continue from (its run folder is written on)")
    overwrite: bool = option(False, "start again in a run folder that already holds a run (deletes that "
                             "run's files, only those, inside the folder)")
    progress_bar: bool = option(True, "progress bar on a terminal")
    progress_every: float = option(60.0, "seconds between progress lines when the output is not a terminal")
    max_minutes: float = option(0.0, "PPO stops at the first step after this many minutes since the run "
                                "began, then evaluates as usual (0: no limit)")

    def __post_init__(self) -> None:
        validate(self)

    @property
    def run_dir(self) -> Path:
        return Path(self.out_dir) / self.run_name


def _field_types() -> dict[str, Any]:
    return get_type_hints(TrainConfig)


def check_type(name: str, value: Any, tp: Any) -> Any:
    origin = get_origin(tp)
    if tp is bool:
        if not isinstance(value, bool):
            raise ValueError(f"config key {name!r} must be true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"config key {name!r} must be an integer, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"config key {name!r} must be a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ValueError(f"config key {name!r} must be a string, got {value!r}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"config key {name!r} must be a list, got {value!r}")
        (item,) = get_args(tp)
        return [check_type(f"{name}[{i}]", v, item) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"config key {name!r} must be a mapping, got {value!r}")
        return value
    if origin in (Union, types.UnionType):  # pragma: no cover - no such fields yet
        return value
    return value


def validate(cfg: TrainConfig) -> None:
    """Check types and ranges; raise ``ValueError`` naming the bad key."""
    for name, tp in _field_types().items():
        setattr(cfg, name, check_type(name, getattr(cfg, name), tp))
    positive = ("total_timesteps", "n_steps", "batch_size", "n_epochs", "eval_hands", "final_eval_hands",
                "select_top", "progress_every", "bc_batch_size")
    for name in positive:
        if getattr(cfg, name) <= 0:
            raise ValueError(f"config key {name!r} must be > 0, got {getattr(cfg, name)}")
    if cfg.torch_threads < 1:
        raise ValueError(f"config key 'torch_threads' must be >= 1, got {cfg.torch_threads}")
    if cfg.core_threads < 0:
        raise ValueError(f"config key 'core_threads' must be >= 0, got {cfg.core_threads}")
    if cfg.max_minutes < 0:
        raise ValueError(f"config key 'max_minutes' must be >= 0, got {cfg.max_minutes}")
    if cfg.precision not in ("auto", "fp32", "bf16"):
        raise ValueError(f"config key 'precision' must be 'auto', 'fp32' or 'bf16', got {cfg.precision!r}")
    if not re.fullmatch(r"auto|cpu|cuda(:\d+)?|mps", cfg.device):
        raise ValueError(f"config key 'device' must be auto, cpu, cuda, cuda:N or mps, got {cfg.device!r}")
    for name in ("n_envs", "snapshot_every", "max_snapshots", "bc_samples", "bc_epochs", "eval_every",
                 "checkpoint_every", "select_hands"):
        if getattr(cfg, name) < 0:
            raise ValueError(f"config key {name!r} must be >= 0, got {getattr(cfg, name)}")
    if cfg.vec_env not in ("batched", "subproc", "dummy"):
        raise ValueError(f"config key 'vec_env' must be 'batched', 'subproc' or 'dummy', got {cfg.vec_env!r}")
    if cfg.batched_envs < 1:
        raise ValueError(f"config key 'batched_envs' must be >= 1, got {cfg.batched_envs}")
    if cfg.features not in FEATURE_NAMES:
        raise ValueError(f"config key 'features' must be one of {list(FEATURE_NAMES)}, got {cfg.features!r}")
    if cfg.policy not in ("card", "mlp"):
        raise ValueError(f"config key 'policy' must be 'card' or 'mlp', got {cfg.policy!r}")
    if cfg.policy == "card" and cfg.features != "augmented":
        raise ValueError("config key 'policy': 'card' needs features: augmented")
    try:
        cfg.learner = check_learner_role(cfg.learner)
    except ValueError:
        raise ValueError(f"config key 'learner' must be team, box or random, got {cfg.learner!r}") from None
    for name in ("learning_rate", "bc_learning_rate"):
        if not 0 < getattr(cfg, name) < 1:
            raise ValueError(f"config key {name!r} must be in (0, 1), got {getattr(cfg, name)}")
    if not 0 < cfg.gamma <= 1 or not 0 < cfg.gae_lambda <= 1:
        raise ValueError("config keys 'gamma' and 'gae_lambda' must be in (0, 1]")
    if not cfg.net_arch or any(size <= 0 for size in cfg.net_arch):
        raise ValueError(f"config key 'net_arch' must list layer sizes > 0, got {cfg.net_arch}")
    if not 0 <= cfg.seed <= SEED_MAX:
        raise ValueError(f"config key 'seed' must be in 0..{SEED_MAX} (2**32 - 1), got {cfg.seed}")
    check_run_name(cfg.run_name)
    check_schedule(cfg.opponent_schedule)


def check_schedule(schedule: list[dict[str, Any]]) -> None:
    if not schedule:
        raise ValueError("config key 'opponent_schedule' must hold at least one phase")
    last = 0.0
    for i, phase in enumerate(schedule):
        where = f"opponent_schedule[{i}]"
        if "until" not in phase:
            raise ValueError(f"{where} needs 'until' (fraction of training where the phase ends)")
        until = phase["until"]
        if isinstance(until, bool) or not isinstance(until, int | float) or not last < until <= 1.0:
            raise ValueError(f"{where}.until must increase within (0, 1], got {until!r}")
        last = float(until)
        weights = {k: v for k, v in phase.items() if k != "until"}
        for kind, weight in weights.items():
            if kind not in OPPONENT_KINDS:
                raise ValueError(f"{where}: unknown opponent {kind!r} (known: {', '.join(OPPONENT_KINDS)})")
            if isinstance(weight, bool) or not isinstance(weight, int | float) or weight < 0:
                raise ValueError(f"{where}.{kind} must be a weight >= 0, got {weight!r}")
        if not any(weights.values()):
            raise ValueError(f"{where} gives no opponent a positive weight")
    if last != 1.0:
        raise ValueError("the last phase of 'opponent_schedule' must have until: 1.0")


def load_config(spec: str | None, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Read a YAML config (path or shipped name) and apply overrides; validate all."""
    return TrainConfig(**read_config(spec, overrides, TrainConfig))


def add_flags(parser: argparse.ArgumentParser) -> None:
    """One ``--kebab-case`` flag per field, with its meaning, type and built-in default.

    Lists and mappings are written in YAML; a true/false flag alone means true."""
    add_option_flags(parser, TrainConfig)


def flag_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The config keys given as flags; a value that is not YAML is a ``ValueError`` naming the flag."""
    return option_overrides(args, TrainConfig)
