"""The heuristic's options as the two arrays its compiled kernels read."""

from __future__ import annotations

from typing import Any

import numpy as np


def heuristic_params(cfg: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(floats, ints)`` of a :class:`~gin3_env.policies.heuristic.HeuristicConfig`, in the order
    the kernels of :mod:`.heuristic_kernels` and :mod:`.belief_kernels` index them."""
    floats = np.array([cfg.outs_weight, cfg.danger_weight], dtype=np.float64)
    ints = np.array(
        [cfg.knock_limit, int(cfg.take_on_knock), cfg.knock_early_max, cfg.early_stock, cfg.knock_late_max,
         cfg.late_stock, cfg.outs_stock_scale, int(cfg.simple)],
        dtype=np.int64,
    )
    return floats, ints
