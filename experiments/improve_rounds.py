"""The improvement's curve: each improved player's pair mean against ``net`` by the labels its head was fitted on.

``python -m experiments.improve_rounds --point 100000 ridge docs/results/improved_r0_vs_net_seed64001.json --point
200000 ridge ... --plot docs/improve_rounds.png`` reads the ``gin3 evaluate --json`` results given (one per
``--point LABELS HEAD JSON``: the labelled decisions, the head's kind, the result file), prints one line each and
draws the pair means with their 95% intervals, one line per kind of head, beside ``net`` itself at zero.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gin3_env.files import check_output_file, read_json


def read_point(labels: str, head: str, path: str) -> dict[str, Any]:
    """One improved player's figures from its ``gin3 evaluate --json`` file."""
    if not labels.isdigit():
        raise ValueError(f"--point LABELS must be a count of labelled decisions, got {labels!r}")
    result = read_json(Path(path), "--point")
    try:
        hands = result["reports"]["hands"]
        f = hands["points_per_hand"]
        point = {"labels": int(labels), "head": head, "player": str(hands["policy_a"]),
                 "opponent": str(hands["policy_b"]), "deals": int(hands["n_deals"]), "seed": int(hands["seed"]),
                 "mean": float(f["mean"]), "low": float(f["low"]), "high": float(f["high"])}
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path} is not a gin3 evaluate result with hands ({exc})") from None
    if point["opponent"] != "net" and Path(point["opponent"]).name != "net.npz":
        raise ValueError(f"{path} plays {point['opponent']!r}, not net: the curve is against net (the distilled "
                         "network: net before it shipped with a head, or its file, named net.npz)")
    return point


def plot(points: list[dict[str, Any]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ax.axhline(0.0, color="grey", lw=1, label="net")
    for k, head in enumerate(sorted({p["head"] for p in points})):
        mine = sorted((p for p in points if p["head"] == head), key=lambda p: p["labels"])
        x = [p["labels"] / 1000 + 3 * k for p in mine]  # heads side by side at each count
        y = [p["mean"] for p in mine]
        err = [[p["mean"] - p["low"] for p in mine], [p["high"] - p["mean"] for p in mine]]
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=f"{head} head")
    ax.set_xlabel("labelled decisions (thousands)")
    ax.set_ylabel("points per hand vs net (95% CI)")
    ax.set_title("improved players against net, fresh duplicate deals")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--point", nargs=3, action="append", required=True, metavar=("LABELS", "HEAD", "JSON"),
                        help="labelled decisions, the head's kind, a gin3 evaluate --json result against net")
    parser.add_argument("--plot", default="", help="write the curve here (.png)")
    args = parser.parse_args(argv)
    if args.plot:
        check_output_file(args.plot, "--plot", (".png",))
    try:
        points = [read_point(*p) for p in args.point]
    except ValueError as exc:
        parser.error(str(exc))
    for p in points:
        print(f"{p['labels']:>8,} labels, {p['head']:<6} head: {p['mean']:+.3f} [{p['low']:+.3f}, {p['high']:+.3f}] "
              f"vs net over {p['deals']:,} deals (seed {p['seed']}; {p['player']})")
    if args.plot:
        plot(points, args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
