"""Searched decisions per CPU-second: ``gin3 bench --only search [--quick]``.

Each configuration below plays a few seeded deals against the shipped ``gated`` player (both seats, seed
2026, after one warm-up deal that compiles the kernels) and reports its searched decisions (those with two
or more candidate moves), the process CPU time they took (the belief's update included: a decision is timed
from the observation's arrival) as decisions per CPU-second, and the median wall and CPU milliseconds of one:

- ``search``: the default search, told whom it faces (its belief models ``gated``);
- ``search:opponent=kernel``: the default search with the heuristic's kernel model as its belief's likelihood;
- ``search:rollout_policy=gated``: the gated blueprint, told whom it faces.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

CONFIGS = ("search", "search:opponent=kernel", "search:rollout_policy=gated")
SEED = 2026


def _measure(spec: str, deals: int) -> dict[str, Any]:
    from ..evaluation.hands import play_deal
    from ..policies import load_policy

    search = load_policy(spec, seed=SEED)
    opponent = load_policy("gated")
    cpu: list[float] = []
    act = search.act

    def timed(observation: dict[str, Any]) -> int:
        before = len(search.decision_seconds)
        t0 = time.process_time()
        action = act(observation)
        if len(search.decision_seconds) > before:  # a searched decision
            cpu.append(time.process_time() - t0)
        return int(action)

    search.act = timed
    rng = np.random.default_rng(SEED)
    play_deal(search, opponent, [int(c) for c in rng.permutation(52)])  # warm-up: the kernels compile
    cpu.clear()
    search.decision_seconds.clear()
    for _ in range(deals):
        deck = [int(c) for c in rng.permutation(52)]
        play_deal(search, opponent, deck)
        play_deal(opponent, search, deck)
    wall = np.asarray(search.decision_seconds)
    total = float(sum(cpu))
    return {"spec": spec, "deals": deals, "searched_decisions": len(cpu), "cpu_seconds": total,
            "decisions_per_cpu_s": len(cpu) / total if total else 0.0,
            "median_wall_ms": float(np.median(wall) * 1e3) if len(wall) else 0.0,
            "median_cpu_ms": float(np.median(cpu) * 1e3) if cpu else 0.0}


def run(quick: bool = False) -> dict[str, Any]:
    deals = 1 if quick else 5
    return {"opponent": "gated", "seed": SEED, "configs": [_measure(spec, deals) for spec in CONFIGS]}


def format_report(report: dict[str, Any]) -> str:
    lines = [f"searched decisions against {report['opponent']} (seed {report['seed']}):"]
    for r in report["configs"]:
        lines.append(f"  {r['spec']:<30} {r['searched_decisions']:>5} decisions over {r['deals']} deals x 2 seats: "
                     f"{r['decisions_per_cpu_s']:.1f} per CPU second, median {r['median_cpu_ms']:.0f} ms CPU "
                     f"({r['median_wall_ms']:.0f} ms wall)")
    return "\n".join(lines)
