"""Labelled knock decisions per second: ``gin3 bench --only labels [--quick]``.

Runs one chunk of a knock-gate label run (:mod:`gin3_env.training.gate.labels`: deals played
by the heuristic, each knock decision valued on the true deal by ``K`` = 64 continuations of
both moves) after a warm-up chunk that compiles the kernels, and reports the labelled
decisions and the continuations (hands played to their end) per wall-clock second, with
numba's thread count beside them.
"""

from __future__ import annotations

import time
from typing import Any

SHUFFLES = 64


def run(quick: bool = False) -> dict[str, Any]:
    import numba

    from ..training.gate.labels import LabelRun, label_chunk

    label_chunk(LabelRun(seed=7, deals=8, chunk=8, shuffles=4), 0, None)  # compile
    deals = 100 if quick else 1000
    run_ = LabelRun(seed=8, deals=deals, chunk=deals, shuffles=SHUFFLES)
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    out = label_chunk(run_, 0, None)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    n = len(out["D"])
    return {"deals": deals, "shuffles": SHUFFLES, "decisions": n, "seconds": wall, "cpu_seconds": cpu,
            "threads": int(numba.get_num_threads()), "decisions_per_s": n / max(wall, 1e-9),
            "continuations_per_s": n * SHUFFLES / max(wall, 1e-9), "decisions_per_cpu_s": n / max(cpu, 1e-9)}


def format_report(report: dict[str, Any]) -> str:
    return (f"knock labels: {report['decisions']} decisions from {report['deals']} deals x {report['shuffles']} "
            f"shuffles in {report['seconds']:.1f}s on {report['threads']} thread(s): "
            f"{report['decisions_per_s']:.0f} labelled decisions/s ({report['continuations_per_s']:.0f} "
            f"continuations/s; {report['decisions_per_cpu_s']:.0f} per CPU second)")
