"""Train a MaskablePPO agent for three-handed gin (both roles), CleanRL style.

    gin3 train --config quick                 # a few minutes on 2 cores
    gin3 train --config default               # the run behind the shipped agent
    gin3 train --config selfplay --seed 3
    gin3 train --resume runs/gin3/checkpoint.zip

One script, top to bottom: read the typed config, optionally warm-start the
policy by imitating the heuristic, then PPO against an opponent pool that follows
the config's schedule (random, heuristic, frozen snapshots of the learner),
evaluating against the heuristic every ``eval_every`` steps and keeping the best
model. Everything is written under ``out_dir/run_name``: TensorBoard logs,
atomic checkpoints (resumable), ``best.zip``, ``eval_history.json`` and
``learning_curve.png``.

:func:`train` reads as those steps: :func:`open_run` (the folder, the config
record, the seeds, the checkpoint to resume), :func:`build_model` (new or
resumed), :func:`learn` (PPO to whole rollouts), :func:`finish_learning` (the
last evaluation, the checkpoint, ``final.zip``), :func:`select_best` and
:func:`final_evaluation`. :class:`TrainingMonitor` is what runs inside PPO.
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from ..argparsing import OneLineErrorParser
from ..envs.augmented import AugmentedObservation
from ..envs.single_agent import ThreeHandedGinEnv
from ..evaluation.stats import signed
from ..observation.features import feature_set
from ..policies.loading import ModelFileError, SB3Policy
from ..policies.model_file import add_trust_flag, load_sb3_model, trust_from_args
from ..policies.sb3_network import CardAwarePolicy
from ..signals import Interrupted
from .checkpoints import (
    RunWriteError,
    read_checkpoint,
    remove_partial_files,
    save_model,
    write_checkpoint,
    write_json,
)
from .config import OPPONENT_KINDS, TrainConfig, add_flags, flag_overrides, load_config
from .duplicate import DuplicateReward
from .imitation import behaviour_clone
from .plots import plot_learning_curve
from .precision import resolve_precision, set_precision
from .quick_eval import quick_evaluate, step_zero_point
from .run_dir import RunExistsError, RunFolderError, numbered_run_name, prepare_run_dir
from .run_lock import RunLock, RunLockedError
from .selection import SELECTION_SEED_OFFSET, choose_best, keep_candidate, selection_text
from .signals import GracefulStop, TrainingStopped
from .threads import ThreadPlan, apply_threads, plan_threads
from .time_limit import time_limit_callbacks
from .workers import guarded, stop_workers


# --------------------------------------------------------------------- utils
def atomic_save_model(model: Any, path: Path, features: str | None = None) -> None:
    """Save an SB3 model so that ``path`` is either the old file or the complete new one
    (a failed write: :class:`~gin3_env.training.checkpoints.RunWriteError`, the old file kept);
    with ``features``, also its description (``path`` with ``.json``) naming them."""
    save_model(model, path)
    if features is not None:
        write_json(path.with_suffix(".json"), {"name": path.stem, "features": features})


def _make_env(cfg: TrainConfig, rank: int):
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


def make_vec_env(cfg: TrainConfig):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if cfg.vec_env == "batched":  # the compiled core: all hands in this process, no worker to guard
        from ..vector.sb3_env import GinSB3VecEnv

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


# ------------------------------------------------------------------ callback
class TrainingMonitor:
    """Builds the SB3 callback: schedule, snapshots, evaluation, checkpoints."""

    def __init__(self, cfg: TrainConfig, state: dict[str, Any]) -> None:
        from stable_baselines3.common.callbacks import BaseCallback

        monitor = self
        self.cfg = cfg
        self.state = state
        self.run_dir = cfg.run_dir

        class _Callback(BaseCallback):
            def _on_training_start(self) -> None:
                monitor.update_opponents(self.model, force=True)

            def _on_rollout_start(self) -> None:
                monitor.rollout_started(self.model)

            def _on_rollout_end(self) -> None:
                monitor.rollout_ended(self.model, self.logger)

            def _on_step(self) -> bool:
                monitor.on_step(self.model, self.logger)
                return True

        self.callback = _Callback()
        self._pool: tuple[list[str], list[float]] | None = None
        # progress lines where no progress bar is shown (output not a terminal, or the bar off)
        self.lines = not (cfg.progress_bar and sys.stderr.isatty())
        self.target = cfg.total_timesteps
        self._start = (time.monotonic(), 0)
        self._last_line = time.monotonic()

    def start(self, step: int, target: int) -> None:
        """PPO begins at ``step`` and stops at ``target`` (whole rollouts)."""
        self.target = target
        self._start = (time.monotonic(), step)
        self._last_line = time.monotonic()

    def progress_line(self, step: int) -> None:
        now = time.monotonic()
        if not self.lines or now - self._last_line < self.cfg.progress_every:
            return
        self._last_line = now
        t0, s0 = self._start
        rate = (step - s0) / max(now - t0, 1e-9)
        left = (self.target - step) / rate if rate > 0 else float("inf")
        if not math.isfinite(left):
            eta = "time left unknown"
        else:
            eta = f"about {left:.0f} s left" if left < 120 else f"about {left / 60:.0f} min left"
        print(f"[ppo] step {step:,} of {self.target:,} ({100 * step / max(self.target, 1):.0f}%), "
              f"{rate:,.0f} steps/s, {eta}", flush=True)

    def rollout_started(self, model: Any) -> None:
        self._rollout = (time.perf_counter(), model.num_timesteps)
        if not hasattr(self, "_first"):
            self._first = self._rollout

    def rollout_ended(self, model: Any, logger: Any) -> None:
        """Print the sampling speed: samples per second of this rollout's collection, and of the
        run so far (collection plus updates)."""
        (start, steps), now = self._rollout, time.perf_counter()
        sampling = (model.num_timesteps - steps) / max(now - start, 1e-9)
        overall = (model.num_timesteps - self._first[1]) / max(now - self._first[0], 1e-9)
        logger.record("time/sampling_samples_per_s", sampling)
        print(f"[train] step {model.num_timesteps:>9,}: sampling {sampling:,.0f} samples/s, "
              f"{overall:,.0f} samples/s with the updates ({self.cfg.vec_env} env)", flush=True)

    def due(self, key: str, every: int, step: int) -> bool:
        if every <= 0 or step - self.state[key] < every:
            return False
        self.state[key] = step
        return True

    def update_opponents(self, model: Any, force: bool = False) -> None:
        fraction = model.num_timesteps / self.cfg.total_timesteps
        pool = opponent_pool(self.cfg, fraction, self.state["snapshots"])
        if force or pool != self._pool:
            model.get_env().env_method("set_opponent", pool[0], pool[1])  # reaches the unwrapped env
            self._pool = pool

    def on_step(self, model: Any, logger: Any) -> None:
        step = model.num_timesteps
        self.progress_line(step)
        if self.due("last_snapshot", self.cfg.snapshot_every, step) and self.uses_self_play():
            path = self.run_dir / "snapshots" / f"step_{step}.zip"
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_save_model(model, path)
            snaps = [*self.state["snapshots"], str(path)][-self.cfg.max_snapshots :]
            self.state["snapshots"] = snaps
        self.update_opponents(model)
        if self.due("last_eval", self.cfg.eval_every, step):
            self.evaluate(model, logger, step)
        if self.due("last_checkpoint", self.cfg.checkpoint_every, step):
            self.checkpoint(model)

    def uses_self_play(self) -> bool:
        return any(p.get("self", 0) > 0 for p in self.cfg.opponent_schedule)

    def evaluate(self, model: Any, logger: Any, step: int) -> None:
        policy = SB3Policy(model, metadata={"features": self.cfg.features})
        stats = quick_evaluate(policy, "heuristic", self.cfg.eval_hands, seed=self.cfg.seed + 7)
        record = {"step": step, "time": time.time(), **stats}
        self.state["eval_history"].append(record)
        for key in ("mean", "ci95", "team_mean", "box_mean"):
            logger.record(f"eval_vs_heuristic/{key}", stats[key])
        if stats["mean"] > self.state["best_mean"]:
            self.state["best_mean"] = stats["mean"]
            self.state["best_step"] = step
            # the best so far; chosen again among the candidates at the end
            atomic_save_model(model, self.run_dir / "best.zip", features=self.cfg.features)
        keep_candidate(self.state, step, stats["mean"], self.run_dir, self.cfg.select_top,
                       lambda path: atomic_save_model(model, path, features=self.cfg.features))
        print(
            f"[eval] step {step:>9,}: {signed(stats['mean'])} ± {stats['ci95']:.2f} points/hand vs heuristic on the "
            f"{self.cfg.eval_hands:,} in-training deals (team {signed(stats['team_mean'])}, box "
            f"{signed(stats['box_mean'])}); highest so far {signed(self.state['best_mean'])} at step "
            f"{self.state['best_step']:,}",
            flush=True,
        )

    def checkpoint(self, model: Any) -> None:
        # one unit: model and state in one zip; the features named in the readable copy, for load_policy
        write_checkpoint(model, self.state, self.run_dir, features=self.cfg.features)


def fresh_state() -> dict[str, Any]:
    return {
        "snapshots": [],
        "eval_history": [],
        "best_mean": -float("inf"),
        "best_step": 0,
        "candidates": [],
        "last_snapshot": 0,
        "last_eval": 0,
        "last_checkpoint": 0,
    }


# ---------------------------------------------------------------------- main
def train(cfg: TrainConfig, stop: GracefulStop | None = None) -> dict[str, Any]:
    """Run one training job; returns the final evaluation summary.

    ``stop`` (installed by :func:`main`) turns SIGINT/SIGTERM into a checkpoint and
    :class:`~gin3_env.training.signals.TrainingStopped`. The steps, in order: :func:`open_run`,
    :func:`build_model`, :func:`learn`, :func:`finish_learning`, :func:`select_best`,
    :func:`final_evaluation`."""
    started = time.monotonic()
    stop = stop or GracefulStop(cfg.run_dir)
    saved, notes, threads = open_run(cfg)
    env = make_vec_env(cfg)
    model, state = build_model(cfg, env, saved, notes, threads)
    monitor = TrainingMonitor(cfg, state)
    learn(cfg, model, env, monitor, stop, started)
    finish_learning(cfg, model, env, monitor, stop)
    selection = select_best(cfg, state)
    summary = final_evaluation(cfg, model, selection)
    plot_learning_curve(state["eval_history"], cfg.run_dir / "learning_curve.png", final=summary)
    print_summary(cfg, summary)
    return summary


def open_run(cfg: TrainConfig) -> tuple[dict[str, Any], list[str], ThreadPlan]:
    """Prepare the run folder (refuse or clear an earlier run, drop half-written files), record the
    config, seed the libraries, give torch and the batched core their threads; read the checkpoint
    to resume (its training state and notes for the person; a bad file is a :class:`ModelFileError`)."""
    import torch

    run_dir = cfg.run_dir
    deleted = prepare_run_dir(run_dir, resume=cfg.resume, overwrite=cfg.overwrite)  # ignores .lock
    if deleted:
        print(f"--overwrite: deleted the earlier run in {run_dir} ({', '.join(deleted)})")
    remove_partial_files(run_dir)  # what a killed run left half-written
    write_json(run_dir / "config.json", asdict(cfg))
    torch.manual_seed(cfg.seed)
    threads = plan_threads(cfg.torch_threads, cfg.core_threads)
    apply_threads(threads)
    for note in threads.notes:
        print(f"note: {note}")
    np.random.seed(cfg.seed)
    saved, notes = read_checkpoint(cfg.resume) if cfg.resume else ({}, [])
    return saved, notes, threads


def build_model(
    cfg: TrainConfig, env: Any, saved: dict[str, Any], notes: list[str], threads: ThreadPlan
) -> tuple[Any, dict[str, Any]]:
    """The model and the training state: continued from ``cfg.resume`` (with the config's PPO
    settings), or new (then warm-started by imitation when ``bc_samples`` > 0); its network runs in
    the config's precision."""
    state = fresh_state()
    model = resumed_model(cfg, env) if cfg.resume else new_model(cfg, env)
    precision = resolve_precision(cfg.precision, model.device)
    set_precision(model.policy, precision)
    print(f"[train] {model.device} ({precision}), {threads.describe()}", flush=True)
    if not cfg.resume:
        if cfg.bc_samples > 0:
            behaviour_clone(model, cfg)
        return model, state
    state.update(saved)
    for note in notes:
        print(f"note: {note}")
    print(f"resumed from {cfg.resume} at step {model.num_timesteps:,}")
    return model, state


def new_model(cfg: TrainConfig, env: Any) -> Any:
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        CardAwarePolicy if cfg.policy == "card" else "MlpPolicy",
        env,
        learning_rate=cfg.learning_rate,
        n_steps=rollout_steps(cfg),
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
        policy_kwargs={"net_arch": list(cfg.net_arch)},
        tensorboard_log=str(cfg.run_dir / "tb"),
        seed=cfg.seed,
        device=cfg.device,
        verbose=0,
    )


def resumed_model(cfg: TrainConfig, env: Any) -> Any:
    """The checkpoint ``cfg.resume`` on ``env``, the config's PPO settings applied to the continued run;
    a model of another shape or algorithm is a :class:`ModelFileError`. The file is read as data:
    nothing in it runs."""
    resume = Path(cfg.resume)
    settings = {
        "learning_rate": cfg.learning_rate,
        "clip_range": cfg.clip_range,
        "ent_coef": cfg.ent_coef,
        "vf_coef": cfg.vf_coef,
        "gamma": cfg.gamma,
        "gae_lambda": cfg.gae_lambda,
        "n_epochs": cfg.n_epochs,
        "max_grad_norm": cfg.max_grad_norm,
    }
    try:
        model = load_sb3_model(resume, env=env, device=cfg.device, overrides=settings, what="checkpoint",
                               problem="cannot be resumed with this config", tensorboard_log=str(cfg.run_dir / "tb"))
    except ModelFileError:
        stop_workers(env)
        raise
    except Exception as exc:  # a model of another shape or algorithm
        stop_workers(env)
        raise ModelFileError(resume, f"cannot be resumed with this config ({type(exc).__name__}: {exc})",
                             "checkpoint") from None
    model.set_random_seed(cfg.seed + model.num_timesteps)  # the same run from the same checkpoint
    return model


def ppo_target(model: Any, total_timesteps: int) -> tuple[int, int]:
    """(steps per rollout, the step PPO stops at): ``total_timesteps`` rounded up to whole rollouts
    of the model's own ``n_steps`` (a resumed model keeps its checkpoint's) on its env's slots."""
    rollout = model.n_steps * model.get_env().num_envs
    remaining = max(total_timesteps - model.num_timesteps, 0)
    return rollout, model.num_timesteps + math.ceil(remaining / rollout) * rollout


def learn(
    cfg: TrainConfig, model: Any, env: Any, monitor: TrainingMonitor, stop: GracefulStop,
    started: float | None = None,
) -> None:
    """PPO from the model's step to ``total_timesteps`` in whole rollouts (nothing when the model already
    has them), saying how the steps round and how evaluation works; the curve's step-0 point first, and
    PPO stops at ``max_minutes`` after ``started`` (``time.monotonic()`` when the run began; default now)."""
    started = time.monotonic() if started is None else started
    rollout, target = ppo_target(model, cfg.total_timesteps)
    if target <= model.num_timesteps:
        print(f"[ppo] the model already has {model.num_timesteps:,} steps (total_timesteps "
              f"{cfg.total_timesteps:,}): nothing to learn", flush=True)
        return
    if target != cfg.total_timesteps:
        print(f"[ppo] PPO learns from whole rollouts of {rollout:,} steps (n_steps {model.n_steps:,} x "
              f"{env.num_envs} envs): total_timesteps {cfg.total_timesteps:,} rounds up to {target:,}", flush=True)
    if cfg.eval_every > 0:
        print(f"[eval] every {cfg.eval_every:,} steps: {cfg.eval_hands:,} deals vs the heuristic, the same "
              "deals each time, a rough estimate for the learning curve; at the end the "
              f"{cfg.select_top} highest are re-evaluated on fresh deals to choose best.zip", flush=True)
    if cfg.eval_every > 0 and not monitor.state["eval_history"]:  # where PPO starts from: the curve's step 0
        monitor.state["eval_history"].append(step_zero_point(model, cfg, seed=cfg.seed + 7))
    monitor.start(model.num_timesteps, target)
    stop.learn(
        model,
        total_timesteps=target - model.num_timesteps,
        callback=[monitor.callback, *time_limit_callbacks(cfg.max_minutes, started)],
        reset_num_timesteps=not cfg.resume,
        progress_bar=cfg.progress_bar and sys.stderr.isatty(),
        tb_log_name="ppo",
    )


def finish_learning(cfg: TrainConfig, model: Any, env: Any, monitor: TrainingMonitor, stop: GracefulStop) -> None:
    """Evaluate the last step (once), write the checkpoint (then stop if a signal asked:
    :class:`TrainingStopped`) and ``final.zip``; close the envs."""
    history = monitor.state["eval_history"]
    if not stop.requested and (not history or history[-1]["step"] != model.num_timesteps):
        monitor.evaluate(model, model_logger(model), model.num_timesteps)  # the last step, evaluated once
    monitor.checkpoint(model)
    stop.after_checkpoint(cfg.run_dir / "checkpoint.zip", model.num_timesteps, env)  # stopped: TrainingStopped
    atomic_save_model(model, cfg.run_dir / "final.zip", features=cfg.features)
    env.close()


def model_logger(model: Any) -> Any:
    """The model's SB3 logger; one that records nothing for a model that did not learn in this
    process (a resumed checkpoint that already has its steps has none)."""
    try:
        return model.logger
    except AttributeError:
        from stable_baselines3.common.logger import Logger

        model.set_logger(Logger(folder=None, output_formats=[]))
        return model.logger


def load_for_evaluation(path: str | Path) -> Any:
    """A model file this run wrote, loaded on the CPU for evaluation (read as data)."""
    return load_sb3_model(path, device="cpu")


def select_best(cfg: TrainConfig, state: dict[str, Any]) -> dict[str, Any]:
    """Re-evaluate the best in-training candidates on fresh deals; the best of them becomes ``best.zip``."""
    def evaluate_file(path: str, hands: int, seed: int) -> dict[str, float]:
        policy = SB3Policy(load_for_evaluation(path), metadata={"features": cfg.features})
        return quick_evaluate(policy, "heuristic", hands, seed=seed)

    run_dir = cfg.run_dir
    select_hands = cfg.select_hands or cfg.final_eval_hands
    if len(state["candidates"]) > 1:
        print(f"[select] re-evaluating {len(state['candidates'])} candidates on {select_hands:,} fresh deals "
              "vs heuristic ...", flush=True)
    try:
        selection = choose_best(state, run_dir, select_hands, cfg.seed + SELECTION_SEED_OFFSET, evaluate_file)
    except OSError as exc:  # copying the chosen candidate: best.zip is replaced only once the copy is whole
        raise RunWriteError(run_dir / "best.zip", exc) from exc
    print(selection_text(selection), flush=True)
    return selection


def final_evaluation(cfg: TrainConfig, model: Any, selection: dict[str, Any]) -> dict[str, Any]:
    """``best.zip`` against the heuristic and random on deals used for nothing else; written to
    ``final_eval.json`` and returned."""
    best = cfg.run_dir / "best.zip"
    final_model = load_for_evaluation(best) if best.is_file() else model
    final_policy = SB3Policy(final_model, metadata={"features": cfg.features})
    summary: dict[str, Any] = {"best_step": selection["step"], "num_timesteps": model.num_timesteps,
                               "selection": selection, "vs": {}}
    print(f"[final] evaluating best.zip on {cfg.final_eval_hands:,} further deals vs heuristic and random ...",
          flush=True)
    for opponent in ("heuristic", "random"):
        summary["vs"][opponent] = quick_evaluate(final_policy, opponent, cfg.final_eval_hands, seed=cfg.seed + 1234)
    write_json(cfg.run_dir / "final_eval.json", summary)
    return summary


def print_summary(cfg: TrainConfig, summary: dict[str, Any]) -> None:
    run_dir = cfg.run_dir
    print()
    print(f"Evaluation of {run_dir / 'best.zip'} (the model of step {summary['best_step']:,}) on "
          f"{cfg.final_eval_hands} deals used for nothing else, each played in both roles "
          f"({2 * cfg.final_eval_hands} hands):")
    print(f"{'opponent':<12}{'points/hand':>14}{'95% CI':>18}{'as team':>10}{'as box':>10}")
    for name, s in summary["vs"].items():
        ci = f"[{signed(s['mean'] - s['ci95'])}, {signed(s['mean'] + s['ci95'])}]"
        print(f"{name:<12}{signed(s['mean']):>14}{ci:>18}{signed(s['team_mean']):>10}{signed(s['box_mean']):>10}")
    print(f"\nTensorBoard: tensorboard --logdir {run_dir / 'tb'}")
    print(f"Learning curve: {run_dir / 'learning_curve.png'}")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineErrorParser(
        prog="gin3 train",
        description="Train a MaskablePPO agent for three-handed gin. Configs: quick, default, selfplay, gpu "
        "(or a YAML path); every config key can be overridden by its flag.",
    )
    parser.add_argument("--config", default="quick", help="config name or YAML path (default: quick)")
    parser.add_argument("--backend", choices=["sb3"], default="sb3",
                        help="sb3: this trainer (default); `gin3 train --backend rllib` trains with Ray RLlib "
                        "instead (see its --help)")
    add_flags(parser)
    add_trust_flag(parser)
    args = parser.parse_args(argv)
    trust_from_args(args)
    try:
        overrides = flag_overrides(args)
        cfg = load_config(args.config, overrides)
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    if "run_name" not in overrides and not cfg.resume and not cfg.overwrite:
        # a run not named on the command line never collides with an earlier one: it gets the next number
        name = numbered_run_name(Path(cfg.out_dir), cfg.run_name)
        if name != cfg.run_name:
            print(f"{cfg.run_dir} holds a run: this run goes to {Path(cfg.out_dir) / name} "
                  "(--run-name NAME names a run; a named run that exists is refused)", flush=True)
            cfg.run_name = name
    return run_train(cfg, list(sys.argv[1:] if argv is None else argv))


def run_train(cfg: TrainConfig, argv: list[str]) -> int:
    """:func:`train` under the run folder's lock and the stop-signal handling; faults become one
    line on stderr and an exit code: 2 a bad file, a busy folder, a folder that already holds a
    run or that cannot be used (a link, not writable), 1 a failed write or a dead worker, 130/143
    stopped by SIGINT/SIGTERM."""
    try:
        with RunLock(cfg.run_dir), GracefulStop(cfg.run_dir, argv) as stop:
            train(cfg, stop)
    except (RunLockedError, RunExistsError, RunFolderError, ModelFileError) as exc:
        print(f"gin3 train: error: {exc}", file=sys.stderr)
        return 2
    except RunWriteError as exc:
        print(f"gin3 train: error: {exc}; the files it would have replaced are unchanged"
              f"{_resume_from(cfg)}", file=sys.stderr)
        return 1
    except TrainingStopped as exc:
        print(exc, file=sys.stderr)
        return exc.exit_code
    except Interrupted as exc:
        print(f"gin3 train: {exc}{_resume_from(cfg)}", file=sys.stderr)
        return exc.exit_code
    return 0


def _resume_from(cfg: TrainConfig) -> str:
    checkpoint = cfg.run_dir / "checkpoint.zip"
    if checkpoint.is_file():
        return f"; the last complete checkpoint is {checkpoint} (resume with --resume {checkpoint})"
    return "; no checkpoint was written yet"


if __name__ == "__main__":
    raise SystemExit(main())
