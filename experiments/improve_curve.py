"""The advantage head's cross-validated gain by labelled decisions: the choice of ``gin3 train --config improve``
(candidates, ridge, margin) made again on the first shards of a run's round 0.

    python -m experiments.improve_curve --run runs_labels/improve --shards 5 10 20 --json curve.json

For each ``--shards N`` the first ``N`` label shards of round 0 are cross-validated by deal exactly as the run
does (:func:`gin3_training.improve.head.cross_validate`, the run's folds and seed); the JSON holds each point
(decisions, the chosen candidates, ridge and margin, the share of decisions switched, the held-out gain per
decision and its standard error, the CPU-seconds).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.files import save_json


def points(run: Path, shards: list[int]) -> list[dict[str, Any]]:
    from gin3_env.policies.loading import NET_MODEL
    from gin3_env.policies.net import load_net
    from gin3_training.improve.head import Labelled, cross_validate
    from gin3_training.improve.labels import load_shards
    from gin3_training.improve.run import LAYOUT
    from gin3_training.run.run import Run

    held = Run(run, LAYOUT)
    config = held.check_resume()["config"]
    net = load_net(NET_MODEL if config["base"] == "net" else config["base"])
    out = []
    with held:
        paths = [f"labels/{name}" for name in held.listdir("labels") if name.startswith("shard_00_")]
        for n in shards:
            t = time.process_time()
            data = Labelled(load_shards(held, paths[:n]), net)
            cv = cross_validate(data, config["folds"], config["seed"])
            c = cv["chosen"]
            out.append({"shards": n, "decisions": len(data), "top": cv["top"], "ridge": cv["lam"],
                        "margin": cv["margin"], "switch_share": c["switch_share"],
                        "gain_per_decision": c["gain_per_decision"], "gain_se": c["gain_se"],
                        "cpu_s": time.process_time() - t})
            print(json.dumps(out[-1]), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = OneLineErrorParser(prog="python -m experiments.improve_curve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, help="an improvement run folder (gin3 train --config improve)")
    parser.add_argument("--shards", type=int, nargs="+", required=True, help="numbers of round 0's first shards")
    parser.add_argument("--json", default=None, help="write the points here")
    args = parser.parse_args(argv)
    pts = points(Path(args.run), args.shards)
    if args.json:
        save_json(args.json, pts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
