"""Lookup tables for the compiled kernels, built from the scalar engine's own tables.

Every table is a plain numpy array derived from :mod:`gin3_env.engine.melds`, so the
kernels and the scalar engine share one definition of runs, sets and card points.
"""

from __future__ import annotations

import numpy as np

from ..engine.cards import CARD_POINTS, NUM_RANKS
from ..engine.melds import ALL_MELDS, RUN_DEADWOOD, RUN_MELDS

RUN_DW = np.asarray(RUN_DEADWOOD, dtype=np.int64)  # 8192: min deadwood of one suit's ranks with runs only


def _run_cover() -> np.ndarray:
    """For each 13-bit suit mask: the ranks the scalar table puts into runs."""
    cover = np.zeros(1 << NUM_RANKS, dtype=np.int64)
    for m, runs in enumerate(RUN_MELDS):
        bits = 0
        for lo, hi in runs:
            for r in range(lo, hi + 1):
                bits |= 1 << r
        cover[m] = bits
    return cover


RUN_COVER = _run_cover()
POINTS = np.asarray(CARD_POINTS, dtype=np.int64)  # 52


def _melds_by_low_card() -> tuple[np.ndarray, np.ndarray]:
    """Every meld as a 52-bit mask, grouped by its lowest card: (melds int64 (M,), start int64 (53,));
    the melds whose lowest card is ``c`` are ``melds[start[c]:start[c + 1]]``."""
    groups: list[list[int]] = [[] for _ in range(52)]
    for m in ALL_MELDS:
        groups[(m & -m).bit_length() - 1].append(m)
    start = np.zeros(53, dtype=np.int64)
    for card in range(52):
        start[card + 1] = start[card] + len(groups[card])
    return np.asarray([m for g in groups for m in g], dtype=np.int64), start


MELDS, MELD_START = _melds_by_low_card()
