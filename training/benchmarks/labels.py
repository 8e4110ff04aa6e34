"""Labelled gate decisions per second: ``gin3 bench --only labels [--quick]``.

Runs one chunk of a knock-gate label run (:mod:`gin3_training.gates.labels`: deals played
by the heuristic, each knock decision valued on the true deal by ``K`` = 64 continuations of
both moves) after a warm-up chunk that compiles the kernels, and reports the labelled
decisions and the continuations (hands played to their end) per wall-clock second, with
numba's thread count beside them; then the same for a chunk of a draw-gate label run (deals
played by the shipped ``gated`` player, a quarter of its take-or-not choices valued by ``K``
continuations of each move, that player in the continuations), under ``"draw"``; then, under
``"every_action"``, the labels that improve ``net`` (:mod:`gin3_training.improve.labels`): ``net``'s
own discard decisions, every legal action played from ``K`` = 32 shared reshuffles, valued decisions and
continuations per CPU-second with ``gated`` in the continuations (and, for scale, with the heuristic, and
with ``gated`` valuing only ``net``'s best three actions of each decision), by the fast kernel the labels use
(:func:`~gin3_training.improve.label_kernels.value_rows_fast`) and, beside it, the former one
(:func:`~gin3_training.improve.label_kernels.value_rows_serial`, the same values).
"""

from __future__ import annotations

import time
from typing import Any

SHUFFLES = 64


def run(quick: bool = False) -> dict[str, Any]:
    from gin3_env.policies.gate_file import load_gated
    from gin3_env.policies.loading import GATE_MODEL
    from gin3_training.gates.labels import LabelRun, label_chunk

    label_chunk(LabelRun(seed=7, deals=8, chunk=8, shuffles=4), 0, None)  # compile
    deals = 40 if quick else 1000
    report = _measure(LabelRun(seed=8, deals=deals, chunk=deals, shuffles=SHUFFLES), None, 1)
    deals = 12 if quick else 200
    report["draw"] = _measure(LabelRun(seed=8, deals=deals, chunk=deals, shuffles=SHUFFLES, decision="draw", rate=0.25),
                              load_gated(GATE_MODEL), 2)
    report["every_action"] = every_action(quick)
    return report


EVERY_ACTION_SHUFFLES = 32
ROUND_SHUFFLES = 64  # the K of the improvement rounds (docs/distillation.md, label noise by K)


def every_action(quick: bool = False) -> dict[str, Any]:
    """Valued decisions per CPU-second of :mod:`gin3_training.improve.labels` (K = 32), ``gated``
    and the heuristic in the continuations (one thread; the states are ``net``'s)."""
    import numpy as np

    from gin3_env.engine.actions import KNOCK_BASE
    from gin3_training.improve.label_kernels import value_rows_serial
    from gin3_training.improve.labels import ActionLabels, _batch_player, continuation_args, label_shard

    player, other = _batch_player("net"), _batch_player("gated")
    out: dict[str, Any] = {"shuffles": EVERY_ACTION_SHUFFLES}
    K = EVERY_ACTION_SHUFFLES
    rows = (("gated", "gated", 4 if quick else 60, 0, None, K),
            ("heuristic", "heuristic", 8 if quick else 120, 0, None, K),
            ("gated, net's best 3", "gated", 8 if quick else 120, 3, None, K),
            ("gated, net's best 3, former kernel", "gated", 8 if quick else 120, 3, value_rows_serial, K),
            ("gated, net's best 3 (K=64)", "gated", 16 if quick else 200, 3, None, ROUND_SHUFFLES),
            ("gated, net's best 3 (K=64), former kernel", "gated", 16 if quick else 200, 3, value_rows_serial,
             ROUND_SHUFFLES))
    for what, cont, n, top, kernel, K in rows:
        args = continuation_args(cont)
        label_shard(ActionLabels(seed=7, decisions=2, shard_size=2, shuffles=2), 0, player, other, args,
                    kernel=kernel)  # compile
        run_ = ActionLabels(seed=8, decisions=n, shard_size=n, shuffles=K, candidates=top)
        cpu0 = time.process_time()
        shard = label_shard(run_, 0, player, other, args, kernel=kernel)
        cpu = time.process_time() - cpu0
        legal = np.isfinite(shard["values"])  # the actions valued
        playouts = int(legal[:, :KNOCK_BASE].sum() * K + legal[:, KNOCK_BASE:].sum())
        out[what] = {"decisions": n, "shuffles": K, "cpu_seconds": cpu, "decisions_per_cpu_s": n / max(cpu, 1e-9),
                     "legal_per_decision": float(legal.sum(axis=1).mean()),
                     "continuations_per_cpu_s": playouts / max(cpu, 1e-9)}
    return out


def _measure(run_: Any, gate: Any, played_out: int) -> dict[str, Any]:
    import numba

    from gin3_training.gates.labels import label_chunk

    t0 = time.perf_counter()
    cpu0 = time.process_time()
    out = label_chunk(run_, 0, gate)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    n = len(out["D"])
    return {"deals": run_.deals, "shuffles": SHUFFLES, "decisions": n, "seconds": wall, "cpu_seconds": cpu,
            "threads": int(numba.get_num_threads()), "decisions_per_s": n / max(wall, 1e-9),
            "continuations_per_s": n * SHUFFLES * played_out / max(wall, 1e-9),
            "decisions_per_cpu_s": n / max(cpu, 1e-9)}


def format_report(report: dict[str, Any]) -> str:
    lines = []
    for what, r in (("knock", report), ("draw", report.get("draw"))):
        if r:
            lines.append(f"{what} labels: {r['decisions']} decisions from {r['deals']} deals x {r['shuffles']} "
                         f"shuffles in {r['seconds']:.1f}s on {r['threads']} thread(s): "
                         f"{r['decisions_per_s']:.0f} labelled decisions/s ({r['continuations_per_s']:.0f} "
                         f"continuations/s; {r['decisions_per_cpu_s']:.0f} per CPU second)")
    every = report.get("every_action")
    if every:
        for what, r in every.items():
            if not isinstance(r, dict):
                continue
            k = r.get("shuffles", every["shuffles"])
            lines.append(f"every-action labels of net's discards, {what} in the continuations: {r['decisions']} "
                         f"decisions x {r['legal_per_decision']:.1f} actions valued x {k} shared "
                         f"reshuffles: {r['decisions_per_cpu_s']:.1f} valued decisions per CPU second "
                         f"({r['continuations_per_cpu_s']:.0f} continuations per CPU second)")
    return "\n".join(lines)
