"""Log-loss and calibration of the particle beliefs on held-out heuristic-vs-heuristic hands.

    python -m experiments.belief_report --deals 200 --seed 2026 --json docs/results/belief.json \
        --plot docs/belief_calibration.png
    python -m experiments.belief_report --deals 200 --seed 2026 --belief particles mcmc \
        --json docs/results/belief_mcmc.json --plot docs/belief_calibration_mcmc.png

Runs :func:`evaluate_belief` (below) (both seats of every hand, every
decision, every unseen card) for each named belief of ``--belief`` (those a search spec can
name: ``particles``, the default :class:`~gin3_env.policies.belief.BeliefConfig`, refreshed from
the card marginals; ``joint``; ``mcmc``, moved by whole-hand swaps on the opponent's whole
history), all on the same deals (``--particles``/``--tau`` override each), prints each log-loss
beside the uniform belief's on the same points and the CPU time per decision, writes the JSON
(one belief: its report; several: ``{"beliefs": {name: report}}``) and a calibration plot
(predicted chance against observed frequency).

``--deadwood N`` also measures how strong the sampled hands are: at each draw decision from the
fifth turn on, over ``N`` further heuristic-vs-heuristic deals, the mean deadwood of 16 hands drawn
from the belief (the opponent's known cards plus a particle's) against the deadwood of its true
hand. A belief that breaks the opponent's melds apart samples hands with too much deadwood.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from gin3_env.engine.hand import HandState
from gin3_env.engine.rules import Rules
from gin3_env.observation.decoding import decode
from gin3_env.observation.encoding import action_mask, encode
from gin3_env.policies.belief import BeliefConfig, HandTracker
from gin3_env.policies.heuristic import HeuristicPolicy

BINS = 10


@dataclass
class BeliefReport:
    n_deals: int
    seed: int
    points: int  # decision points scored
    cards: int  # (point, unseen card) pairs scored
    log_loss: float
    uniform_log_loss: float
    bin_mean_p: list[float]
    bin_freq: list[float]
    bin_count: list[int]
    config: dict[str, Any]
    seconds: float

    @property
    def calibration_error(self) -> float:
        """Largest |predicted - observed| over bins holding at least 200 cards."""
        gaps = [abs(p - f) for p, f, n in zip(self.bin_mean_p, self.bin_freq, self.bin_count, strict=True) if n >= 200]
        return max(gaps) if gaps else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "belief",
            "n_deals": self.n_deals,
            "seed": self.seed,
            "decision_points": self.points,
            "cards_scored": self.cards,
            "log_loss": self.log_loss,
            "uniform_log_loss": self.uniform_log_loss,
            "calibration": {"mean_p": self.bin_mean_p, "frequency": self.bin_freq, "count": self.bin_count},
            "calibration_error": self.calibration_error,
            "config": self.config,
            "seconds": self.seconds,
        }


def _bce(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def evaluate_belief(n_deals: int, seed: int = 0, config: BeliefConfig | None = None,
                    rules: Rules | None = None) -> BeliefReport:
    """Score the particle belief on ``n_deals`` heuristic-vs-heuristic hands (see the module doc)."""
    if n_deals < 1:
        raise ValueError(f"n_deals must be >= 1, got {n_deals}")
    config = config or BeliefConfig()
    rules = rules or Rules()
    rng = np.random.default_rng(seed)
    policy = HeuristicPolicy()
    losses: list[float] = []
    uniform: list[float] = []
    preds: list[np.ndarray] = []
    truths: list[np.ndarray] = []
    start = time.perf_counter()
    for _ in range(n_deals):
        deck = [int(c) for c in rng.permutation(52)]
        state = HandState.deal(rules, deck=deck)
        trackers = [HandTracker(rules, config, np.random.default_rng(rng.integers(1 << 31))) for _ in range(2)]
        while not state.is_over:
            p = state.player
            obs = encode(state.view(p))
            mask = action_mask(state.view(p))
            tracker = trackers[p]
            view = tracker.observe(decode(obs, rules))
            unseen = np.array([c for c in range(52) if view.unseen >> c & 1])
            hidden = state.hands[1 - p] & ~state.known[1 - p]
            y = np.array([hidden >> int(c) & 1 for c in unseen], dtype=float)
            prob = tracker.belief.card_probabilities()[unseen]
            base = np.full(len(unseen), view.opponent_hidden / len(unseen))
            losses.append(float(_bce(prob, y).mean()))
            uniform.append(float(_bce(base, y).mean()))
            preds.append(prob)
            truths.append(y)
            action = policy.act({"observation": obs, "action_mask": mask})
            tracker.record(action)
            state.apply(action)
    pr = np.concatenate(preds)
    tr = np.concatenate(truths)
    idx = np.minimum((pr * BINS).astype(int), BINS - 1)
    count = np.bincount(idx, minlength=BINS)
    mean_p = np.bincount(idx, weights=pr, minlength=BINS) / np.maximum(count, 1)
    freq = np.bincount(idx, weights=tr, minlength=BINS) / np.maximum(count, 1)
    cfg = {"n_particles": config.n_particles, "tau": config.tau, "eps_take": config.eps_take,
           "eps_knock": config.eps_knock}
    return BeliefReport(
        n_deals=n_deals, seed=seed, points=len(losses), cards=len(pr), log_loss=float(np.mean(losses)),
        uniform_log_loss=float(np.mean(uniform)), bin_mean_p=[float(x) for x in mean_p],
        bin_freq=[float(x) for x in freq], bin_count=[int(x) for x in count], config=cfg,
        seconds=time.perf_counter() - start,
    )


def sampled_deadwood(n_deals: int, seed: int, config: BeliefConfig) -> dict[str, float]:
    """Mean deadwood of the belief's sampled opponent hands and of the true hand (see the module doc)."""
    import numpy as np

    from gin3_env.engine.hand import HandState
    from gin3_env.engine.melds import deadwood_of_mask
    from gin3_env.engine.phases import Phase
    from gin3_env.engine.rules import Rules
    from gin3_env.observation.decoding import decode
    from gin3_env.observation.encoding import action_mask, encode
    from gin3_env.policies import HeuristicPolicy
    from gin3_env.policies.belief import HandTracker

    rules = Rules()
    policy = HeuristicPolicy()
    rng = np.random.default_rng(seed)
    true_dw: list[float] = []
    gap: list[float] = []
    for _ in range(n_deals):
        state = HandState.deal(rules, deck=[int(c) for c in rng.permutation(52)])
        trackers = [HandTracker(rules, config, np.random.default_rng(rng.integers(1 << 31))) for _ in range(2)]
        while not state.is_over:
            p = state.player
            obs, mask = encode(state.view(p)), action_mask(state.view(p))
            view = trackers[p].observe(decode(obs, rules))
            if view.phase is Phase.DRAW and view.turns >= 4:
                truth = deadwood_of_mask(state.hands[1 - p])
                hands = trackers[p].belief.sample_hands(16)
                sampled = float(np.mean([deadwood_of_mask(int(h) | view.opponent_known) for h in hands]))
                true_dw.append(truth)
                gap.append(sampled - truth)
            action = policy.act({"observation": obs, "action_mask": mask})
            trackers[p].record(action)
            state.apply(action)
    g = np.asarray(gap)
    truth_mean = float(np.mean(true_dw))
    return {"decisions": len(g), "true_deadwood": truth_mean, "sampled_deadwood": truth_mean + float(g.mean()),
            "gap": float(g.mean()), "gap_ci95": float(1.959964 * g.std(ddof=1) / np.sqrt(len(g)))}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--particles", type=int)
    p.add_argument("--tau", type=float)
    p.add_argument("--belief", nargs="+", default=["particles"], help="named beliefs to score, side by side")
    p.add_argument("--deadwood", type=int, default=0, metavar="N", help="also the sampled hands' deadwood, N deals")
    p.add_argument("--json", type=Path)
    p.add_argument("--plot", type=Path)
    args = p.parse_args(argv)

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
        if args.deadwood:
            d["sampled_deadwood"] = sampled_deadwood(args.deadwood, args.seed, config)
            dw = d["sampled_deadwood"]
            print(f"{name}: sampled opponent hands' deadwood {dw['sampled_deadwood']:.2f} against the true "
                  f"{dw['true_deadwood']:.2f} (gap {dw['gap']:+.2f} +- {dw['gap_ci95']:.2f}, "
                  f"{dw['decisions']} decisions)")
        reports[name] = d
        print(
            f"{name}: {args.deals} deals, {d['decision_points']} decision points, {d['cards_scored']} cards: "
            f"log-loss {d['log_loss']:.4f} (uniform {d['uniform_log_loss']:.4f}); "
            f"largest calibration gap {d['calibration_error']:.3f}; {d['seconds']:.0f} s, "
            f"{d['cpu_ms_per_decision']:.1f} ms CPU per decision (with the heuristic's play)",
            flush=True,
        )
    if args.json:
        command = "python -m experiments.belief_report " + " ".join(argv if argv is not None else sys.argv[1:])
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
