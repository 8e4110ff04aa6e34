"""Several ``gin3 evaluate --json`` results of one pairing pooled into one figure per measure.

``python -m experiments.pooled docs/results/A.json docs/results/B.json ...`` reads each file's hands report
(its duplicate deals: the pair mean per deal and, per seat, the player minus the opponent's own play of that
seat) and prints each file's figures, then the pooled ones: the mean over every deal of every file and its 95%
interval (Student's t, as every report: :func:`gin3_env.evaluation.stats.pooled_mean_ci`), from each file's count,
mean and standard deviation (the pooled sample's own mean and variance, as if the deals had been played in one
run). Files with the same seed hold the same deals and are refused; the
players' names are printed beside each file, so that one player measured under two names (a file and the
shipped name it became) is seen to be one. ``--json PATH`` writes the figures.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gin3_env.evaluation.stats import MeanCI, pooled_mean_ci
from gin3_env.files import check_output_file, read_json, save_json

MEASURES = ("points_per_hand", "team", "box")  # the pair mean, and each seat minus the opponent's own play of it


def read_result(path: str) -> dict[str, Any]:
    """One file's pairing, seed and each measure as the report states it (a :class:`MeanCI`)."""
    result = read_json(Path(path), "result file")
    try:
        hands = result["reports"]["hands"]
        adjusted = hands["seat_adjusted"]
        stats = {"points_per_hand": hands["points_per_hand"], "team": adjusted["team"], "box": adjusted["box"]}
        return {"file": path, "player": str(hands["policy_a"]), "opponent": str(hands["policy_b"]),
                "seed": int(hands["seed"]),
                **{k: MeanCI(float(s["mean"]), float(s["low"]), float(s["high"]), int(s["n"]), float(s["std"]))
                   for k, s in stats.items()}}
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path} is not a gin3 evaluate result with hands and --seat-baseline ({exc})") from None


def pooled(paths: list[str]) -> dict[str, Any]:
    """Each file's figures and the pooled ones (see the module doc)."""
    rows = [read_result(p) for p in paths]
    seeds = [r["seed"] for r in rows]
    repeated = sorted({s for s in seeds if seeds.count(s) > 1})
    if repeated:
        raise ValueError(f"seed(s) {repeated} appear in more than one file: the same deals would count twice")
    return {"files": rows, "pooled": {k: pooled_mean_ci([r[k] for r in rows]) for k in MEASURES}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.pooled", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="gin3 evaluate --json result files (--seat-baseline)")
    parser.add_argument("--json", default="", help="write the figures here (a new file)")
    args = parser.parse_args(argv)
    if args.json:
        check_output_file(args.json, "--json")
    try:
        out = pooled(args.results)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    for r in out["files"]:
        print(f"{r['file']}: {r['player']} vs {r['opponent']}, {r['points_per_hand'].n:,} deals, seed {r['seed']}: "
              f"{r['points_per_hand']} (team {r['team']}, box {r['box']})")
    p = out["pooled"]
    print(f"pooled, {p['points_per_hand'].n:,} deals: " + ", ".join(f"{k} {p[k]}" for k in MEASURES))
    if args.json:
        save_json(args.json, {"files": [{k: v.to_dict() if isinstance(v, MeanCI) else v for k, v in r.items()}
                                        for r in out["files"]],
                              "pooled": {k: v.to_dict() for k, v in p.items()}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
