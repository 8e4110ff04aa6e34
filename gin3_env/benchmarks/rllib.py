"""RLlib backend throughput: env steps per second of PPO with 1 and with 2 env runners, in one run.

Usage (in the virtual environment with the ``rllib`` extra)::

    python -m gin3_env.benchmarks.rllib                 # 1 and 2 env runners, 4 iterations each
    python -m gin3_env.benchmarks.rllib --iterations 6 --batch 2000 --config vs_heuristic

One local Ray instance on 127.0.0.1 (2 CPUs) serves both setups; each builds the
algorithm of ``gin3 train --backend rllib`` for the config, runs one warm-up
iteration, then ``--iterations`` timed ones, alternating between the setups
round by round so that other load on a shared machine hits both alike. It
prints wall-clock env steps per second of whole iterations (sampling plus the
PPO update, as ``gin3 train --backend rllib`` reports them) and the ratio of 2
runners to 1. The Ray instance gets 3 logical CPUs, one per env runner actor
of the two setups (an idle one waits without using its core).
"""

from __future__ import annotations

import argparse
import time

from ..training import rllib_train
from ..training.rllib_config import load_config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="quick", help="RLlib config (default quick: shared self-play)")
    parser.add_argument("--iterations", type=int, default=4, help="timed iterations per setup (default 4)")
    parser.add_argument("--batch", type=int, default=1000, help="env steps per iteration (default 1000)")
    args = parser.parse_args()
    runners = (1, 2)
    base = {"train_batch_size": args.batch, "minibatch_size": min(250, args.batch), "num_cpus": sum(runners)}
    cfgs = {n: load_config(args.config, {**base, "num_env_runners": n}) for n in runners}
    started = rllib_train.connect(cfgs[runners[0]])
    import torch

    torch.set_num_threads(1)
    algos = {n: rllib_train.build_algorithm(cfgs[n]) for n in runners}
    totals = {n: {"steps": 0, "seconds": 0.0} for n in runners}
    try:
        for n in runners:
            algos[n].train()  # warm-up: actors start, first weights sync
        for _ in range(args.iterations):
            for n in runners:
                start = time.perf_counter()
                result = algos[n].train()
                seconds = time.perf_counter() - start
                totals[n]["steps"] += int(result["env_runners"]["num_env_steps_sampled"])
                totals[n]["seconds"] += seconds
    finally:
        for algo in algos.values():
            algo.stop()
            rllib_train._remove_empty_logdir(algo)
        if started:
            import ray

            ray.shutdown()
    print(f"config {args.config}, {args.batch} env steps per iteration, {args.iterations} timed iterations each")
    print(f"{'env runners':<12}{'env steps/s':>14}")
    rates = {}
    for n in runners:
        rates[n] = totals[n]["steps"] / totals[n]["seconds"]
        print(f"{n:<12}{rates[n]:>14,.0f}")
    print(f"2 runners / 1 runner (iteration): {rates[2] / rates[1]:.2f}x")


if __name__ == "__main__":
    main()
