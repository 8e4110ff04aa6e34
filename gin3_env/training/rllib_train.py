"""``gin3 train --backend rllib``: multi-agent PPO with Ray RLlib, from a laptop to a cluster.

    gin3 train --backend rllib                               # config quick, a local Ray on 127.0.0.1
    gin3 train --backend rllib --config per_seat --num-env-runners 2
    gin3 train --backend rllib --config selfplay --address 10.0.0.5:6379 --num-env-runners 32
    gin3 train --backend rllib --run-name R --resume         # continue RUN_DIR/checkpoint

One loop, top to bottom: read the typed config (:mod:`.rllib_config`), connect
to Ray (a local instance bound to loopback, or the cluster at ``--address``),
build PPO on the new API stack over :mod:`gin3_env.interop.rllib`'s
multi-agent env with one policy for every seat (``policies: shared``), one per
seat (``per_seat``) or the learner against the heuristic as a fixed module
(``vs_heuristic``), then ``algo.train()`` until ``total_timesteps`` env steps,
logging each seat's mean return per episode (in game points: a zero-sum game's
overall mean is always 0) to stdout and TensorBoard (``RUN_DIR/tb``). The
checkpoint ``RUN_DIR/checkpoint`` (RLlib's own, plus ``gin3_policy.json`` and
``gin3_state.json``) is replaced atomically every ``checkpoint_every``
iterations and at the end; ``--resume`` continues it. At the end the checkpoint
is loaded with torch alone (:mod:`gin3_env.policies.rllib_policy`) and
evaluated against the heuristic and random, as ``gin3 train`` does.

Bad input (an unknown config key, an unreachable ``--address``, a missing or
foreign checkpoint to resume, a run folder that already holds a run, or one that
another ``gin3 train`` is using: :class:`~.run_lock.RunLock` on ``RUN_DIR/.lock``)
is one line on stderr and exit code 2, before anything but the lock file is written.

Ctrl-C (SIGINT) or SIGTERM (:class:`~.signals.GracefulStop`): the iteration in
flight finishes, the checkpoint is written (atomically, as always), the command
prints where it is and how to resume (``gin3 train --backend rllib ... --resume``),
stops Ray (a local instance) and exits 130 / 143; a second signal exits at once,
leaving the last complete checkpoint.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import logging
import os
import shutil
import socket
import sys
import time
import zlib
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..files import save_json
from ..signals import Interrupted, exit_code, signal_name
from .rllib_config import RLlibConfig, add_flags, flag_overrides, load_config
from .run_lock import LOCK_NAME, RunFolderError, RunLock, RunLockedError
from .signals import GracefulStop, TrainingStopped

CHECKPOINT = "checkpoint"
STATE_FILE = "gin3_state.json"
ARCHITECTURE_KEYS = ("env", "policies", "features", "card_head", "hidden")
LEARNED = {"shared": ("shared",), "per_seat": ("team", "box"), "vs_heuristic": ("learner",)}
PLAY_MODULES = {"shared": {"any": "shared"}, "per_seat": {"team": "team", "box": "box"},
                "vs_heuristic": {"any": "learner"}}
OBJECT_STORE_BYTES = 256 * 1024**2


class RunError(ValueError):
    """A problem with what the user asked for: reported as one line, exit code 2."""


# ------------------------------------------------------------------ Ray connection
def loopback_only() -> None:
    """Make a Ray instance started by this process bind to 127.0.0.1 only.

    Ray swaps a node address of 127.0.0.1 for the machine's address unless its
    single-machine mode is on (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, read once
    at import; set here for the child processes and, if Ray is already imported,
    on its constant). Usage statistics (a network call) are off as well."""
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    constants = sys.modules.get("ray._private.ray_constants")
    if constants is not None:
        constants.ENABLE_RAY_CLUSTER = False


def check_address(address: str, timeout: float = 3.0) -> None:
    """``RunError`` unless ``HOST:PORT`` accepts a TCP connection (``auto`` is left to Ray)."""
    if address == "auto":
        return
    host, sep, port = address.rpartition(":")
    if address.startswith("ray://") or not sep or not host or not port.isdigit():
        raise RunError(f"--address must be HOST:PORT of a Ray cluster's head (or auto), got {address!r}")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise RunError(
            f"cannot reach a Ray cluster at {address}: {exc.strerror or exc} "
            "(start one with `ray start --head --port PORT`, or leave --address out for a local run)"
        ) from None


def _has_token() -> bool:
    if os.environ.get("RAY_AUTH_TOKEN"):
        return True
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.expanduser("~/.ray/auth_token")
    return os.path.isfile(path)


def connect(cfg: RLlibConfig) -> bool:
    """Start or join Ray; True when this call started it (and must stop it)."""
    if cfg.address:
        check_address(cfg.address)
        if "RAY_AUTH_MODE" not in os.environ and _has_token():
            os.environ["RAY_AUTH_MODE"] = "token"  # `ray start` clusters use token authentication
    else:
        loopback_only()
    if importlib.util.find_spec("ray") is None:
        raise RunError("the RLlib backend needs Ray: pip install 'gin3_env[rllib]' "
                       "(in a virtual environment of its own, see the README)")
    import ray

    if ray.is_initialized():
        return False
    try:
        if cfg.address:
            ray.init(address=cfg.address, logging_level=logging.WARNING)
        else:
            cpus = max(cfg.num_cpus or os.cpu_count() or 1, cfg.num_env_runners)
            ray.init(
                address="local",  # a new instance, never one that a stale /tmp/ray/ray_current_cluster names
                num_cpus=cpus,
                include_dashboard=False,
                object_store_memory=OBJECT_STORE_BYTES,
                _node_ip_address="127.0.0.1",
                logging_level=logging.WARNING,
            )
    except (ConnectionError, RuntimeError) as exc:
        where = f"the Ray cluster at {cfg.address}" if cfg.address else "a local Ray instance"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RunError(f"cannot connect to {where}: {first}") from None
    return True


def _descendants(pid: int) -> set[int]:
    """The processes below ``pid``, from /proc (empty where there is none)."""
    children: dict[int, list[int]] = {}
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return set()
    for name in entries:
        try:
            with open(f"/proc/{name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def kill_local_ray() -> None:
    """The second signal: SIGKILL the local Ray instance this process started (gcs, raylet, their
    agents and workers, all below this process), which an immediate exit would leave running for a
    while (Ray's agents notice a dead raylet only after some time)."""
    import signal

    pids = _descendants(os.getpid())
    if not pids:  # no /proc: Ray's own list of the processes it started
        node = getattr(sys.modules.get("ray._private.worker"), "_global_node", None)
        if node is not None:
            node.kill_all_processes(check_alive=False, allow_graceful=False)
        return
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


# ------------------------------------------------------------------ algorithm
def _map_all(module: str, agent_id: str, episode: Any, **kwargs: Any) -> str:
    return module


def _map_per_seat(agent_id: str, episode: Any, **kwargs: Any) -> str:
    return "team" if agent_id == "team_0" else "box"


def _map_vs_heuristic(agents: tuple[str, ...], agent_id: str, episode: Any, **kwargs: Any) -> str:
    """The learner takes one seat per episode, drawn from the episode's id; the heuristic the rest."""
    seat = zlib.crc32(str(getattr(episode, "id_", "")).encode()) % len(agents)
    return "learner" if agent_id == agents[seat] else "heuristic"


def build_algorithm(cfg: RLlibConfig) -> Any:
    import gymnasium as gym
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from ..engine.actions import NUM_ACTIONS
    from ..engine.rules import Rules
    from ..interop.rllib import ENV_NAMES, make_env, register_envs
    from ..interop.rllib_modules import ActionMaskingTorchRLModule, HeuristicRLModule

    register_envs()
    env_config = {"features": cfg.features, "reward_scale": cfg.reward_scale, "rules": dict(cfg.rules)}
    probe = make_env(cfg.env, env_config)
    agents = tuple(probe.possible_agents)
    obs_space = probe.observation_spaces[agents[0]]
    act_space = gym.spaces.Discrete(NUM_ACTIONS)
    learned = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=obs_space,
        action_space=act_space,
        model_config={"hidden": list(cfg.hidden), "card_head": cfg.card_head},
    )
    specs = {module: learned for module in LEARNED[cfg.policies]}
    if cfg.policies == "shared":
        mapping: Any = functools.partial(_map_all, "shared")
    elif cfg.policies == "per_seat":
        mapping = _map_per_seat
    else:
        mapping = functools.partial(_map_vs_heuristic, agents)
        knock_limit = Rules.from_dict(dict(cfg.rules)).knock_limit
        specs["heuristic"] = RLModuleSpec(
            module_class=HeuristicRLModule,
            observation_space=obs_space,
            action_space=act_space,
            model_config={"knock_limit": knock_limit},
        )
    config = (
        PPOConfig()
        .environment(ENV_NAMES[cfg.env], env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=cfg.num_env_runners, num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=list(LEARNED[cfg.policies]))
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
            lr=cfg.lr,
            gamma=cfg.gamma,
            lambda_=cfg.lambda_,
            clip_param=cfg.clip_param,
            entropy_coeff=cfg.entropy_coeff,
            vf_loss_coeff=cfg.vf_loss_coeff,
            grad_clip=cfg.grad_clip,
        )
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    return config.build_algo()


# ------------------------------------------------------------------ checkpoints
def policy_metadata(cfg: RLlibConfig, state: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint's ``gin3_policy.json`` (what the torch-only player needs)."""
    from ..policies.rllib_net import input_size
    from ..policies.rllib_policy import FORMAT, FORMAT_VERSION

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
    from ..policies.rllib_policy import SIDECAR

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
    import json

    from ..policies.rllib_policy import read_sidecar

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
        read_sidecar(final)  # a foreign checkpoint is a ValueError naming it
    except ValueError as exc:
        raise RunError(f"cannot resume: {exc}") from None
    try:
        saved = json.loads((final / STATE_FILE).read_text())
    except (OSError, ValueError) as exc:
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


def iteration_record(cfg: RLlibConfig, result: dict[str, Any], steps: int, seconds: float) -> dict[str, Any]:
    """The figures of one ``algo.train()`` result that are printed and logged."""
    runners = result.get("env_runners", {})
    scale = cfg.reward_scale
    returns = {
        agent: value / scale
        for agent, v in sorted((runners.get("agent_episode_returns_mean") or {}).items())
        if (value := _mean(v)) is not None
    }
    learners = result.get("learners", {})
    losses = {
        module: {k: float(learners[module][k]) for k in ("policy_loss", "vf_loss", "entropy") if k in learners[module]}
        for module in LEARNED[cfg.policies]
        if isinstance(learners.get(module), dict)
    }
    return {
        "iteration": int(result.get("training_iteration", 0)),
        "timesteps": steps,
        "steps_per_s": int(runners.get("num_env_steps_sampled", 0) or 0) / max(seconds, 1e-9),
        "episodes": int(runners.get("num_episodes", 0) or 0),
        "episode_len_mean": _mean(runners.get("episode_len_mean")),
        "seat_returns": returns,
        "losses": losses,
    }


def print_record(record: dict[str, Any]) -> None:
    seats = ", ".join(f"{agent} {value:+.2f}" for agent, value in record["seat_returns"].items()) or "no episode ended"
    print(
        f"[iter {record['iteration']:>4}] {record['timesteps']:>9,} env steps, {record['steps_per_s']:,.0f} steps/s | "
        f"mean return per episode (points): {seats}",
        flush=True,
    )


def log_record(writer: Any, record: dict[str, Any]) -> None:
    step = record["timesteps"]
    for agent, value in record["seat_returns"].items():
        writer.add_scalar(f"seat_return/{agent}", value, step)
    for module, losses in record["losses"].items():
        for key, value in losses.items():
            writer.add_scalar(f"learner/{module}/{key}", value, step)
    writer.add_scalar("throughput/env_steps_per_s", record["steps_per_s"], step)
    if record["episode_len_mean"] is not None:
        writer.add_scalar("episode/len_mean", record["episode_len_mean"], step)
    writer.flush()


# ------------------------------------------------------------------ evaluation
def evaluate_checkpoint(cfg: RLlibConfig, checkpoint: Path, state: dict[str, Any]) -> dict[str, Any]:
    """The torch-only policy of ``checkpoint`` against the heuristic and random (duplicate deals)."""
    from ..policies.rllib_policy import load_rllib_policy
    from .quick_eval import quick_evaluate

    policy = load_rllib_policy(checkpoint)
    summary: dict[str, Any] = {"checkpoint": str(checkpoint), "num_timesteps": state["timesteps"], "vs": {}}
    for opponent in ("heuristic", "random"):
        summary["vs"][opponent] = quick_evaluate(policy, opponent, cfg.final_eval_hands, seed=cfg.seed + 1234)
    return summary


def print_summary(cfg: RLlibConfig, summary: dict[str, Any]) -> None:
    print()
    print(f"Evaluation of {summary['checkpoint']} (step {summary['num_timesteps']:,}), "
          f"{cfg.final_eval_hands} deals each, every deal played in both roles ({2 * cfg.final_eval_hands} hands):")
    print(f"{'opponent':<12}{'points/hand':>14}{'95% CI':>18}{'as team':>10}{'as box':>10}")
    for name, s in summary["vs"].items():
        ci = f"[{s['mean'] - s['ci95']:+.2f}, {s['mean'] + s['ci95']:+.2f}]"
        print(f"{name:<12}{s['mean']:>+14.2f}{ci:>18}{s['team_mean']:>+10.2f}{s['box_mean']:>+10.2f}")
    print(f"\nTensorBoard: tensorboard --logdir {cfg.run_dir / 'tb'}")
    print(f"Play it: gin3 evaluate rllib:{summary['checkpoint']} heuristic")


# ------------------------------------------------------------------ main
def _remove_empty_logdir(algo: Any) -> None:
    """RLlib's Trainable makes an (unused) folder under ~/ray_results; drop it when empty."""
    logdir = getattr(algo, "logdir", None)
    if logdir and os.path.isdir(logdir) and not os.listdir(logdir):
        os.rmdir(logdir)


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
    from torch.utils.tensorboard import SummaryWriter

    started = connect(cfg)
    if stop is not None:
        stop.reinstall()  # ray.init replaced the SIGTERM handler with its own (it aborts the process)
        if started:
            stop.on_abort = kill_local_ray
    run_dir = cfg.run_dir
    state: dict[str, Any] = {"timesteps": 0, "iterations": 0, "history": []}
    algo = None
    try:
        import torch

        torch.set_num_threads(cfg.torch_threads)
        algo = build_algorithm(cfg)
        if saved is not None:
            algo.restore_from_path(str((run_dir / CHECKPOINT).resolve()))
            state.update({k: saved[k] for k in ("timesteps", "iterations", "history") if k in saved})
            print(f"resumed from {run_dir / CHECKPOINT} at {state['timesteps']:,} env steps", flush=True)
        run_dir.mkdir(parents=True, exist_ok=True)
        save_json(run_dir / "config.json", asdict(cfg))
        where = f"the Ray cluster at {cfg.address}" if cfg.address else "a local Ray instance (127.0.0.1)"
        print(f"RLlib PPO on {where}: env {cfg.env}, policies {cfg.policies}, "
              f"{cfg.num_env_runners} env runner(s), {cfg.total_timesteps:,} env steps", flush=True)
        if stop is not None:
            stop.reinstall()
            stop.defer()  # from here a signal lets the iteration in flight finish, then checkpoints
            print("Ctrl-C (SIGINT) or SIGTERM writes a checkpoint after the current iteration and stops", flush=True)
        with SummaryWriter(str(run_dir / "tb")) as writer:
            while state["timesteps"] < cfg.total_timesteps and not (stop is not None and stop.requested):
                start = time.perf_counter()
                result = algo.train()
                seconds = time.perf_counter() - start
                sampled = int(result.get("env_runners", {}).get("num_env_steps_sampled", 0) or 0)
                if sampled <= 0:
                    raise RuntimeError(f"RLlib iteration {state['iterations'] + 1} sampled no env step")
                state["timesteps"] += sampled
                state["iterations"] += 1
                record = iteration_record(cfg, result, state["timesteps"], seconds)
                state["history"].append(record)
                print_record(record)
                log_record(writer, record)
                if cfg.checkpoint_every and state["iterations"] % cfg.checkpoint_every == 0:
                    save_checkpoint(algo, cfg, state)
        checkpoint = save_checkpoint(algo, cfg, state)
    finally:
        if algo is not None:
            algo.stop()
            _remove_empty_logdir(algo)
        if started:
            import ray

            ray.shutdown()
    if stop is not None and not stop.requested:
        stop.defer(False)  # the evaluation stops at once on a signal: the checkpoint is already whole
    if stop is not None and stop.signum is not None:
        where = "the Ray instance stopped" if started else f"the Ray cluster at {cfg.address} left running"
        raise TrainingStopped(
            f"gin3 train --backend rllib: stopped by {signal_name(stop.signum)} after iteration "
            f"{state['iterations']} ({state['timesteps']:,} env steps); checkpoint written to {checkpoint}; "
            f"{where}\nresume with: {resume_command(argv or [])}",
            exit_code(stop.signum),
        )
    # Ray is no longer needed: the checkpoint is played with torch alone
    summary = evaluate_checkpoint(cfg, checkpoint, state)
    with SummaryWriter(str(run_dir / "tb")) as writer:
        for name, stats in summary["vs"].items():
            writer.add_scalar(f"final_eval/vs_{name}", stats["mean"], state["timesteps"])
    save_json(run_dir / "final_eval.json", summary)
    print_summary(cfg, summary)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="gin3 train --backend rllib",
        description="Train with Ray RLlib (multi-agent PPO; needs the 'rllib' extra). Configs: quick (default), "
        "selfplay, per_seat, vs_heuristic, match (or a YAML path); every config key can be overridden by "
        "its flag. Without --address a local Ray instance bound to 127.0.0.1 is started and stopped.",
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
