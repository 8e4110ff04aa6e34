"""Which labels teach: the gain of following a label's best candidate, measured on the true deal.

``python -m gin3_training.improve.teacher --decisions 1000 --json teacher.json`` plays ``net``'s discard decisions
(as a round's states: :func:`.labels.play_states`), keeps its best ``--candidates`` actions, and labels them twice
from ``--shuffles`` copies each (:mod:`.label_kernels`): once on the true deal (the stock dealt afresh, the
opponent's real hand kept), once on deals the acting player cannot tell from it (the opponent's unseen cards dealt
afresh too). Each label's best candidate is then valued against ``net``'s own choice from ``--audit-shuffles``
fresh reshuffles of the true deal, ``gated`` continuing: the points per decision a player gains by following that
label everywhere, with its standard error, beside what each label says ``net``'s own move is worth.

A label on the true deal knows the opponent's hand; a player cannot, so only what the label says on average over
the deals its observation allows can be learnt. Following the information-state label is what a network can
hope to learn (the search teacher's move, by one-step rollouts); following the true-deal label bounds it from
above (it plays with the opponent's cards in view).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from gin3_env.engine.rules import Rules
from gin3_env.files import check_output_file, save_json
from gin3_env.kernels.hands import rules_vector
from gin3_training.improve.label_kernels import OPPONENT, STOCK, value_rows_fast_serial

LABELS = {"true deal": STOCK, "information state": OPPONENT}


def _values(st: dict[str, np.ndarray], mask: np.ndarray, seeds: np.ndarray, K: int, hidden: int,
            cont: tuple[Any, ...]) -> np.ndarray:
    values, se = np.zeros(mask.shape), np.zeros(mask.shape)
    value_rows_fast_serial(st["S"], st["M"], st["deck"], st["pile"], mask, rules_vector(Rules()), seeds, K, *cont,
                           values, se, hidden)
    return values


def measure(decisions: int = 1000, shuffles: int = 64, audit_shuffles: int = 256, candidates: int = 3,
            seed: int = 4600, state_player: str = "net") -> dict[str, Any]:
    """The figures of the module doc."""
    from gin3_training.improve.labels import _batch_player, candidate_mask, continuation_args, play_states

    player, other = _batch_player(state_player), _batch_player("gated")
    cont = continuation_args("gated")
    st = play_states(decisions, seed, player, other, 0.15)
    valued = candidate_mask(player, st["obs"], st["mask"], candidates)
    rng = np.random.default_rng([seed, 3])
    k = np.arange(decisions)
    mine = st["played"].astype(np.int64)
    out: dict[str, Any] = {"decisions": decisions, "shuffles": shuffles, "audit_shuffles": audit_shuffles,
                           "candidates": candidates, "seed": seed, "state_player": state_player, "labels": {}}
    t0 = time.process_time()
    picks, own = {}, {}
    for name, hidden in LABELS.items():
        seeds = rng.integers(0, 2**31 - 1, size=decisions).astype(np.int64)
        values = np.where(valued > 0, _values(st, valued, seeds, shuffles, hidden, cont), -np.inf)
        picks[name] = values.argmax(axis=1)
        own[name] = values[k, mine]
    audit = _values(st, valued, rng.integers(0, 2**31 - 1, size=decisions).astype(np.int64), audit_shuffles,
                    STOCK, cont)
    for name, pick in picks.items():
        gain = audit[k, pick] - audit[k, mine]
        out["labels"][name] = {"net_choice_value": float(own[name].mean()),
                               "switch_share": float(np.mean(pick != mine)), "gain_per_decision": float(gain.mean()),
                               "gain_se": float(gain.std(ddof=1) / np.sqrt(decisions)),
                               "gain_per_switch": float(gain[pick != mine].mean()) if (pick != mine).any() else 0.0}
    out["cpu_seconds"] = time.process_time() - t0
    return out


def format_report(r: dict[str, Any]) -> str:
    lines = [f"{r['decisions']} discard decisions of {r['state_player']}, its best {r['candidates']} candidates, "
             f"labels from {r['shuffles']} copies, audited on the true deal from {r['audit_shuffles']} fresh "
             f"reshuffles ({r['cpu_seconds']:.0f} CPU-s)",
             "following the label of      net's move worth  switches  gain per decision  gain per switch"]
    for name, f in r["labels"].items():
        lines.append(f"{name:<27} {f['net_choice_value']:+16.2f}  {f['switch_share']:8.1%}  "
                     f"{f['gain_per_decision']:+8.3f} +- {f['gain_se']:.3f}"
                     f"  {f['gain_per_switch']:+14.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=1000)
    parser.add_argument("--shuffles", type=int, default=64)
    parser.add_argument("--audit-shuffles", type=int, default=256)
    parser.add_argument("--candidates", type=int, default=3)
    parser.add_argument("--seed", type=int, default=4600)
    parser.add_argument("--state-player", default="net")
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    if args.json:
        check_output_file(args.json, "--json")
    r = measure(args.decisions, args.shuffles, args.audit_shuffles, args.candidates, args.seed, args.state_player)
    print(format_report(r), flush=True)
    if args.json:
        save_json(args.json, r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
