"""Gates measured in play: ``python -m experiments.knock_gate GATE.json ... --hands N --seed S [--against B]``.

Each gate file (``gin3 train-gate`` output) plays as :class:`~gin3_env.policies.gated.GatedPolicy`
against ``B`` (a policy spec, default the heuristic; ``gated`` for the shipped gated player)
over the same duplicate deals with the seat baseline (each seat also against B's own play of
it), on the batched core. The JSON holds, per file, its scorers, each gate's scorer, threshold, cross-validated fit and
labels (from the file's provenance) and the play report
(:meth:`~gin3_env.evaluation.hands_report.HandsReport.to_dict`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gin3_env.evaluation import evaluate_hands
from gin3_env.files import save_json
from gin3_env.policies import load_policy
from gin3_env.policies.gate_file import load_gated
from gin3_env.policies.gated import GatedPolicy


def measure(paths: Sequence[str], hands: int, seed: int, against: str = "heuristic") -> dict[str, Any]:
    out: dict[str, Any] = {"hands": hands, "seed": seed, "against": against, "gates": {}}
    for p in paths:
        gate = load_gated(p)
        report = evaluate_hands(GatedPolicy(gate, name=Path(p).stem), load_policy(against), hands, seed=seed,
                                seat_baseline=True)
        out["gates"][p] = {"scorers": gate.scorers, "play": report.to_dict(),
                           **{g.decision: {"scorer": g.scorer, "threshold": g.threshold,
                                           "fit": g.provenance.get("fit"), "labels": g.provenance.get("labels")}
                              for g in gate.gates}}
        print(report.to_text(), flush=True)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.knock_gate", description=__doc__)
    parser.add_argument("gates", nargs="+", help="gate model files (gin3 train-gate output)")
    parser.add_argument("--hands", type=int, default=2000, help="duplicate deals (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    parser.add_argument("--against", default="heuristic", help="the opponent's policy spec (default heuristic)")
    parser.add_argument("--json", type=Path, default=None, help="write the results as JSON here")
    args = parser.parse_args(list(argv) if argv is not None else None)
    result = measure(args.gates, args.hands, args.seed, args.against)
    if args.json is not None:
        save_json(args.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
