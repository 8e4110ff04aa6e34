"""RLlib backend throughput: env steps per second with 1 and 2 env runners, scalar and vectorised, in one run.

Usage (in the virtual environment with the ``rllib`` extra)::

    python -m gin3_training.benchmarks.rllib                          # config quick, 3 timed rounds
    python -m gin3_training.benchmarks.rllib --config vs_heuristic --num-envs 64 --iterations 4

Four setups of ``gin3 train --backend rllib``'s algorithm for the config: 1 and 2
env runners, each stepping one hand at a time (scalar: ``num_envs_per_env_runner``
1) or ``--num-envs`` hands (vectorised: RLlib's vector of multi-agent envs for
self-play, the batched core for ``vs_heuristic``). One local Ray instance on
127.0.0.1 serves them all. After one warm-up iteration each, every round runs,
setup after setup (so that other load on a shared machine hits all alike), one
PPO iteration (``algo.train()``: sampling plus the update, as
``gin3 train --backend rllib`` reports it) and one sampling pass alone (every
runner's ``sample()``, in parallel). It prints, per setup, env steps per second
of whole iterations and of sampling per runner, then the ratios vectorised /
scalar and 2 runners / 1.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from gin3_training.ppo.rllib import ray_runtime
from gin3_training.ppo.rllib.algorithm import build_algorithm, stop_algorithm
from gin3_training.ppo.rllib.config import load_config

RUNNERS = (1, 2)


def _sampled_steps(runner: Any) -> int:
    steps = sum(len(episode) for episode in runner.sample())
    runner.get_metrics()  # reduced now, so that the next iteration's count holds its own steps only
    return steps


def sample_all(algo: Any) -> int:
    """One ``sample()`` on every env runner at once; the env steps they took."""
    return sum(algo.env_runner_group.foreach_env_runner(_sampled_steps, local_env_runner=False))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--config", default="quick", help="RLlib config (default quick: shared self-play)")
    parser.add_argument("--iterations", type=int, default=3, help="timed rounds (default 3)")
    parser.add_argument("--batch", type=int, default=1000, help="env steps per iteration (default 1000)")
    parser.add_argument("--num-envs", type=int, default=0,
                        help="hands per runner when vectorised (default: the config's, or 16 where it has 1)")
    args = parser.parse_args(argv)
    if args.iterations < 1 or args.batch < 1 or args.num_envs < 0:
        parser.error("--iterations and --batch must be >= 1, --num-envs >= 0")
    base = load_config(args.config)
    vectorised = args.num_envs or (base.num_envs_per_env_runner if base.num_envs_per_env_runner > 1 else 16)
    overrides = {"train_batch_size": args.batch, "minibatch_size": min(base.minibatch_size, args.batch)}
    setups = [(runners, envs) for runners in RUNNERS for envs in (1, vectorised)]
    cfgs = {s: load_config(args.config, {**overrides, "num_env_runners": s[0], "num_envs_per_env_runner": s[1]})
            for s in setups}
    started = ray_runtime.connect("", sum(runners for runners, _ in setups))
    import torch

    torch.set_num_threads(1)
    algos: dict[tuple[int, int], Any] = {}
    totals = {s: {"steps": 0, "seconds": 0.0, "sampled": 0, "sampling": 0.0} for s in setups}
    try:
        for s in setups:
            algos[s] = build_algorithm(cfgs[s])
            algos[s].train()  # warm-up: actors start, first weights sync, kernels compiled
        for _ in range(args.iterations):
            for s in setups:
                start = time.perf_counter()
                result = algos[s].train()
                totals[s]["seconds"] += time.perf_counter() - start
                totals[s]["steps"] += int(result["env_runners"]["num_env_steps_sampled"])
                start = time.perf_counter()
                totals[s]["sampled"] += sample_all(algos[s])
                totals[s]["sampling"] += time.perf_counter() - start
    finally:
        for algo in algos.values():
            stop_algorithm(algo)
        if started:
            ray_runtime.shutdown()
    iteration = {s: t["steps"] / t["seconds"] for s, t in totals.items()}
    sampling = {s: t["sampled"] / t["sampling"] / s[0] for s, t in totals.items()}
    print(f"config {args.config} (policies {base.policies}), {args.batch:,} env steps per iteration, "
          f"{args.iterations} timed round(s), setups alternating")
    columns = ("iterations: env steps/s", "sampling: steps/s per runner")
    print(f"{'env runners':<13}{'hands per runner':<20}{columns[0]:>25}{columns[1]:>31}")
    for s in setups:
        kind = f"{s[1]} (vectorised)" if s[1] > 1 else "1 (scalar)"
        print(f"{s[0]:<13}{kind:<20}{iteration[s]:>25,.0f}{sampling[s]:>31,.0f}")
    for runners in RUNNERS:
        scalar, vector = (runners, 1), (runners, vectorised)
        print(f"vectorised / scalar, {runners} runner(s): iterations {iteration[vector] / iteration[scalar]:.2f}x, "
              f"sampling {sampling[vector] / sampling[scalar]:.2f}x")
    for envs in (1, vectorised):
        print(f"2 runners / 1 runner, {envs} hand(s) per runner: iterations "
              f"{iteration[(2, envs)] / iteration[(1, envs)]:.2f}x")


if __name__ == "__main__":
    main()
