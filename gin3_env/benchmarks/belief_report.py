"""Log-loss and calibration of the particle beliefs on held-out heuristic-vs-heuristic hands.

    python -m gin3_env.benchmarks.belief_report --deals 200 --seed 2026 --json results/belief.json \
        --plot docs/belief_calibration.png
    python -m gin3_env.benchmarks.belief_report --deals 200 --seed 2026 --belief particles mcmc \
        --json results/belief_mcmc.json --plot docs/belief_calibration_mcmc.png

Runs :func:`gin3_env.evaluation.belief.evaluate_belief` (both seats of every hand, every
decision, every unseen card) for each named belief of ``--belief`` (those a search spec can
name: ``particles``, the default :class:`~gin3_env.policies.belief.BeliefConfig`, refreshed from
the card marginals; ``joint``; ``mcmc``, moved by whole-hand swaps on the opponent's whole
history), all on the same deals (``--particles``/``--tau`` override each), prints each log-loss
beside the uniform belief's on the same points and the CPU time per decision, writes the JSON
(one belief: its report; several: ``{"beliefs": {name: report}}``) and a calibration plot
(predicted chance against observed frequency).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--particles", type=int)
    p.add_argument("--tau", type=float)
    p.add_argument("--belief", nargs="+", default=["particles"], help="named beliefs to score, side by side")
    p.add_argument("--json", type=Path)
    p.add_argument("--plot", type=Path)
    args = p.parse_args(argv)

    from gin3_env.evaluation.belief import evaluate_belief
    from gin3_env.files import save_json
    from gin3_env.policies.search import BELIEFS

    reports: dict[str, dict] = {}
    for name in args.belief:
        config = BELIEFS.get(name)
        if config is None:
            choices = sorted(k for k, v in BELIEFS.items() if v is not None)
            raise SystemExit(f"--belief {name!r}: choose among {choices}")
        if args.particles:
            config = replace(config, n_particles=args.particles)
        if args.tau:
            config = replace(config, tau=args.tau)
        cpu = time.process_time()
        report = evaluate_belief(args.deals, seed=args.seed, config=config)
        d = report.to_dict()
        d["config"].update(refresh=config.refresh, jitter=config.jitter, mcmc_steps=config.mcmc_steps,
                           mcmc_pair=config.mcmc_pair)
        d["belief"] = name
        d["cpu_ms_per_decision"] = 1e3 * (time.process_time() - cpu) / d["decision_points"]
        reports[name] = d
        print(
            f"{name}: {args.deals} deals, {d['decision_points']} decision points, {d['cards_scored']} cards: "
            f"log-loss {d['log_loss']:.4f} (uniform {d['uniform_log_loss']:.4f}); "
            f"largest calibration gap {d['calibration_error']:.3f}; {d['seconds']:.0f} s, "
            f"{d['cpu_ms_per_decision']:.1f} ms CPU per decision (with the heuristic's play)",
            flush=True,
        )
    if args.json:
        command = "python -m gin3_env.benchmarks.belief_report " + " ".join(argv if argv is not None else sys.argv[1:])
        if len(reports) == 1:
            save_json(args.json, {**next(iter(reports.values())), "command": command})
        else:
            save_json(args.json, {"kind": "belief_comparison", "command": command, "beliefs": reports})
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(4.5, 4.5))
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, label="perfect")
        for name, d in reports.items():
            cal = d["calibration"]
            keep = [i for i, n in enumerate(cal["count"]) if n > 0]
            ax.plot([cal["mean_p"][i] for i in keep], [cal["frequency"][i] for i in keep], "o-",
                    label=f"{name} (log-loss {d['log_loss']:.3f})")
            for i in keep:
                ax.annotate(str(cal["count"][i]), (cal["mean_p"][i], cal["frequency"][i]), fontsize=6,
                            textcoords="offset points", xytext=(3, -8))
        ax.set_xlabel("predicted chance the opponent holds the card")
        ax.set_ylabel("observed frequency")
        uniform = next(iter(reports.values()))["uniform_log_loss"]
        ax.set_title(f"{args.deals} deals, seed {args.seed} (uniform log-loss {uniform:.3f})", fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
