"""What runs inside PPO during ``gin3 train``: :class:`TrainingMonitor` and the run's state.

The monitor builds the SB3 callback that, at each step, prints progress where no progress bar
is shown, follows the opponent schedule (:func:`~.envs.opponent_pool`), saves the learner's
snapshots for self-play, evaluates against the heuristic every ``eval_every`` steps (keeping
``best.zip`` and the candidates re-evaluated at the end, :mod:`.selection`) and writes the
checkpoint every ``checkpoint_every`` steps. :func:`fresh_state` is the state a new run starts
from (a resumed run reads it from its checkpoint).
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

from gin3_env.evaluation.stats import signed
from gin3_env.policies.loading import SB3Policy
from gin3_training.ppo.config import TrainConfig
from gin3_training.ppo.envs import opponent_pool
from gin3_training.ppo.selection import keep_candidate
from gin3_training.quick_eval import quick_evaluate
from gin3_training.run.checkpoints import atomic_save_model, write_checkpoint
from gin3_training.run.folder import check_run_folder, record_folder


def stages_text(cfg: Any) -> str:
    """The stages of a ``gin3 train`` run, said at its start (the PPO stage's progress lines then keep its
    time left)."""
    warm = (f"warm start: behaviour cloning of the heuristic, {cfg.bc_samples:,} decisions, {cfg.bc_epochs} epochs"
            if cfg.bc_samples > 0 and not cfg.resume else "no warm start")
    evals = (f", every {cfg.eval_every:,} steps an evaluation on {cfg.eval_hands:,} deals" if cfg.eval_every > 0
             else "")
    select = cfg.select_hands or cfg.final_eval_hands
    return (f"[train] stages: 1. {warm}; 2. PPO to {cfg.total_timesteps:,} steps{evals} (its progress lines say the "
            f"time left); 3. the {cfg.select_top} best candidates re-evaluated on {select:,} fresh deals; 4. the "
            f"final evaluation of best.zip on {cfg.final_eval_hands:,} deals vs the heuristic and random. Ctrl-C "
            "writes a checkpoint and stops; --resume continues")


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
        self._sampling = 0.0  # samples/s of the last rollout's collection

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
        sampling = f" (sampling {self._sampling:,.0f} samples/s)" if self._sampling else ""
        print(f"[ppo] step {step:,} of {self.target:,} ({100 * step / max(self.target, 1):.0f}%), "
              f"{rate:,.0f} steps/s{sampling}, {eta}", flush=True)

    def rollout_started(self, model: Any) -> None:
        check_run_folder(self.run_dir)  # SB3 writes TensorBoard's files by path: the folder must be the run's
        self._rollout = (time.perf_counter(), model.num_timesteps)
        if not hasattr(self, "_first"):
            self._first = self._rollout

    def rollout_ended(self, model: Any, logger: Any) -> None:
        """Record the sampling speed (samples per second of this rollout's collection) for TensorBoard
        and the next progress line: no line of its own (a rollout is 2,048 steps; a line each made
        hundreds off a terminal and cut through the progress bar on one)."""
        (start, steps), now = self._rollout, time.perf_counter()
        self._sampling = (model.num_timesteps - steps) / max(now - start, 1e-9)
        logger.record("time/sampling_samples_per_s", self._sampling)
        record_folder(getattr(logger, "dir", None))  # TensorBoard's files, recorded as the run's (re-checked)

    def speed_line(self, model: Any) -> None:
        """One line at the end of PPO: the sampling speed of the last rollout, and the run's with the updates."""
        if not hasattr(self, "_first"):
            return
        start, steps = self._first
        overall = (model.num_timesteps - steps) / max(time.perf_counter() - start, 1e-9)
        print(f"[train] PPO to step {model.num_timesteps:,}: sampling {self._sampling:,.0f} samples/s, "
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
            atomic_save_model(model, path)  # the folder made through the run folder's descriptor
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
        self.consider(model, step, stats["mean"])
        print(
            f"[eval] step {step:>9,}: {signed(stats['mean'])} ± {stats['ci95']:.2f} points/hand vs heuristic on the "
            f"{self.cfg.eval_hands:,} in-training deals (team {signed(stats['team_mean'])}, box "
            f"{signed(stats['box_mean'])}); highest so far {signed(self.state['best_mean'])} at step "
            f"{self.state['best_step']:,}",
            flush=True,
        )

    def consider(self, model: Any, step: int, mean: float, pinned: bool = False) -> None:
        """The model evaluated at ``step`` (in-training estimate ``mean``) as a candidate for ``best.zip``;
        ``pinned`` (the model PPO starts from) keeps it a candidate whatever the later estimates, so the run
        never ships a model that scores worse than where it began on the selection's fresh deals."""
        if mean > self.state["best_mean"]:
            self.state["best_mean"] = mean
            self.state["best_step"] = step
            # the best so far; chosen again among the candidates at the end
            atomic_save_model(model, self.run_dir / "best.zip", features=self.cfg.features)
        keep_candidate(self.state, step, mean, self.run_dir, self.cfg.select_top,
                       lambda path: atomic_save_model(model, path, features=self.cfg.features), pinned=pinned)

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
