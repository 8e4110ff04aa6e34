"""Strength of the distilled network by decisions distilled: fits on the first shards of a distillation run's
round 0, beside the run's own rounds, against the heuristic and against ``gated``.

    python -m experiments.distill_curve --run runs/distill --shards 1 3 --epochs 2.5 \\
        --json docs/results/net_distill_curve.json --plot docs/distillation_curve.png

For each ``--shards N`` a network of the run's sizes is fitted (the run's epochs and rate of round 0, one torch
thread) to the first ``N`` shards of round 0 alone; every network, these and each round's ``net_rR.npz``, then
plays ``--heuristic-deals`` duplicate deals against the heuristic (the run's choice seed) and ``--trained-deals``
against ``gated`` (``--seed``, seat baseline). The JSON holds each point (decisions, the fit's CPU-minutes,
agreement with ``gated``, both figures); the plot draws both figures with their 95% intervals by decisions.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.files import atomic_output, save_json


def points(run: Path, shards: list[int], heuristic_deals: int, trained_deals: int, seed: int,
           epochs: float | None = None) -> list[dict[str, Any]]:
    from gin3_env.policies.net import load_net
    from gin3_training.distill.data import Decisions, load_shard
    from gin3_training.distill.fit import fit, new_net
    from gin3_training.distill.run import CHOICE_SEED_OFFSET, figures, versus

    state = json.loads((run / "state.json").read_text())
    cfg = state["config"]
    out = []

    def measured(net: Any, record: dict[str, Any]) -> dict[str, Any]:
        record["vs_heuristic"] = figures(versus(net, "heuristic", heuristic_deals, cfg["seed"] + CHOICE_SEED_OFFSET))
        record["vs_trained"] = figures(versus(net, "gated", trained_deals, seed))
        print(json.dumps(record), flush=True)
        return record

    for n in shards:
        c0 = time.process_time()
        data = Decisions([load_shard(run / "shards" / f"r00_{i:04d}.npz") for i in range(n)])
        net, info = fit(new_net(data, tuple(cfg["hidden"]), cfg["seed"]), data, epochs or cfg["epochs"],
                        cfg["learning_rate"], cfg["batch_size"], cfg["seed"], None, 1)
        out.append(measured(net, {"what": f"round 0's first {n} shard(s)", "decisions": len(data),
                                  "fit_cpu_minutes": (time.process_time() - c0) / 60, **info}))
    for r in state["rounds"]:
        out.append(measured(load_net(run / f"net_r{r['round']}.npz"),
                            {"what": f"round {r['round']}", "decisions": r["decisions"],
                             **{k: v for k, v in r.items() if k.startswith("agreement")}}))
    return out


def plot(records: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in (("vs_heuristic", "against the heuristic"), ("vs_trained", "against gated")):
        rows = sorted(records, key=lambda r: r["decisions"])
        x = [r["decisions"] for r in rows]
        y = [r[key]["pair_mean"][0] for r in rows]
        err = [[r[key]["pair_mean"][0] - r[key]["pair_mean"][1] for r in rows],
               [r[key]["pair_mean"][2] - r[key]["pair_mean"][0] for r in rows]]
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=f"net {label} ({rows[0][key]['deals']:,} deals)")
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("decisions of trained distilled (round 0's first shards, then the DAgger rounds)")
    ax.set_ylabel("points per hand (95% interval)")
    ax.set_title("net, distilled from gated: strength by decisions distilled")
    ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic_output(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineErrorParser(prog="python -m experiments.distill_curve", description=__doc__.split("\n")[0])
    parser.add_argument("--run", type=Path, required=True, help="a distillation run folder (gin3 train --config "
                        "distill)")
    parser.add_argument("--shards", type=int, nargs="*", default=[1, 3], help="fits on round 0's first N shards")
    parser.add_argument("--heuristic-deals", type=int, default=1000)
    parser.add_argument("--trained-deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=61003, help="the deals against gated")
    parser.add_argument("--epochs", type=float, default=None, help="passes of the subset fits (default: the run's)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--plot", type=Path, default=None)
    parser.add_argument("--from-json", type=Path, default=None, help="plot these points instead of measuring")
    args = parser.parse_args(argv)
    if args.from_json is not None:
        records = json.loads(args.from_json.read_text())
    else:
        records = points(args.run, args.shards, args.heuristic_deals, args.trained_deals, args.seed, args.epochs)
    if args.json is not None:
        save_json(args.json, records)
    if args.plot is not None:
        plot(records, args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
