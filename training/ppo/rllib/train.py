"""``gin3 train --backend rllib``: PPO with Ray RLlib, from a laptop to a cluster.

    gin3 train --backend rllib                               # config quick, a local Ray on 127.0.0.1
    gin3 train --backend rllib --config per_seat --num-env-runners 2
    gin3 train --backend rllib --config selfplay --address 10.0.0.5:6379 --num-env-runners 32
    gin3 train --backend rllib --run-name R --resume         # continue RUN_DIR/checkpoint

The steps, top to bottom in :func:`train_rllib`: check the run folder (and, to
resume, the checkpoint); connect to Ray (:mod:`.ray_runtime`: a local instance
bound to loopback, or the cluster at ``--address``); build PPO
(:mod:`.algorithm`: self-play on the multi-agent env, or the learner
against the heuristic in the batched core); ``algo.train()`` in whole
iterations until ``total_timesteps`` env steps are reached, printing and
logging (TensorBoard, ``RUN_DIR/tb``) the hands that ended in each iteration
and each seat's mean return over them, in game points; write the checkpoint ``RUN_DIR/checkpoint``
(RLlib's own, plus ``gin3_policy.json`` and ``gin3_state.json``), atomically,
every ``checkpoint_every`` iterations and at the end; stop Ray; load the
checkpoint with torch alone (:mod:`gin3_env.policies.rllib_policy`) and
evaluate it against the heuristic and random, as ``gin3 train`` does. A resume
whose checkpoint already reached ``total_timesteps`` trains nothing and says
so, showing the evaluation already made (made once, if it is missing).

Bad input (an unknown config key, an unreachable ``--address``, a missing or
foreign checkpoint to resume, a run folder that already holds a run, or one that
another ``gin3 train`` is using: :class:`~gin3_training.run.lock.RunLock` on ``RUN_DIR/.lock``)
is one line on stderr and exit code 2, before anything but the lock file is written.

Ctrl-C (SIGINT) or SIGTERM (:class:`~gin3_training.run.signals.GracefulStop`): the iteration in
flight finishes, the checkpoint is written (atomically, as always), the command
prints where it is and how to resume (``gin3 train --backend rllib ... --resume``),
stops Ray (a local instance) and exits 130 / 143; a second signal exits at once,
leaving the last complete checkpoint.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.engine.rules import Rules
from gin3_env.files import read_json, save_json
from gin3_env.signals import Interrupted, exit_code, signal_name
from gin3_training.ppo.rllib.algorithm import LEARNED, PLAY_MODULES, build_algorithm, stop_algorithm
from gin3_training.ppo.rllib.config import RLlibConfig, add_flags, flag_overrides, load_config
from gin3_training.ppo.rllib.ray_runtime import RunError, connect, kill_local_ray, shutdown
from gin3_training.run.folder import RunFolderError
from gin3_training.run.lock import LOCK_NAME, RunLock, RunLockedError
from gin3_training.run.signals import GracefulStop, TrainingStopped

CHECKPOINT = "checkpoint"
STATE_FILE = "gin3_state.json"
FINAL_EVAL = "final_eval.json"
ARCHITECTURE_KEYS = ("env", "policies", "features", "card_head", "hidden")

__all__ = ["RunError", "main", "train_rllib"]


# ------------------------------------------------------------------ checkpoints
def policy_metadata(cfg: RLlibConfig, state: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint's ``gin3_policy.json`` (what the torch-only player needs)."""
    from gin3_env.policies.rllib_net import input_size
    from gin3_env.policies.rllib_policy import FORMAT, FORMAT_VERSION

    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "name": cfg.run_name,
        "env": cfg.env,
        "features": cfg.features,
        "obs_dim": input_size(cfg.env, cfg.features),
        "hidden": list(cfg.hidden),
        "card_head": cfg.card_head,
        "policies": cfg.policies,
        "play_modules": PLAY_MODULES[cfg.policies],
        "trained_modules": list(LEARNED[cfg.policies]),
        "reward_scale": cfg.reward_scale,
        "rules": dict(cfg.rules),
        "timesteps": state["timesteps"],
        "iterations": state["iterations"],
    }


def save_checkpoint(algo: Any, cfg: RLlibConfig, state: dict[str, Any]) -> Path:
    """Write ``RUN_DIR/checkpoint`` so that it is the old complete one or the new complete one."""
    run_dir = cfg.run_dir.resolve()
    final, partial, old = run_dir / CHECKPOINT, run_dir / f"{CHECKPOINT}.partial", run_dir / f"{CHECKPOINT}.old"
    shutil.rmtree(partial, ignore_errors=True)
    algo.save_to_path(str(partial))
    from gin3_env.policies.rllib_policy import SIDECAR

    save_json(partial / STATE_FILE, {**state, "config": asdict(cfg)})
    save_json(partial / SIDECAR, policy_metadata(cfg, state))
    if final.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(final, old)
    os.replace(partial, final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def check_run_folder(cfg: RLlibConfig) -> dict[str, Any] | None:
    """Before anything is written: refuse to overwrite a run; for ``resume`` read and check
    the checkpoint's state. Returns the saved state (resume) or None."""
    from gin3_env.policies.rllib_policy import read_sidecar

    run_dir = cfg.run_dir
    final, old = run_dir / CHECKPOINT, run_dir / f"{CHECKPOINT}.old"
    if not cfg.resume:
        if run_dir.exists() and any(p.name != LOCK_NAME for p in run_dir.iterdir()):
            raise RunError(
                f"run folder {run_dir} already holds a run: pass --resume to continue it, "
                "or choose another --run-name / --out-dir"
            )
        return None
    if not final.exists() and old.is_dir():
        os.replace(old, final)  # a crash between the two renames of save_checkpoint
    if not final.is_dir():
        raise RunError(f"nothing to resume: no checkpoint folder {final}")
    try:
        meta = read_sidecar(final)  # a foreign checkpoint is a ValueError naming it
    except ValueError as exc:
        raise RunError(f"cannot resume: {exc}") from None
    if meta.get("trained_modules") != list(LEARNED[cfg.policies]):
        raise RunError(f"cannot resume {final}: it trained the modules {meta.get('trained_modules')}, policies "
                       f"{cfg.policies} trains {list(LEARNED[cfg.policies])} (a checkpoint of another setup)")
    try:
        saved = read_json(final / STATE_FILE, "checkpoint state")
    except ValueError as exc:
        raise RunError(f"checkpoint {final} has no readable {STATE_FILE}: {exc}") from None
    before = saved.get("config", {})
    changed = [k for k in ARCHITECTURE_KEYS if before.get(k) != getattr(cfg, k)]
    if changed:
        diffs = ", ".join(f"{k}: {before.get(k)!r} -> {getattr(cfg, k)!r}" for k in changed)
        raise RunError(f"cannot resume {final} with a different setup ({diffs})")
    return saved


# ------------------------------------------------------------------ logging
def _mean(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if number != number else number  # NaN: no episode ended


def _count(value: Any) -> int:
    number = _mean(value)
    return 0 if number is None else int(number)  # NaN: nothing counted yet (a resumed run's first result)


def _returns(cfg: RLlibConfig, runners: dict[str, Any]) -> dict[str, float]:
    """Each seat's mean return over the iteration's episodes, in game points (the learner's, against
    the heuristic)."""
    if cfg.policies == "vs_heuristic":
        value = _mean(runners.get("episode_return_mean"))
        return {} if value is None else {"learner": value / cfg.reward_scale}
    means = runners.get("agent_episode_returns_mean") or {}
    return {
        agent: value / cfg.reward_scale
        for agent in sorted(means, key=lambda a: (not str(a).startswith("team"), str(a)))  # team_0 first
        if (value := _mean(means[agent])) is not None
    }


def iteration_record(cfg: RLlibConfig, result: dict[str, Any], steps: int, seconds: float) -> dict[str, Any]:
    """The figures of one ``algo.train()`` result that are printed and logged."""
    runners = result.get("env_runners", {})
    learners = result.get("learners", {})
    losses = {
        module: {k: float(learners[module][k]) for k in ("policy_loss", "vf_loss", "entropy") if k in learners[module]}
        for module in LEARNED[cfg.policies]
        if isinstance(learners.get(module), dict)
    }
    return {
        "iteration": _count(result.get("training_iteration")),
        "timesteps": steps,
        "sampled": _count(runners.get("num_env_steps_sampled")),
        "steps_per_s": _count(runners.get("num_env_steps_sampled")) / max(seconds, 1e-9),
        "episodes": _count(runners.get("num_episodes")),
        "episode_len_mean": _mean(runners.get("episode_len_mean")),
        "seat_returns": _returns(cfg, runners),
        "losses": losses,
    }


def record_text(record: dict[str, Any], unit: tuple[str, str] = ("hand", "hands")) -> str:
    """One iteration's line: steps, speed, and (when any ended) the episodes that ended in the
    iteration and their mean return per seat; ``unit``: what an episode is, singular and plural."""
    head = (f"[iter {record['iteration']:>4}] {record['timesteps']:>9,} env steps, "
            f"{record['steps_per_s']:>6,.0f} steps/s | ")
    episodes = record["episodes"]
    if not episodes:
        return head + f"no {unit[0]} ended in this iteration"
    ended = f"{episodes:,} {unit[episodes != 1]} ended"
    if record["episode_len_mean"] is not None:
        ended += f" ({record['episode_len_mean']:,.0f} steps on average)"
    seats = ", ".join(f"{agent} {value:+.2f}" for agent, value in record["seat_returns"].items())
    if not seats:
        return head + ended
    return head + f"{ended}; mean return (points): {seats}"


def log_record(writer: Any, record: dict[str, Any]) -> None:
    step = record["timesteps"]
    for agent, value in record["seat_returns"].items():
        writer.add_scalar(f"seat_return/{agent}", value, step)
    for module, losses in record["losses"].items():
        for key, value in losses.items():
            writer.add_scalar(f"learner/{module}/{key}", value, step)
    writer.add_scalar("throughput/env_steps_per_s", record["steps_per_s"], step)
    writer.add_scalar("episode/ended", record["episodes"], step)
    if record["episode_len_mean"] is not None:
        writer.add_scalar("episode/len_mean", record["episode_len_mean"], step)
    writer.flush()


def plan_text(cfg: RLlibConfig, state: dict[str, Any]) -> str:
    """What the run will do: where, what, and how ``total_timesteps`` is reached."""
    where = f"the Ray cluster at {cfg.address}" if cfg.address else "a local Ray instance (127.0.0.1)"
    sampler = f"{cfg.num_env_runners} env runner(s)" if cfg.num_env_runners else "the driver process"
    if cfg.num_envs_per_env_runner > 1:
        sampler += f", {cfg.num_envs_per_env_runner} hands at a time each"
    iterations = -(-(cfg.total_timesteps - state["timesteps"]) // cfg.train_batch_size)
    return (f"RLlib PPO on {where}: env {cfg.env}, policies {cfg.policies}, sampled by {sampler}\n"
            f"target {cfg.total_timesteps:,} env steps, trained in whole iterations of about {cfg.train_batch_size:,} "
            f"(train_batch_size): about {iterations:,} iteration(s), stopping after the first that reaches the target")


# ------------------------------------------------------------------ evaluation
def evaluate_checkpoint(cfg: RLlibConfig, checkpoint: Path, state: dict[str, Any]) -> dict[str, Any]:
    """The torch-only policy of ``checkpoint`` against the heuristic and random (duplicate deals)."""
    from gin3_env.policies.rllib_policy import load_rllib_policy
    from gin3_training.quick_eval import quick_evaluate

    policy = load_rllib_policy(checkpoint)
    rules = Rules.from_dict(dict(cfg.rules))  # the game it was trained in
    summary: dict[str, Any] = {"checkpoint": str(checkpoint), "num_timesteps": state["timesteps"], "vs": {}}
    for opponent in ("heuristic", "random"):
        summary["vs"][opponent] = quick_evaluate(policy, opponent, cfg.final_eval_hands, seed=cfg.seed + 1234,
                                                 rules=rules)
    return summary


def print_summary(cfg: RLlibConfig, summary: dict[str, Any]) -> None:
    deals = next(iter(summary["vs"].values()))["deals"]
    print()
    print(f"Evaluation of {summary['checkpoint']} (step {summary['num_timesteps']:,}), "
          f"{deals} deals each, every deal played in both roles ({2 * deals} hands):")
    print(f"{'opponent':<12}{'points/hand':>14}{'95% CI':>18}{'as team':>10}{'as box':>10}")
    for name, s in summary["vs"].items():
        ci = f"[{s['mean'] - s['ci95']:+.2f}, {s['mean'] + s['ci95']:+.2f}]"
        print(f"{name:<12}{s['mean']:>+14.2f}{ci:>18}{s['team_mean']:>+10.2f}{s['box_mean']:>+10.2f}")
    print(f"\nTensorBoard: tensorboard --logdir {cfg.run_dir / 'tb'}")
    print(f"Play it: gin3 evaluate rllib:{summary['checkpoint']} heuristic")


def final_evaluation(cfg: RLlibConfig, checkpoint: Path, state: dict[str, Any]) -> dict[str, Any]:
    """Evaluate ``checkpoint`` (torch alone: Ray is not needed), log it, save ``final_eval.json``, print it."""
    from torch.utils.tensorboard import SummaryWriter

    summary = evaluate_checkpoint(cfg, checkpoint, state)
    with SummaryWriter(str(cfg.run_dir / "tb")) as writer:
        for name, stats in summary["vs"].items():
            writer.add_scalar(f"final_eval/vs_{name}", stats["mean"], state["timesteps"])
    save_json(cfg.run_dir / FINAL_EVAL, summary)
    print_summary(cfg, summary)
    return summary


def already_trained(cfg: RLlibConfig, saved: dict[str, Any]) -> dict[str, Any]:
    """A resume whose checkpoint already reached ``total_timesteps``: say so, train nothing, and show
    the checkpoint's final evaluation (made now only if the run stopped before making it)."""
    checkpoint = (cfg.run_dir / CHECKPOINT).resolve()
    print(f"nothing to train: {checkpoint} holds {saved['timesteps']:,} env steps, which reaches total_timesteps "
          f"{cfg.total_timesteps:,} (pass a larger --total-timesteps to train on)", flush=True)
    try:
        summary = read_json(cfg.run_dir / FINAL_EVAL, "final evaluation")
    except ValueError:
        summary = None
    if isinstance(summary, dict) and summary.get("num_timesteps") == saved["timesteps"] and summary.get("vs"):
        print(f"its final evaluation, made when training ended ({cfg.run_dir / FINAL_EVAL}):")
        print_summary(cfg, summary)
        return summary
    print("it has no final evaluation yet (the run stopped before it): evaluating it now", flush=True)
    return final_evaluation(cfg, checkpoint, saved)


# ------------------------------------------------------------------ main
def resume_command(argv: list[str]) -> str:
    """The command that continues this run: the same arguments, ``--resume`` last (an earlier
    ``--resume`` and its value, if any, dropped)."""
    import shlex

    cleaned: list[str] = []
    previous = ""
    for arg in argv:
        if previous == "--resume" and arg.lower() in ("true", "false", "yes", "no", "on", "off"):
            previous = arg
            continue
        previous = arg
        if arg == "--resume" or arg.startswith("--resume="):
            continue
        cleaned.append(arg)
    return shlex.join(["gin3", "train", "--backend", "rllib", *cleaned, "--resume"])


def train_rllib(cfg: RLlibConfig, stop: GracefulStop | None = None, argv: list[str] | None = None) -> dict[str, Any]:
    """Run one RLlib training job (see the module docstring); returns the final evaluation summary.

    With ``stop`` (its handlers installed), a stop signal during the loop ends it after the
    iteration in flight: the checkpoint is written, Ray stopped, and :class:`TrainingStopped`
    raised with the resume command built from ``argv``."""
    saved = check_run_folder(cfg)
    if saved is not None and saved["timesteps"] >= cfg.total_timesteps:
        return already_trained(cfg, saved)
    started = connect(cfg.address, max(cfg.num_cpus or os.cpu_count() or 1, cfg.num_env_runners))
    if stop is not None:
        stop.reinstall()  # ray.init replaced the SIGTERM handler with its own (it aborts the process)
        if started:
            stop.on_abort = kill_local_ray
    state: dict[str, Any] = {"timesteps": 0, "iterations": 0, "history": []}
    algo = None
    try:
        import torch

        torch.set_num_threads(cfg.torch_threads)
        algo = build_algorithm(cfg)
        if saved is not None:
            algo.restore_from_path(str((cfg.run_dir / CHECKPOINT).resolve()))
            state.update({k: saved[k] for k in ("timesteps", "iterations", "history") if k in saved})
            print(f"resumed from {cfg.run_dir / CHECKPOINT} at {state['timesteps']:,} env steps", flush=True)
        cfg.run_dir.mkdir(parents=True, exist_ok=True)
        save_json(cfg.run_dir / "config.json", asdict(cfg))
        print(plan_text(cfg, state), flush=True)
        if stop is not None:
            stop.reinstall()
            stop.defer()  # from here a signal lets the iteration in flight finish, then checkpoints
            print("Ctrl-C (SIGINT) or SIGTERM writes a checkpoint after the current iteration and stops", flush=True)
        train_loop(algo, cfg, state, stop)
        checkpoint = save_checkpoint(algo, cfg, state)
    finally:
        if algo is not None:
            stop_algorithm(algo)
        if started:  # a second signal while Ray stops still reaches the stop handler
            shutdown(keep_handlers=stop.reinstall if stop is not None else None)
    if stop is not None and not stop.requested:
        stop.defer(False)  # the evaluation stops at once on a signal: the checkpoint is already whole
    if stop is not None and stop.signum is not None:
        if started:
            where = "the Ray instance stopped"
        else:
            where = f"the Ray cluster at {cfg.address or '(this process)'} left running"
        raise TrainingStopped(
            f"gin3 train --backend rllib: stopped by {signal_name(stop.signum)} after iteration "
            f"{state['iterations']} ({state['timesteps']:,} env steps); checkpoint written to {checkpoint}; "
            f"{where}\nresume with: {resume_command(argv or [])}",
            exit_code(stop.signum),
        )
    print(f"trained to {state['timesteps']:,} env steps in {state['iterations']:,} iteration(s) "
          f"(target {cfg.total_timesteps:,}); checkpoint {checkpoint}", flush=True)
    return final_evaluation(cfg, checkpoint, state)


def train_loop(algo: Any, cfg: RLlibConfig, state: dict[str, Any], stop: GracefulStop | None) -> None:
    """``algo.train()`` until ``total_timesteps`` (or a stop signal), recording every iteration in
    ``state``, printing it, logging it to TensorBoard, checkpointing every ``checkpoint_every``."""
    from torch.utils.tensorboard import SummaryWriter

    unit = ("hand", "hands") if cfg.env == "hand" else ("match", "matches")
    with SummaryWriter(str(cfg.run_dir / "tb")) as writer:
        while state["timesteps"] < cfg.total_timesteps and not (stop is not None and stop.requested):
            start = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - start
            sampled = _count(result.get("env_runners", {}).get("num_env_steps_sampled"))
            if sampled <= 0:
                raise RuntimeError(f"RLlib iteration {state['iterations'] + 1} sampled no env step")
            state["timesteps"] += sampled
            state["iterations"] += 1
            record = iteration_record(cfg, result, state["timesteps"], seconds)
            state["history"].append(record)
            print(record_text(record, unit), flush=True)
            log_record(writer, record)
            if cfg.checkpoint_every and state["iterations"] % cfg.checkpoint_every == 0:
                save_checkpoint(algo, cfg, state)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineErrorParser(
        prog="gin3 train --backend rllib",
        description="Train with Ray RLlib (PPO: self-play on the multi-agent env, or against the heuristic in the "
        "batched core; needs the 'rllib' extra). Configs: quick (default), selfplay, per_seat, vs_heuristic, match "
        "(or a YAML path); every config key can be overridden by its flag. Without --address a local Ray instance "
        "bound to 127.0.0.1 is started and stopped.",
    )
    parser.add_argument("--config", default="quick", help="RLlib config name or YAML path (default: quick)")
    add_flags(parser)
    args = parser.parse_args(argv)
    try:
        cfg = load_config(args.config, flag_overrides(args))
    except (ValueError, FileNotFoundError) as exc:  # an unknown key, a bad value, no such config
        print(f"gin3 train --backend rllib: {exc}", file=sys.stderr)
        return 2
    words = list(sys.argv[1:] if argv is None else argv)
    # what the lock makes (folders, the lock file) goes again if the run is refused
    created = [p for p in (Path(cfg.out_dir), cfg.run_dir, cfg.run_dir / LOCK_NAME) if not p.exists()]
    try:
        with RunLock(cfg.run_dir), GracefulStop(cfg.run_dir, words, unit="iteration") as stop:
            train_rllib(cfg, stop, words)
    except (RunError, RunLockedError, RunFolderError) as exc:
        _remove_if_empty(created)  # a refused run leaves nothing behind
        print(f"gin3 train --backend rllib: {exc}", file=sys.stderr)
        return 2
    except TrainingStopped as exc:
        print(exc, file=sys.stderr)
        return exc.exit_code
    except Interrupted as exc:  # before the loop (connecting, building): nothing to checkpoint yet
        print(f"gin3 train --backend rllib: {exc}; {_last_checkpoint(cfg)}", file=sys.stderr)
        return exc.exit_code
    return 0


def _remove_if_empty(created: list[Path]) -> None:
    """Remove the lock file and the folders this refused run created; a folder that holds
    anything else stays."""
    for path in reversed(created):
        with contextlib.suppress(OSError):  # a folder not empty: something was written, keep it
            if path.name == LOCK_NAME:
                path.unlink()
            else:
                path.rmdir()


def _last_checkpoint(cfg: RLlibConfig) -> str:
    checkpoint = cfg.run_dir / CHECKPOINT
    if (checkpoint / STATE_FILE).is_file():
        return f"the last complete checkpoint is {checkpoint} (resume with --resume)"
    return "no checkpoint was written yet"


if __name__ == "__main__":
    raise SystemExit(main())
