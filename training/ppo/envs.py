"""The learner's environments in a ``gin3 train`` run, and its opponents.

:func:`make_vec_env` builds the vec env of a config: the batched core (``vec_env: batched``,
every hand in this process) or scalar :class:`~gin3_env.envs.single_agent.ThreeHandedGinEnv`s
(``subproc``: one guarded worker process each, ``dummy``: in this process), with duplicate
rewards and the derived card features as the config asks; :func:`rollout_steps` is PPO's
``n_steps`` for it. :func:`opponent_pool` gives the opponents (and weights) of the schedule's
phase at a fraction of training.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym

from gin3_env.envs.augmented import AugmentedObservation
from gin3_env.envs.single_agent import ThreeHandedGinEnv
from gin3_env.observation.features import feature_set
from gin3_training.ppo.config import OPPONENT_KINDS, TrainConfig
from gin3_training.ppo.duplicate import DuplicateReward
from gin3_training.run.workers import guarded


def _make_env(cfg: TrainConfig, rank: int) -> Any:
    def thunk() -> gym.Env:
        import torch

        torch.set_num_threads(1)
        env: gym.Env = ThreeHandedGinEnv(learner=cfg.learner, opponent="heuristic", reward_scale=cfg.reward_scale)
        if cfg.duplicate_reward:
            env = DuplicateReward(env, baseline="heuristic")
        features = feature_set(cfg.features)
        if features.extra:
            env = AugmentedObservation(env, features)
        env.reset(seed=cfg.seed * 1000 + rank)
        return env

    return thunk


def scalar_env_count(cfg: TrainConfig) -> int:
    return cfg.n_envs or max(1, os.cpu_count() or 1)


def rollout_steps(cfg: TrainConfig) -> int:
    """PPO's n_steps per env: the config's, or for the batched env the same samples per rollout."""
    if cfg.vec_env != "batched":
        return cfg.n_steps
    return max(1, cfg.n_steps * scalar_env_count(cfg) // cfg.batched_envs)


def make_vec_env(cfg: TrainConfig) -> Any:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if cfg.vec_env == "batched":  # the compiled core: all hands in this process, no worker to guard
        from gin3_env.vector.sb3_env import GinSB3VecEnv

        return VecMonitor(
            GinSB3VecEnv(
                cfg.batched_envs,
                learner=cfg.learner,
                opponent="heuristic",
                reward_scale=cfg.reward_scale,
                reward_baseline="heuristic" if cfg.duplicate_reward else None,
                features=cfg.features,
                seed=cfg.seed,
            )
        )
    n = scalar_env_count(cfg)
    fns = [guarded(_make_env(cfg, i)) for i in range(n)]  # subproc workers die with this process (workers.py)
    vec = SubprocVecEnv(fns, start_method="fork") if cfg.vec_env == "subproc" and n > 1 else DummyVecEnv(fns)
    return VecMonitor(vec)


def opponent_pool(cfg: TrainConfig, fraction: float, snapshots: list[str]) -> tuple[list[str], list[float]]:
    """Opponent specs and weights for the schedule phase that holds ``fraction``."""
    phase = next(p for p in cfg.opponent_schedule if fraction < p["until"] or p["until"] == 1.0)
    specs: list[str] = []
    weights: list[float] = []
    for kind in OPPONENT_KINDS:
        weight = float(phase.get(kind, 0.0))
        if weight <= 0:
            continue
        if kind == "self":
            for snap in snapshots:
                specs.append(snap)
                weights.append(weight / len(snapshots))
        else:
            specs.append(kind)
            weights.append(weight)
    if not specs:  # only "self" with no snapshot yet
        specs, weights = ["heuristic"], [1.0]
    return specs, weights
