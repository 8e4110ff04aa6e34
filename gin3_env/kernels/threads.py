"""How many threads the batched players' kernels use (one by default)."""

from __future__ import annotations

from typing import Any

PARALLEL_MIN_ROWS = 64  # below this many rows the threaded kernel costs more than it saves
_THREADS = [1]


def set_num_threads(n: int) -> None:
    """Threads for the batched players' kernels (default 1). On a machine that other work
    shares, one thread is often faster: a threaded call waits for its slowest thread
    (``gin3 bench --only vector`` prints the scaling)."""
    import numba

    config: Any = numba.config  # its settings are read from the environment at import: unknown to type checkers
    limit = int(config.NUMBA_NUM_THREADS)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= limit:
        raise ValueError(f"threads must be an int in 1..{limit}, got {n!r}")
    numba.set_num_threads(n)
    _THREADS[0] = n


def use_threads(rows: int) -> bool:
    return _THREADS[0] > 1 and rows >= PARALLEL_MIN_ROWS
