"""Compile the numba kernels the test suite uses, once, before its workers start (``tests/conftest.py``).

With a cold cache (a fresh clone), the two test workers and the commands they start would otherwise
compile the same kernels at the same moment, each its own copy, before either has written the cache.
``python tests/warm_kernels.py PART`` plays a few hands through one family of kernels; ``conftest.py``
runs the parts side by side. With a warm cache each part only loads the kernels (about a second).
"""

from __future__ import annotations

import sys


def labels() -> None:
    """The label run of ``gin3 train-gate``: the hand, heuristic, gate and label kernels."""
    from gin3_env.training.gate.labels import LabelRun, label_chunk

    label_chunk(LabelRun(seed=11, deals=2, chunk=2, shuffles=2), 0, None)


def players() -> None:
    """The batched players (heuristic, gated, net, random) and the search (playouts, beliefs)."""
    from gin3_env.evaluation import evaluate_hands
    from gin3_env.policies import load_policy

    heuristic = load_policy("heuristic")
    for name in ("trained", "net", "random"):
        evaluate_hands(load_policy(name), heuristic, 4, seed=1, batched=True)
    evaluate_hands(load_policy("search:samples=8"), heuristic, 1, seed=1)
    gated_search = load_policy("search:samples=8,rollout_gate=trained,belief=mcmc,opponent=kernel")
    evaluate_hands(gated_search, heuristic, 1, seed=1)


PARTS = {"labels": labels, "players": players}

if __name__ == "__main__":
    for part in sys.argv[1:] or list(PARTS):
        PARTS[part]()
