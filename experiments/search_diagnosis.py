"""Where ``SearchPolicy`` leaves the heuristic, is it right? Judged on the true state.

    python -m experiments.search_diagnosis --deals 40 --samples 32 --margin-z 1 --belief particles

Plays heuristic-vs-heuristic hands (seed 99). At every decision of either seat a
``SearchPolicy`` following that seat (its tracker sees the seat's observations and the
heuristic's moves, which are the moves played) picks its move; where it differs from the
heuristic's, both moves are valued on the *true* state: the real opponent hand, 48 shuffles of
the real stock (the same shuffles for both moves), heuristic playouts. The difference is the
one-step gain of the search's choice. ``--belief oracle`` gives the search the true opponent
hand instead of its belief (an upper bound: what the search would do with a perfect belief).
Prints the summed gains per hand for each seat and, by kind of change (e.g. ``knock>discard``:
the heuristic knocked, the search did not), the count and mean gain.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from typing import Any

import numpy as np


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--samples", type=int, default=32)
    p.add_argument("--margin-z", type=float, default=1.0)
    p.add_argument("--belief", choices=("particles", "uniform", "oracle"), default="particles")
    p.add_argument("--search-draws", action="store_true")
    args = p.parse_args(argv)

    from gin3_env.engine.actions import KNOCK_BASE
    from gin3_env.engine.hand import HandState
    from gin3_env.kernels.rollout import Rollouts
    from gin3_env.observation.encoding import action_mask, encode
    from gin3_env.policies import HeuristicPolicy
    from gin3_env.policies.search import SearchPolicy

    heuristic, roll = HeuristicPolicy(), Rollouts()
    opts: dict[str, Any] = {"seed": 1, "samples": args.samples, "time_budget": None, "margin_z": args.margin_z,
                            "search_draws": args.search_draws}
    if args.belief == "uniform":
        opts["belief"] = None
    search = SearchPolicy(**opts)
    rng, qrng = np.random.default_rng(99), np.random.default_rng(5)
    current: dict[str, HandState] = {}

    def oracle(n: int) -> list[HandState]:
        out = []
        for _ in range(n):
            s = current["state"].clone()
            s.deck, s.actions = (), []
            search.rng.shuffle(s.stock)
            out.append(s)
        return out

    def q_true(state: HandState, action: int, n: int = 48) -> float:
        states = []
        for _ in range(n):
            s = state.clone()
            qrng.shuffle(s.stock)
            states.append(s)
        v = roll.run(states, [action] * n).mean()
        return float(v if state.player == 0 else -v)

    def kind(state: HandState, action: int) -> str:
        if state.phase.name.startswith("OFFER"):
            return "offer"
        if state.phase.name == "DRAW":
            return "draw"
        return "knock" if action >= KNOCK_BASE else "discard"

    gains: dict[str, list[float]] = defaultdict(list)
    per_seat = [0.0, 0.0]
    decisions = 0
    for _ in range(args.deals):
        state = HandState.deal(deck=[int(c) for c in rng.permutation(52)])
        while not state.is_over:
            player = state.player
            obs = {"observation": encode(state.view(player)), "action_mask": action_mask(state.view(player))}
            a_h = heuristic.act(obs)
            current["state"] = state
            tracker = search.tracker(player)
            if args.belief == "oracle":
                tracker.sample_states = oracle  # type: ignore[method-assign]
            own_known = tracker.own_known
            a_s = search.act(obs)
            tracker.own_known = own_known  # the heuristic's move is the one played: record that instead
            tracker.record(a_h)
            decisions += 1
            if a_s != a_h:
                saved = qrng.bit_generator.state
                g_s = q_true(state, a_s)
                qrng.bit_generator.state = saved
                g_h = q_true(state, a_h)
                gains[f"{kind(state, a_h)}>{kind(state, a_s)}"].append(g_s - g_h)
                per_seat[player] += g_s - g_h
            state.apply(a_h)
    print(
        f"belief {args.belief}, samples {args.samples}, margin_z {args.margin_z}: {args.deals} deals, "
        f"{decisions} decisions; summed one-step gain per hand: team {per_seat[0] / args.deals:+.3f}, "
        f"box {per_seat[1] / args.deals:+.3f}"
    )
    for key, values in sorted(gains.items()):
        print(f"  {key:<18} n {len(values):4d}  mean gain {np.mean(values):+.2f}  "
              f"per hand {np.sum(values) / args.deals:+.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
