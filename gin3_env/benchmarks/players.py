"""Decisions per second of the batched players: ``gin3 bench --only players [--quick]``.

The heuristic, ``gated`` (the heuristic with its learnt gates) and ``net`` (the network acting alone:
its per-action inputs, compiled, then its numpy forward) each choose on the same rows of observations,
taken from hands the heuristic plays; the rows are played once first (compiling the kernels), then timed
in wall-clock and CPU time on one thread.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

BENCHED_PLAYERS = ("heuristic", "gated", "net")  # the batched players timed (not the registry)


def observations(rows: int, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    from ..kernels.hands import VectorHands
    from ..vector import HeuristicBatch

    envs = 256
    hands = VectorHands(envs, seed=seed)
    player = HeuristicBatch()
    obs, masks = [], []
    for _ in range(max(1, rows // envs)):
        o, m = hands.observe(), hands.action_mask.astype(np.int8)
        obs.append(o.copy())
        masks.append(m.copy())
        hands.step(player.act(o, m))
    return np.concatenate(obs), np.concatenate(masks)


def run(quick: bool = False) -> dict[str, Any]:
    from ..policies import load_policy
    from ..vector import as_batch

    obs, masks = observations(4096 if quick else 32768)
    report: dict[str, Any] = {"rows": len(obs)}
    for name in BENCHED_PLAYERS:
        player = as_batch(load_policy(name))
        player.act(obs[:64], masks[:64])  # compile
        t0, c0 = time.perf_counter(), time.process_time()
        player.act(obs, masks)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        report[name] = {"seconds": wall, "cpu_seconds": cpu, "decisions_per_s": len(obs) / max(wall, 1e-9),
                        "decisions_per_cpu_s": len(obs) / max(cpu, 1e-9)}
    return report


def format_report(report: dict[str, Any]) -> str:
    return "\n".join(f"{name}: {r['decisions_per_s']:,.0f} decisions/s ({r['decisions_per_cpu_s']:,.0f} per CPU "
                     f"second) over {report['rows']:,} rows" for name, r in report.items() if name != "rows")
