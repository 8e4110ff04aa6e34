"""Strength of ``SearchPolicy`` against the heuristic, and its time per decision, for several budgets.

    python -m experiments.search_strength --deals 200 --samples 8 16 32 --out docs/results/search_strength.json
    python -m experiments.search_strength --plot docs/results/search_strength.json docs/search_strength.png
    python -m experiments.search_strength --plot-compare docs/results/search_opponent_model_vs_trained_s37001.json \
        docs/search_opponent_model_vs_trained.png

Each budget is a fixed number of sampled states per searched decision (``time_budget=None``, so
the figures do not depend on the machine's speed and the run is deterministic for its seed);
``--belief uniform`` searches with the uniform belief instead of the particles. For each budget
it runs ``evaluate_hands(search, heuristic, deals, seed, seat_baseline=True)`` (what
``gin3 evaluate search heuristic --seat-baseline`` runs) and records the pair mean, the two seat
differences against the heuristic's own play, and the median and mean wall time of a searched
decision (on this machine, at the time: a shared machine makes them noisy). Results are
appended to the JSON file as they come (atomically), so a long run can be stopped.

    python -m experiments.search_strength --deals 100 --seed 47 --compare "" belief=mcmc \
        --out docs/results/search_mcmc_paired_s47.json

``--compare A B [C ...]`` plays two (or more) searches (their options as in ``search:...``, the rest default) on the
same deals, each against the heuristic in both seats, with the heuristic's own play on each deal
(what ``gin3 evaluate search:A heuristic --seat-baseline`` and ``search:B`` run, deal by deal), and
reports each one's figures and B minus A deal by deal: the paired difference, whose interval is
far narrower than either figure's because the deals' luck cancels; with more searches, every later
one minus every earlier one (``c_minus_a``, ``c_minus_b``, ...). ``--opponent trained`` plays
both against the ``gated`` player instead, with its own play of each seat as the baseline.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np


def run(deals: int, samples: list[int], belief: str, seed: int, out: Path | None,
        options: str = "") -> list[dict[str, Any]]:
    from gin3_env.evaluation.hands import evaluate_hands
    from gin3_env.files import save_json
    from gin3_env.policies import HeuristicPolicy
    from gin3_env.policies.search import SearchPolicy, parse_options

    rows: list[dict[str, Any]] = []
    if out is not None and out.exists():
        rows = json.loads(out.read_text()).get("runs", [])
    for n in samples:
        opts: dict[str, Any] = {"samples": n, "min_samples": min(8, n), "time_budget": None}
        if belief == "uniform":
            opts["belief"] = None
        opts.update(parse_options(options))
        policy = SearchPolicy(seed=seed, **opts)
        report = evaluate_hands(policy, HeuristicPolicy(), deals, seed=seed, seat_baseline=True)
        secs = np.asarray(policy.decision_seconds)
        row = {
            "samples": n,
            "belief": belief,
            "options": options,
            "deals": deals,
            "seed": seed,
            "median_ms_per_searched_decision": float(np.median(secs) * 1e3),
            "mean_ms_per_searched_decision": float(secs.mean() * 1e3),
            "searched_decisions": len(secs),
            "report": report.to_dict(),
        }
        rows.append(row)
        d = report.to_dict()
        print(
            f"samples {n:>4} belief {belief:<9} {options} pair {d['points_per_hand']['mean']:+.2f} "
            f"[{d['points_per_hand']['low']:+.2f}, {d['points_per_hand']['high']:+.2f}]  "
            f"team-minus {d['seat_adjusted']['team']['mean']:+.2f}  "
            f"box-minus {d['seat_adjusted']['box']['mean']:+.2f}  "
            f"median {row['median_ms_per_searched_decision']:.0f} ms",
            flush=True,
        )
        if out is not None:
            save_json(out, {"kind": "search_strength", "runs": rows})
    return rows


def compare(deals: int, seed: int, options: tuple[str, ...], out: Path | None,
            opponent: str = "heuristic", save_every: int = 25) -> dict[str, Any]:
    """Two or more searches on the same deals, and each one minus each earlier one deal by deal (see the
    module doc). The JSON is written every ``save_every`` deals, so a stopped run keeps its deals."""
    import os
    import string
    import time

    from gin3_env.engine.hand import BOX, TEAM
    from gin3_env.engine.rules import Rules
    from gin3_env.evaluation.hands import play_deal
    from gin3_env.evaluation.stats import mean_ci
    from gin3_env.files import save_json
    from gin3_env.policies import load_policy
    from gin3_env.policies.search import SearchPolicy, parse_options

    if not 2 <= len(options) <= 26:
        raise ValueError("--compare takes 2 to 26 searches' options")
    rules = Rules()
    opp = load_policy(opponent)  # the opponent, and the baseline of each seat (itself on both sides)
    searches = [SearchPolicy(seed=seed, rules=rules, **parse_options(o)) for o in options]
    names = string.ascii_lowercase[: len(options)]
    k = len(options)
    rng = np.random.default_rng(seed)
    team: list[list[float]] = [[] for _ in range(k)]
    box: list[list[float]] = [[] for _ in range(k)]
    base: list[float] = []
    spent = [0.0] * k
    start = time.perf_counter()
    command = "python -m experiments.search_strength " + " ".join(
        repr(a) if not a or " " in a else a for a in sys.argv[1:])

    def figures(t: list[float], b: list[float]) -> dict[str, list[float]]:
        return {"pair": [(x + y) / 2 for x, y in zip(t, b, strict=True)],
                "team_minus_heuristic": [x - z for x, z in zip(t, base, strict=True)],
                "box_minus_heuristic": [y + z for y, z in zip(b, base, strict=True)]}

    def summary(done: int) -> dict[str, Any]:
        per = [figures(team[i], box[i]) for i in range(k)]
        row: dict[str, Any] = {
            "kind": "search_paired", "deals": done, "deals_asked": deals, "seed": seed, "options": list(options),
            "opponent": opponent, "command": command,
            "baseline": "team/box_minus_heuristic: minus the opponent's own play of that seat on the deal "
                        "(the opponent on both sides), whatever --opponent is",
            "evaluate_equivalent": [f"gin3 evaluate \"search{':' + o if o else ''}\" {opponent} --hands {done} "
                                    f"--matches 0 --seed {seed} --seat-baseline" for o in options],
            "seconds": time.perf_counter() - start, "load_average": list(os.getloadavg())}
        for i, name in enumerate(names):
            secs = np.asarray(searches[i].decision_seconds)
            row[name] = {key: mean_ci(v).to_dict() for key, v in per[i].items()}
            row[name].update({
                "options": options[i],
                "median_ms_per_searched_decision": float(np.median(secs) * 1e3),
                "mean_ms_per_searched_decision": float(secs.mean() * 1e3),
                "p90_ms_per_searched_decision": float(np.percentile(secs, 90) * 1e3),
                "share_of_searched_decisions_over_100_ms": float((secs > 0.1).mean()),
                "searched_decisions": len(secs),
                "overrides": searches[i].overrides,  # searched decisions where it left its default move
                "seconds_both_seats": spent[i],
                "deals_per_minute": done / spent[i] * 60 if spent[i] else None,
            })
        for i in range(k):
            for j in range(i + 1, k):
                row[f"{names[j]}_minus_{names[i]}"] = {
                    key: mean_ci([y - x for x, y in zip(per[i][key], per[j][key], strict=True)]).to_dict()
                    for key in per[i]}
        row["per_deal"] = dict(zip(names, per, strict=True))
        return row

    row: dict[str, Any] = {}
    for d in range(deals):  # the order of evaluate_hands: A as the team, A as the box, then B, ...
        deck = [int(c) for c in rng.permutation(52)]
        for i, search in enumerate(searches):
            t0 = time.perf_counter()
            first, second = play_deal(search, opp, deck, rules), play_deal(opp, search, deck, rules)
            spent[i] += time.perf_counter() - t0
            assert first.result is not None and second.result is not None
            team[i].append(first.result.returns[TEAM])
            box[i].append(second.result.returns[BOX])
        base_hand = play_deal(opp, opp, deck, rules)
        assert base_hand.result is not None
        base.append(base_hand.result.returns[TEAM])
        if out is not None and ((d + 1) % save_every == 0 or d + 1 == deals):
            row = summary(d + 1)
            save_json(out, row)
            print(f"{d + 1} deals, {row['seconds']:.0f} s", flush=True)
    row = summary(deals)
    for name in row:
        if name in names or "_minus_" in name:
            cells = "  ".join(f"{key} {v['mean']:+.2f} [{v['low']:+.2f}, {v['high']:+.2f}]"
                              for key, v in row[name].items() if isinstance(v, dict))
            extra = (f"  median {row[name]['median_ms_per_searched_decision']:.0f} ms"
                     if name in names else "")
            print(f"{name}: {cells}{extra}", flush=True)
    if out is not None:
        save_json(out, row)
    return row


def plot(src: Path, dst: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = json.loads(src.read_text())["runs"]
    fig, ax = plt.subplots(figsize=(6, 4))
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["belief"], r.get("options", "")), []).append(r)
    markers = "osD^v<>"
    for j, ((belief, options), sel) in enumerate(sorted(groups.items())):
        sel.sort(key=lambda r: (r["samples"], r["seed"]))
        x = [r["median_ms_per_searched_decision"] for r in sel]
        y = [r["report"]["points_per_hand"]["mean"] for r in sel]
        err = [r["report"]["points_per_hand"]["mean"] - r["report"]["points_per_hand"]["low"] for r in sel]
        ax.errorbar(x, y, yerr=err, marker=markers[j % len(markers)], capsize=3, ls="none",
                    label=f"{belief} {options}")
        for r, xi, yi in zip(sel, x, y, strict=True):
            label = f"{r['samples']}" + ("" if r["seed"] == 2026 else f" (seed {r['seed']})")
            ax.annotate(label, (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.axhline(0, color="grey", lw=0.8)
    ax.axhline(1.5, color="green", lw=0.8, ls="--", label="target +1.5")
    ax.set_xscale("log")
    ax.set_xlabel("median ms per searched decision (shared 2-core machine)")
    ax.set_ylabel("pair mean vs heuristic (points/hand, 95% CI)")
    ax.set_title("SearchPolicy vs HeuristicPolicy (labels: sampled states)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


def plot_compare(src: Path, dst: Path) -> None:
    """A ``--compare`` JSON as a picture: each search's pair mean (95% interval) against its median wall ms."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    row = json.loads(src.read_text())
    fig, ax = plt.subplots(figsize=(6, 4))
    for name in "abcdefghijklmnopqrstuvwxyz":
        if name not in row:
            break
        r = row[name]
        pair = r["pair"]
        x = r["median_ms_per_searched_decision"]
        ax.errorbar([x], [pair["mean"]], yerr=[[pair["mean"] - pair["low"]], [pair["high"] - pair["mean"]]],
                    marker="o", capsize=3, ls="none", label=r["options"] or "default")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("median ms per searched decision (wall, shared machine)")
    ax.set_ylabel(f"pair mean vs {row['opponent']} (points/hand, 95% CI)")
    ax.set_title(f"search vs {row['opponent']}: {row['deals']} deals, seed {row['seed']}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--samples", type=int, nargs="+", default=[8, 16, 32])
    p.add_argument("--belief", choices=("particles", "uniform"), default="particles")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--out", type=Path)
    p.add_argument("--options", default="", help="more SearchPolicy options, as in 'search:...' (e.g. margin_z=0.5)")
    p.add_argument("--plot", nargs=2, type=Path, metavar=("JSON", "PNG"))
    p.add_argument("--compare", nargs="+", metavar="A",
                   help="two or more searches' options on the same deals (B minus A, C minus A, ...)")
    p.add_argument("--opponent", default="heuristic",
                   help="with --compare: the opponent and seat baseline (a policy spec, e.g. trained)")
    p.add_argument("--plot-compare", nargs=2, type=Path, metavar=("JSON", "PNG"),
                   help="draw a --compare JSON: each search's pair mean against its time per decision")
    args = p.parse_args(argv)
    if args.plot_compare:
        plot_compare(*args.plot_compare)
        return 0
    if args.plot:
        plot(*args.plot)
        return 0
    if args.compare:
        compare(args.deals, args.seed, tuple(args.compare), args.out, args.opponent)
        return 0
    run(args.deals, args.samples, args.belief, args.seed, args.out, args.options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
