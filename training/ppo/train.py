"""Train a MaskablePPO agent for three-handed gin (both roles), CleanRL style: the SB3 door of ``gin3 train``
(a config with ``pipeline: distill``, such as ``quick``, goes to :mod:`gin3_training.distill` instead).

    gin3 train --config ppo_quick             # a few minutes on 2 cores
    gin3 train --config default               # the run behind the shipped agent (ppo)
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
:func:`final_evaluation`. What runs inside PPO is :class:`~.monitor.TrainingMonitor`; the
learner's vec env and opponent pool are built in :mod:`.envs`.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.evaluation.stats import signed
from gin3_env.policies.loading import SB3Policy
from gin3_env.policies.model_fields import ModelFileError
from gin3_env.policies.model_file import ModelFile, add_trust_flag, load_sb3_model, read_model_file, trust_from_args
from gin3_env.policies.sb3_network import CardAwarePolicy
from gin3_env.signals import Interrupted
from gin3_training.options import add_backend_flag, other_backend
from gin3_training.ppo.config import QUICK_CONFIG, TrainConfig, add_flags, flag_overrides, load_config
from gin3_training.ppo.envs import make_vec_env, rollout_steps
from gin3_training.ppo.imitation import behaviour_clone
from gin3_training.ppo.monitor import TrainingMonitor, fresh_state, stages_text
from gin3_training.ppo.plots import plot_learning_curve
from gin3_training.ppo.precision import resolve_precision, set_precision
from gin3_training.ppo.selection import SELECTION_SEED_OFFSET, checked_candidates, choose_best, selection_text
from gin3_training.ppo.time_limit import time_limit_callbacks
from gin3_training.quick_eval import quick_evaluate, step_zero_point
from gin3_training.run.checkpoints import (
    RunWriteError,
    atomic_save_model,
    read_checkpoint,
    remove_partial_files,
    write_json,
)
from gin3_training.run.folder import (
    RUN_FILES,
    RUN_FOLDERS,
    SIDECARS,
    RunExistsError,
    RunFolderError,
    check_run_dir,
    left_by_overwrite,
    numbered_run_name,
    prepare_run_dir,
    tensorboard_dir,
)
from gin3_training.run.lock import RunLockedError
from gin3_training.run.run import Layout, Run
from gin3_training.run.signals import GracefulStop, TrainingStopped
from gin3_training.run.workers import stop_workers
from gin3_training.threads import ThreadPlan, apply_threads, plan_threads


# ---------------------------------------------------------------------- main
def train(cfg: TrainConfig, stop: GracefulStop | None = None) -> dict[str, Any]:
    """Run one training job; returns the final evaluation summary.

    ``stop`` (installed by :func:`main`) turns SIGINT/SIGTERM into a checkpoint and
    :class:`~gin3_training.run.signals.TrainingStopped`. The steps, in order: :func:`open_run`,
    :func:`build_model`, :func:`learn`, :func:`finish_learning`, :func:`select_best`,
    :func:`final_evaluation`."""
    started = time.monotonic()
    stop = stop or GracefulStop(cfg.run_dir)
    saved, notes, threads = open_run(cfg)
    print(stages_text(cfg), flush=True)
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
    if cfg.overwrite and not cfg.resume:
        if deleted:
            shown = ", ".join(deleted[:6]) + (f" and {len(deleted) - 6} more" if len(deleted) > 6 else "")
            print(f"--overwrite: deleted the earlier run's files in {run_dir} ({shown})")
        left = left_by_overwrite(run_dir)
        if left:
            print(f"--overwrite: left {len(left)} file(s) the earlier run did not write: {', '.join(left)}")
    remove_partial_files(run_dir)  # what a killed run left half-written
    write_json(run_dir / "config.json", asdict(cfg))
    torch.manual_seed(cfg.seed)
    threads = plan_threads(cfg.torch_threads, cfg.core_threads)
    apply_threads(threads)
    for note in threads.notes:
        print(f"note: {note}")
    np.random.seed(cfg.seed)
    if cfg.resume:  # read once: the state and the model resumed come from the same checked bytes
        checkpoint = read_model_file(cfg.resume, "checkpoint")
        saved, notes = read_checkpoint(cfg.resume, checkpoint)
        saved["_checkpoint"] = checkpoint
    else:
        saved, notes = {}, []
    return saved, notes, threads


def build_model(
    cfg: TrainConfig, env: Any, saved: dict[str, Any], notes: list[str], threads: ThreadPlan
) -> tuple[Any, dict[str, Any]]:
    """The model and the training state: continued from ``cfg.resume`` (with the config's PPO
    settings), or new (then warm-started by imitation when ``bc_samples`` > 0); its network runs in
    the config's precision."""
    state = fresh_state()
    checkpoint = saved.pop("_checkpoint", None)
    model = resumed_model(cfg, env, checkpoint) if cfg.resume else new_model(cfg, env)
    precision = resolve_precision(cfg.precision, model.device)
    set_precision(model.policy, precision)
    print(f"[train] {model.device} ({precision}), {threads.describe()}", flush=True)
    if not cfg.resume:
        if cfg.bc_samples > 0:
            behaviour_clone(model, cfg)
        return model, state
    state.update(saved)
    notes = [*notes, *checked_candidates(state, cfg.run_dir)]  # paths read back are checked like any input
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
        tensorboard_log=tensorboard_dir(cfg.run_dir),
        seed=cfg.seed,
        device=cfg.device,
        verbose=0,
    )


def resumed_model(cfg: TrainConfig, env: Any, checkpoint: ModelFile | None = None) -> Any:
    """The checkpoint ``cfg.resume`` on ``env``, the config's PPO settings applied to the continued run;
    a model of another shape or algorithm is a :class:`ModelFileError`. The file is read as data:
    nothing in it runs: SB3 is handed the bytes ``checkpoint`` holds (read once by :func:`open_run`)
    and this run's own env."""
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
        model = load_sb3_model(checkpoint or resume, env=env, device=cfg.device, overrides=settings, what="checkpoint",
                               problem="cannot be resumed with this config",
                               tensorboard_log=tensorboard_dir(cfg.run_dir))
    except ModelFileError:
        stop_workers(env)
        raise
    except Exception as exc:  # a model of another shape or algorithm
        stop_workers(env)
        raise ModelFileError(resume, f"cannot be resumed with this config ({type(exc).__name__}: {exc})",
                             "checkpoint") from None
    model.set_random_seed((cfg.seed + model.num_timesteps) % 2**32)  # the same run from the same checkpoint
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
        start = step_zero_point(model, cfg, seed=cfg.seed + 7)
        monitor.state["eval_history"].append(start)
        monitor.consider(model, 0, start["mean"], pinned=True)  # the starting point is a candidate for best.zip
    monitor.start(model.num_timesteps, target)
    stop.learn(
        model,
        total_timesteps=target - model.num_timesteps,
        callback=[monitor.callback, *time_limit_callbacks(cfg.max_minutes, started)],
        reset_num_timesteps=not cfg.resume,
        progress_bar=cfg.progress_bar and sys.stderr.isatty(),
        tb_log_name="ppo",
    )
    monitor.speed_line(model)


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
    """A model file this run wrote, as a player on the CPU for evaluation (read as data, no trainer)."""
    from gin3_env.policies.player import load_player

    return load_player(path, "model file", "cpu")


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
    """``gin3 train`` for the MaskablePPO configs (``gin3_training.train`` chooses this door)."""
    parser = OneLineErrorParser(
        prog="gin3 train",
        description="Train a MaskablePPO agent for three-handed gin. Configs: ppo_quick, default, selfplay, gpu "
        "(or a YAML path); every config key can be overridden by its flag. The configs quick and distill "
        "distil the network player net instead (gin3 train --config quick --help).",
    )
    parser.add_argument("--config", default=QUICK_CONFIG, help=f"config name or YAML path (default: {QUICK_CONFIG})")
    add_backend_flag(parser)
    add_flags(parser)
    add_trust_flag(parser)
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if (status := other_backend(args, argv)) is not None:
        return status
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


# what a PPO run writes (its folder's names: gin3_training.run.folder); its records kept by prepare_run_dir
LAYOUT = Layout("ppo", files=(*RUN_FILES, *SIDECARS), folders=RUN_FOLDERS, records=False)


def check_resume(cfg: TrainConfig) -> None:
    """Read and check the checkpoint to resume before the run folder is made: a refused ``--resume`` (no such
    file, not a checkpoint, a damaged state) leaves nothing behind (a :class:`ModelFileError`, one line)."""
    if cfg.resume:
        read_checkpoint(cfg.resume, read_model_file(cfg.resume, "checkpoint"))


def run_train(cfg: TrainConfig, argv: list[str]) -> int:
    """:func:`train` under the run folder's lock and the stop-signal handling; faults become one
    line on stderr and an exit code: 2 a bad file, a busy folder, a folder that already holds a
    run or that cannot be used (a link, not writable), 1 a failed write or a dead worker, 130/143
    stopped by SIGINT/SIGTERM."""
    try:
        check_resume(cfg)  # the refusals first: a refused command leaves no folder, lock or record
        run = Run(cfg.run_dir, LAYOUT, elsewhere="choose another --run-name or --out-dir")
        run.check_free()  # a folder in use is said so first
        check_run_dir(cfg.run_dir, resume=cfg.resume, overwrite=cfg.overwrite)
        with run, GracefulStop(cfg.run_dir, argv) as stop:
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
