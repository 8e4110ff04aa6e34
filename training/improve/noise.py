"""Label noise by ``K``: how many shared reshuffles a candidate's value needs to resolve the gaps between candidates.

``python -m gin3_training.improve.noise --decisions 200 --shuffles 256 --json noise.json`` plays ``net``'s discard
decisions (as a round's states: :func:`.labels.play_states`), keeps ``net``'s best ``--candidates`` actions of
each, and plays each candidate from the same ``--shuffles`` reshuffles of the stock (``gated`` continuing),
keeping every reshuffle's points. For each ``K`` of :data:`KS` it reports, over the decisions:

- ``se_value``: the median standard error of one candidate's value from ``K`` reshuffles;
- ``se_gap``: the median standard error of the gap between the two best candidates (by all the reshuffles),
  paired over the same ``K`` reshuffles (common random numbers: far below ``se_value`` times the square root of 2);
- ``agree``: the share of disjoint blocks of ``K`` reshuffles whose best candidate is the best by the other
  reshuffles (the ones not in the block);
- ``resolved``: the share of decisions whose gap (by all the reshuffles) exceeds twice ``se_gap`` at ``K``;

beside the distribution of that gap (its median, the share under 1 and 2 points).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from gin3_env.engine.actions import NUM_ACTIONS
from gin3_env.engine.rules import Rules
from gin3_env.files import check_output_file, save_json
from gin3_env.kernels import hand_kernels as hk
from gin3_env.kernels.hands import rules_vector
from gin3_env.kernels.jit import njit
from gin3_training.gates.label_kernels import _copy, finish_hand
from gin3_training.improve.label_kernels import reshuffles

KS = (16, 32, 64, 128)


@njit(cache=True)
def shuffle_points(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray,
                   R: np.ndarray, seeds: np.ndarray, K: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
                   cand: np.ndarray, out: np.ndarray) -> None:
    """``out[i, j, r]``: the acting player's points after ``cand[i, j]`` (-1: none) on reshuffle ``r`` of row
    ``i`` (the reshuffles of :func:`.label_kernels.reshuffles`, seeded by ``seeds[i]``)."""
    S2 = np.zeros((1, S.shape[1]), np.int64)
    M2 = np.zeros((1, M.shape[1]), np.int64)
    deck2 = np.zeros((1, deck.shape[1]), np.int8)
    pile2 = np.zeros((1, pile.shape[1]), np.int8)
    mask2 = np.zeros((1, NUM_ACTIONS), np.int8)
    obs = np.zeros((1, hk.OBS_SIZE), np.float32)
    for i in range(S.shape[0]):
        p = S[i, hk.PLAYER]
        shuffled = reshuffles(deck[i], S[i, hk.POS], K, seeds[i])
        for j in range(cand.shape[1]):
            if cand[i, j] < 0:
                continue
            for r in range(K):
                _copy(S, M, deck, pile, mask, i, S2, M2, deck2, pile2, mask2)
                deck2[0, :] = shuffled[r, :]
                out[i, j, r] = finish_hand(S2, M2, deck2, pile2, mask2, R, cand[i, j], p, fp, ip, gates, obs)


def measure(decisions: int = 200, shuffles: int = 256, candidates: int = 3, seed: int = 46,
            ks: tuple[int, ...] = KS) -> dict[str, Any]:
    """The figures of the module doc."""
    from gin3_training.improve.labels import _batch_player, candidate_mask, continuation_args, play_states

    player, other = _batch_player("net"), _batch_player("gated")
    st = play_states(decisions, seed, player, other, 0.15)
    valued = candidate_mask(player, st["obs"], st["mask"], candidates)
    cand = np.full((decisions, candidates), -1, np.int64)
    for i in range(decisions):
        acts = np.flatnonzero(valued[i])
        cand[i, : len(acts)] = acts
    seeds = np.random.default_rng([seed, 2]).integers(0, 2**31 - 1, size=decisions).astype(np.int64)
    pts = np.zeros((decisions, candidates, shuffles))
    t0 = time.process_time()
    shuffle_points(st["S"], st["M"], st["deck"], st["pile"], st["mask"], rules_vector(Rules()), seeds, shuffles,
                   *continuation_args("gated"), cand, pts)
    cpu = time.process_time() - t0
    ok = (cand >= 0).sum(axis=1) >= 2
    pts, n = pts[ok], int(ok.sum())
    full = pts.mean(axis=2)
    full[cand[ok] < 0] = -np.inf
    order = np.argsort(-full, axis=1)
    best, second = order[:, 0], order[:, 1]
    k = np.arange(n)
    gap = full[k, best] - full[k, second]
    diff = pts[k, best] - pts[k, second]  # (n, shuffles): paired per reshuffle
    out: dict[str, Any] = {"decisions": n, "shuffles": shuffles, "candidates": candidates, "seed": seed,
                           "cpu_seconds": cpu, "gap_median": float(np.median(gap)),
                           "gap_under_1": float(np.mean(gap < 1.0)), "gap_under_2": float(np.mean(gap < 2.0)),
                           "by_k": {}}
    valid = cand[ok] >= 0
    for K in ks:
        blocks = shuffles // K
        se_value = pts[:, :, :K].std(axis=2, ddof=1) / np.sqrt(K)
        se_gap = diff[:, :K].std(axis=1, ddof=1) / np.sqrt(K)
        agree = []
        for b in range(blocks):
            sl = slice(b * K, (b + 1) * K)
            inside = np.where(valid, pts[:, :, sl].mean(axis=2), -np.inf)
            rest = np.where(valid, (pts.sum(axis=2) - pts[:, :, sl].sum(axis=2)) / (shuffles - K), -np.inf)
            agree.append(np.mean(inside.argmax(axis=1) == rest.argmax(axis=1)))
        out["by_k"][K] = {"se_value": float(np.median(se_value[valid[:, : se_value.shape[1]]])),
                          "se_gap": float(np.median(se_gap)), "agree": float(np.mean(agree)),
                          "resolved": float(np.mean(gap > 2 * se_gap))}
    return out


def format_report(r: dict[str, Any]) -> str:
    lines = [f"{r['decisions']} of net's discard decisions, net's best {r['candidates']} candidates, "
             f"{r['shuffles']} shared reshuffles ({r['cpu_seconds']:.0f} CPU-s): gap between the two best "
             f"candidates median {r['gap_median']:.2f} points, under 1 point in {r['gap_under_1']:.0%}, "
             f"under 2 in {r['gap_under_2']:.0%}",
             "K     se(value)  se(gap)  best agrees  gap > 2 se(gap)"]
    for K, f in r["by_k"].items():
        lines.append(f"{K:<5} {f['se_value']:9.2f}  {f['se_gap']:7.2f}  {f['agree']:11.0%}  {f['resolved']:15.0%}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--shuffles", type=int, default=256)
    parser.add_argument("--candidates", type=int, default=3)
    parser.add_argument("--seed", type=int, default=46)
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    r = measure(args.decisions, args.shuffles, args.candidates, args.seed)
    print(format_report(r), flush=True)
    if args.json:
        check_output_file(args.json, "--json")
        save_json(args.json, r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
