"""Speed of the meld engine against its peers, on the same random hands.

Operations (one call = one hand):

- ``knock_deadwoods``: an 11-card hand, the deadwood left after each of the 11
  discards. Ours: ``knock_deadwoods(hand11)``. OpenSpiel: ``GinRummyUtils.min_deadwood``
  on each of the 11 ten-card hands (its exact equivalent). RLCard: its 10-card
  deadwood on each of the 11.
- ``deadwood_10``: a 10-card hand's minimum deadwood. Ours: ``deadwood(hand10)``.
  OpenSpiel: ``min_deadwood(hand10)``. RLCard: ``melding.get_best_meld_clusters``
  then ``utils.get_deadwood_count`` (the idiom of its own game code).
- ``best_discard_11``: the best discard only. Ours: ``min(knock_deadwoods(h).values())``.
  OpenSpiel: ``min_deadwood(hand11)`` (with 11 cards it returns the best discard).

All answers are checked against ours (mismatches are reported). Cards are given
to each library in its own form, converted before timing; OpenSpiel orders its
suits differently (spades first), and deadwood does not depend on suit names,
so our card ints are passed as they are. Times are CPU microseconds of this
process per call (steadier than wall time on a shared machine), the best pass of
``repeats`` (interleaved); ``ratio`` is peer time / our time (above
1: ours is faster). A peer that is not installed is reported as skipped.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gin3_env.engine.melds import deadwood, deadwood_of_mask, knock_deadwoods

SEED = 20240607


def _pass_us(fn: Callable[[Any], Any], items: Sequence[Any]) -> float:
    """CPU microseconds (of this process) per item for one pass over ``items``."""
    start = time.process_time()
    for item in items:
        fn(item)
    return (time.process_time() - start) / len(items) * 1e6


def _best_times_us(tasks: dict[str, tuple[Callable[[Any], Any], Sequence[Any]]], repeats: int) -> dict[str, float]:
    """Best pass of each task over ``repeats`` rounds, the tasks interleaved in every round
    (so that a burst of load on a shared machine hits them all alike), after a warm-up."""
    for fn, items in tasks.values():
        for item in items[:20]:
            fn(item)
    best = {key: float("inf") for key in tasks}
    for _ in range(repeats):
        for key, (fn, items) in tasks.items():
            best[key] = min(best[key], _pass_us(fn, items))
    return best


def _drop_each(hand: Sequence[Any]) -> list[list[Any]]:
    return [[*hand[:i], *hand[i + 1 :]] for i in range(len(hand))]


# ----------------------------------------------------------------- peers
def _openspiel() -> tuple[Any, str] | str:
    """OpenSpiel's gin rummy utils, or the reason it is unavailable."""
    try:
        import pyspiel
    except ImportError as exc:
        return f"pyspiel not importable ({exc}); pip install open-spiel"
    try:
        utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)  # ranks, suits, hand size
    except AttributeError as exc:
        return f"this open-spiel has no gin_rummy.GinRummyUtils ({exc})"
    return utils, getattr(pyspiel, "__version__", "?")


def _rlcard() -> tuple[Callable[[list[Any]], int], Callable[[int], Any], str] | str:
    """RLCard's 10-card deadwood (its own idiom) and card maker, or the reason it is unavailable."""
    try:
        import rlcard
        from rlcard.games.gin_rummy.utils import melding, utils
    except ImportError as exc:
        return f"rlcard not importable ({exc}); pip install 'gin3_env[bench]' (or pip install rlcard)"

    def rl_deadwood(hand: list[Any]) -> int:
        clusters = melding.get_best_meld_clusters(hand=hand)
        return utils.get_deadwood_count(hand, clusters[0] if clusters else [])

    return rl_deadwood, utils.card_from_card_id, getattr(rlcard, "__version__", "?")


# -------------------------------------------------------------------- run
def run(quick: bool = False, hands: int | None = None, repeats: int | None = None) -> dict[str, Any]:
    """Time ours and the peers on the same random 11-card hands; returns a JSON-able report.

    ``quick``: 300 hands, best of 2 passes (a smoke check); else 2000 hands, best of 5.
    RLCard is much slower, so it is timed on the first quarter of the hands."""
    n = hands if hands is not None else (300 if quick else 2000)
    repeats = repeats if repeats is not None else (2 if quick else 5)
    rng = np.random.default_rng(SEED)
    hands11 = [[int(c) for c in rng.choice(52, size=11, replace=False)] for _ in range(n)]
    hands10 = [h[:10] for h in hands11]
    masks10 = [sum(1 << c for c in h) for h in hands10]

    our_knock = [knock_deadwoods(h) for h in hands11]
    our_dw10 = [deadwood(h) for h in hands10]
    tasks: dict[str, tuple[Callable[[Any], Any], Sequence[Any]]] = {
        "ours/knock_deadwoods": (knock_deadwoods, hands11),
        "ours/deadwood_10": (deadwood, hands10),
        "ours/best_discard_11": (lambda h: min(knock_deadwoods(h).values()), hands11),
        "ours_mask/deadwood_10": (deadwood_of_mask, masks10),
    }
    peers: dict[str, dict[str, Any]] = {}
    found = _openspiel()
    if isinstance(found, str):
        peers["openspiel"] = {"skipped": found}
    else:
        os_utils, version = found
        md = os_utils.min_deadwood
        subs11 = [_drop_each(h) for h in hands11]
        tasks["openspiel/knock_deadwoods"] = (lambda subs: [md(s) for s in subs], subs11)
        tasks["openspiel/deadwood_10"] = (md, hands10)
        tasks["openspiel/best_discard_11"] = (md, hands11)
        peers["openspiel"] = {
            "version": version,
            "mismatches": {
                "knock_deadwoods": sum(
                    [md(s) for s in subs] != [kd[c] for c in h]
                    for subs, kd, h in zip(subs11, our_knock, hands11, strict=True)
                ),
                "deadwood_10": sum(md(h) != d for h, d in zip(hands10, our_dw10, strict=True)),
                "best_discard_11": sum(
                    md(h) != min(kd.values()) for h, kd in zip(hands11, our_knock, strict=True)
                ),
            },
        }
    found_rl = _rlcard()
    if isinstance(found_rl, str):
        peers["rlcard"] = {"skipped": found_rl}
    else:
        rl_deadwood, make_card, version = found_rl
        m = max(1, n // 4)
        rl11 = [[make_card(c) for c in h] for h in hands11[:m]]
        rl_subs = [_drop_each(h) for h in rl11]
        rl10 = [h[:10] for h in rl11]
        tasks["rlcard/knock_deadwoods"] = (lambda subs: [rl_deadwood(s) for s in subs], rl_subs)
        tasks["rlcard/deadwood_10"] = (rl_deadwood, rl10)
        peers["rlcard"] = {
            "version": version,
            "hands": m,
            "mismatches": {
                "knock_deadwoods": sum(
                    [rl_deadwood(s) for s in subs] != [kd[c] for c in h]
                    for subs, kd, h in zip(rl_subs, our_knock, hands11, strict=False)
                ),
                "deadwood_10": sum(rl_deadwood(h) != d for h, d in zip(rl10, our_dw10, strict=False)),
            },
        }
    times = _best_times_us(tasks, repeats)
    ours = {key.split("/")[1]: t for key, t in times.items() if key.startswith("ours/")}
    ours_mask = {key.split("/")[1]: t for key, t in times.items() if key.startswith("ours_mask/")}
    for name, peer in peers.items():
        if "skipped" not in peer:
            peer["us"] = {key.split("/")[1]: t for key, t in times.items() if key.startswith(name + "/")}
    for peer in peers.values():
        if "us" in peer:
            peer["ratio"] = {op: t / ours[op] for op, t in peer["us"].items()}
    return {
        "benchmark": "meld engine, CPU microseconds per call on the same random hands (ratio = peer / ours)",
        "hands": n,
        "repeats": repeats,
        "seed": SEED,
        "python": platform.python_version(),
        "ours_us": ours,
        "ours_mask_us": ours_mask,
        "peers": peers,
    }


OPERATIONS = {
    "knock_deadwoods": "11-card hand, deadwood after each of the 11 discards",
    "deadwood_10": "10-card hand, minimum deadwood",
    "best_discard_11": "11-card hand, best discard only",
}


def format_report(report: dict[str, Any]) -> str:
    """The report as a text table."""
    peers = report["peers"]
    lines = [
        f"{report['benchmark']}",
        f"{report['hands']} hands, best of {report['repeats']} (seed {report['seed']}, "
        f"Python {report['python']})",
        f"{'operation':<17}{'ours us':>9}{'OpenSpiel us':>14}{'ratio':>8}{'RLCard us':>12}{'ratio':>8}",
    ]
    for op in OPERATIONS:
        row = f"{op:<17}{report['ours_us'][op]:>9.2f}"
        for name, width in (("openspiel", 14), ("rlcard", 12)):
            peer = peers.get(name, {})
            if op in peer.get("us", {}):
                row += f"{peer['us'][op]:>{width}.2f}{peer['ratio'][op]:>7.1f}x"
            else:
                row += f"{'-':>{width}}{'':>8}"
        lines.append(row)
    mask_us = report["ours_mask_us"]["deadwood_10"]
    lines.append(f"(ours on a 52-bit mask instead of a list: deadwood_10 {mask_us:.2f} us)")
    for op, text in OPERATIONS.items():
        lines.append(f"  {op}: {text}")
    for name, peer in peers.items():
        if "skipped" in peer:
            lines.append(f"  {name}: skipped: {peer['skipped']}")
        else:
            extra = f" (timed on {peer['hands']} hands)" if "hands" in peer else ""
            bad = {op: k for op, k in peer["mismatches"].items() if k}
            agree = "all answers agree with ours" if not bad else f"MISMATCHES with ours: {bad}"
            lines.append(f"  {name} {peer['version']}{extra}: {agree}")
    return "\n".join(lines)
