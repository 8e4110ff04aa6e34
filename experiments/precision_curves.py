"""Learning curves of fp32 against bf16: the same config and seeds, trained once per precision.

    python -m experiments.precision_curves --config ppo_quick --seeds 1 2 3 \\
        --json docs/results/precision_curves_quick.json --plot docs/precision_curves_quick.png

Each run is ``gin3 train`` in this process (in a temporary folder), with ``--set KEY=VALUE``
overrides applied to both precisions alike. The JSON holds every run's in-training evaluations
against the heuristic, its final table, its wall time and the exact settings; the plot draws
the evaluation curves of both precisions, one line per seed. Whether bf16 "matches" is read
from these figures: the final means of the two precisions with their 95% intervals, seed by
seed, and the mean over seeds.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.files import save_json


def run_one(config: str, precision: str, seed: int, overrides: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    from gin3_training.ppo.config import load_config
    from gin3_training.ppo.train import train

    cfg = load_config(config, {**overrides, "precision": precision, "seed": seed, "out_dir": str(out_dir),
                               "run_name": f"{precision}_seed{seed}", "progress_bar": False})
    start = time.perf_counter()
    summary = train(cfg)
    wall = time.perf_counter() - start
    history = json.loads((cfg.run_dir / "eval_history.json").read_text())
    return {"precision": precision, "seed": seed, "wall_s": wall, "eval_history": history,
            "final": summary["vs"], "best_step": summary["best_step"]}


def parse_set(items: list[str]) -> dict[str, Any]:
    import yaml

    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--set takes KEY=VALUE, got {item!r}")
        out[key] = yaml.safe_load(value)
    return out


def plot(runs: list[dict[str, Any]], path: Path, title: str) -> None:
    """Left: the in-training evaluations, one line per run; right: each run's final table against
    the heuristic with its 95% interval, the two precisions side by side for each seed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, final) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 2]})
    colours = {"fp32": "tab:blue", "bf16": "tab:orange"}
    styles = ["-", "--", ":", "-."]
    seeds = sorted({run["seed"] for run in runs})
    for run in runs:
        steps = [r["step"] for r in run["eval_history"]]
        means = [r["mean"] for r in run["eval_history"]]
        style = styles[seeds.index(run["seed"]) % len(styles)]
        ax.plot(steps, means, marker="o", markersize=3, color=colours[run["precision"]], linestyle=style,
                label=f"{run['precision']} seed {run['seed']}")
        x = seeds.index(run["seed"]) + (-0.12 if run["precision"] == "fp32" else 0.12)
        s = run["final"]["heuristic"]
        final.errorbar([x], [s["mean"]], yerr=[s["ci95"]], fmt="o", color=colours[run["precision"]], capsize=4)
    ax.set_xlabel("PPO steps")
    ax.set_ylabel("points/hand vs heuristic (in-training deals)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    final.set_xticks(range(len(seeds)), [f"seed {s}" for s in seeds])
    final.set_ylabel("final table vs heuristic (95% CI)")
    final.set_title("best.zip on fresh deals: fp32 (blue), bf16 (orange)", fontsize=10)
    final.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(path)


def _title(config: str, overrides: dict[str, Any]) -> str:
    changed = ", ".join(f"{k}={v}" for k, v in overrides.items())
    return f"{config} config{' (' + changed + ')' if changed else ''}: fp32 vs bf16, in-training evaluations"


def main(argv: list[str] | None = None) -> int:
    parser = OneLineErrorParser(prog="python -m experiments.precision_curves",
                                description="Train the same config and seeds in fp32 and in bf16; write the "
                                "curves (JSON) and their plot.")
    parser.add_argument("--config", default="ppo_quick")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a config override applied to every run (YAML value)")
    parser.add_argument("--json", required=True, type=Path)
    parser.add_argument("--plot", type=Path)
    parser.add_argument("--replot", action="store_true", help="only draw --plot from the runs in --json")
    args = parser.parse_args(argv)
    if args.replot:
        if args.plot is None:
            parser.error("--replot needs --plot")
        saved = json.loads(args.json.read_text())
        plot(saved["runs"], args.plot, _title(saved["config"], saved["overrides"]))
        return 0
    try:
        overrides = parse_set(args.set)
    except ValueError as exc:
        parser.error(str(exc))
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gin3-precision-") as tmp:
        for seed in args.seeds:
            for precision in ("fp32", "bf16"):
                run = run_one(args.config, precision, seed, overrides, Path(tmp))
                runs.append(run)
                final = run["final"]["heuristic"]
                print(f"[curves] {precision} seed {seed}: {run['wall_s']:.0f} s, final vs heuristic "
                      f"{final['mean']:+.2f} ± {final['ci95']:.2f}", flush=True)
                save_json(args.json, {"config": args.config, "overrides": overrides, "seeds": args.seeds,
                                      "runs": runs})
    if args.plot:
        plot(runs, args.plot, _title(args.config, overrides))
    for precision in ("fp32", "bf16"):
        mine = [r for r in runs if r["precision"] == precision]
        mean = sum(r["final"]["heuristic"]["mean"] for r in mine) / len(mine)
        wall = sum(r["wall_s"] for r in mine) / len(mine)
        print(f"[curves] {precision}: mean final vs heuristic over {len(mine)} seed(s) {mean:+.2f}, "
              f"mean wall {wall:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
