"""``env()``'s wrapper stack against PettingZoo's own, timed in one run: the ratio decides which
``gin3_env.envs.wrapping`` keeps (docs/design.md §6).

Both stacks wrap the same raw env in PettingZoo's classic order
(``OrderEnforcing(AssertOutOfBounds(TerminateIllegal(raw, -1)))``) and play the same random
legal loop (:func:`~gin3_env.benchmarks.aec_loop.aec_loop`), in alternating rounds so that a
machine shared with other work slows both alike; the rate is steps per second of this
process's CPU time. ``python -m gin3_env.benchmarks.wrappers [--seconds S] [--rounds R]
[--json FILE]`` prints each round, the medians and ``ours / pettingzoo's``.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import pettingzoo
from pettingzoo.utils import wrappers

from ..envs import aec_hand
from ..files import save_json
from .aec_loop import aec_loop


def pettingzoos_stack() -> Any:
    """The raw hand env in PettingZoo's own classic wrappers, as its classic envs build them."""
    raw = aec_hand.raw_env()
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)))


STACKS: dict[str, Callable[[], Any]] = {"ours": aec_hand.env, "pettingzoo": pettingzoos_stack}


def run(seconds: float = 3.0, rounds: int = 5, seed: int = 0) -> dict[str, Any]:
    """``rounds`` alternating rounds of ``seconds`` per stack; the median rates and their ratio."""
    for make in STACKS.values():  # warm up (imports, the first hands)
        aec_loop(make, 0.2, seed)
    per_round: dict[str, list[float]] = {name: [] for name in STACKS}
    for r in range(rounds):
        order = list(STACKS) if r % 2 == 0 else list(reversed(STACKS))
        for name in order:
            per_round[name].append(aec_loop(STACKS[name], seconds, seed + r)["steps_per_s"])
    medians = {name: statistics.median(rates) for name, rates in per_round.items()}
    return {
        "pettingzoo_version": pettingzoo.__version__,
        "seconds": seconds,
        "rounds": rounds,
        "steps_per_cpu_s": per_round,
        "median_steps_per_cpu_s": medians,
        "ours_over_pettingzoo": medians["ours"] / medians["pettingzoo"],
    }


def format_report(report: dict[str, Any]) -> str:
    lines = [f"PettingZoo {report['pettingzoo_version']}: {report['rounds']} rounds of {report['seconds']} s each"]
    for name, rates in report["steps_per_cpu_s"].items():
        lines.append(f"  {name:<10} median {report['median_steps_per_cpu_s'][name]:>9.0f} steps/CPU s  "
                     f"({', '.join(f'{x:.0f}' for x in rates)})")
    lines.append(f"  ours / pettingzoo's = {report['ours_over_pettingzoo']:.2f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per round and stack (default 3)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--json", help="also write the report here")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1:
        parser.error("--seconds must be > 0 and --rounds >= 1")
    report = run(args.seconds, args.rounds)
    print(format_report(report))
    if args.json:
        save_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
