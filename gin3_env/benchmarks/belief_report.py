"""Log-loss and calibration of the particle belief on held-out heuristic-vs-heuristic hands.

    python -m gin3_env.benchmarks.belief_report --deals 200 --seed 2026 --json results/belief.json \
        --plot docs/belief_calibration.png

Runs :func:`gin3_env.evaluation.belief.evaluate_belief` (both seats of every hand, every
decision, every unseen card) with the default :class:`~gin3_env.policies.belief.BeliefConfig`
(or ``--particles``/``--tau``), prints the log-loss beside the uniform belief's on the same
points, writes the JSON and a calibration plot (predicted chance against observed frequency).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--particles", type=int)
    p.add_argument("--tau", type=float)
    p.add_argument("--json", type=Path)
    p.add_argument("--plot", type=Path)
    args = p.parse_args(argv)

    from gin3_env.evaluation.belief import evaluate_belief
    from gin3_env.files import save_json
    from gin3_env.policies.belief import BeliefConfig

    config = BeliefConfig()
    if args.particles:
        config = replace(config, n_particles=args.particles)
    if args.tau:
        config = replace(config, tau=args.tau)
    report = evaluate_belief(args.deals, seed=args.seed, config=config)
    d = report.to_dict()
    print(
        f"{args.deals} deals, {d['decision_points']} decision points, {d['cards_scored']} cards: "
        f"log-loss {d['log_loss']:.4f} (uniform {d['uniform_log_loss']:.4f}); "
        f"largest calibration gap {d['calibration_error']:.3f}; {d['seconds']:.0f} s"
    )
    if args.json:
        save_json(args.json, d)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        cal = d["calibration"]
        keep = [i for i, n in enumerate(cal["count"]) if n > 0]
        fig, ax = plt.subplots(figsize=(4.5, 4.5))
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, label="perfect")
        ax.plot([cal["mean_p"][i] for i in keep], [cal["frequency"][i] for i in keep], "o-", label="particle belief")
        for i in keep:
            ax.annotate(str(cal["count"][i]), (cal["mean_p"][i], cal["frequency"][i]), fontsize=6,
                        textcoords="offset points", xytext=(3, -8))
        ax.set_xlabel("predicted chance the opponent holds the card")
        ax.set_ylabel("observed frequency")
        ax.set_title(f"log-loss {d['log_loss']:.3f} (uniform {d['uniform_log_loss']:.3f})", fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
