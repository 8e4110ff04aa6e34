"""Threads of a training run: torch's and the batched core's, chosen together.

A training step alternates between the batched core (numba kernels: the hands, the
opponents, the features) and torch (the network), so the two pools never compute at the
same time; what hurts is a pool that waits badly. OpenMP's default wait policy spins: on a
machine that other work shares, a torch op with two threads waits for a thread that is not
running, and the run becomes slower than with one thread (measured 0.43-0.60x of one
thread with another process busy). So:

- :func:`prefer_passive_wait` sets ``OMP_WAIT_POLICY=PASSIVE`` (idle threads sleep instead
  of spinning) unless the user set it; OpenMP reads it when torch loads it, so this runs
  when :mod:`gin3_training` is imported, before any training module imports torch.
- :func:`plan_threads` chooses the torch threads (``torch_threads``, at most the cores this
  process may use: more never helps and only spins) and the batched core's numba threads
  (``core_threads``, 0 for one per core, at most numba's pool size ``NUMBA_NUM_THREADS``).
  One torch thread is the default: the network's matmuls are narrow, one thread runs them
  near the core's rate, and it cannot collapse on a busy machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


def prefer_passive_wait() -> bool:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` where the user has not set it; True if this call set it."""
    if "OMP_WAIT_POLICY" in os.environ:
        return False
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    return True


def available_cores() -> int:
    """The cores this process may run on (its affinity where the OS reports it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def numba_pool_size() -> int:
    """numba's thread pool size (``NUMBA_NUM_THREADS``, fixed when numba is imported)."""
    import numba

    limit: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    return int(limit)


@dataclass(frozen=True)
class ThreadPlan:
    """Threads of torch and of the batched core, and why any request was lowered."""

    torch: int
    core: int
    notes: tuple[str, ...] = ()

    def describe(self) -> str:
        wait = os.environ.get("OMP_WAIT_POLICY", "the OpenMP default")
        return f"{self.torch} torch thread(s), {self.core} batched-core thread(s), OpenMP wait policy {wait}"


def plan_threads(torch_threads: int, core_threads: int, cores: int | None = None,
                 pool: int | None = None) -> ThreadPlan:
    """Threads for a run asking for ``torch_threads`` (>= 1) and ``core_threads`` (0: one per core)
    on ``cores`` usable cores with a numba pool of ``pool`` threads."""
    if isinstance(torch_threads, bool) or not isinstance(torch_threads, int) or torch_threads < 1:
        raise ValueError(f"torch_threads must be an int >= 1, got {torch_threads!r}")
    if isinstance(core_threads, bool) or not isinstance(core_threads, int) or core_threads < 0:
        raise ValueError(f"core_threads must be an int >= 0, got {core_threads!r}")
    cores = available_cores() if cores is None else cores
    pool = numba_pool_size() if pool is None else pool
    notes: list[str] = []
    torch_n = min(torch_threads, cores)
    if torch_n < torch_threads:
        notes.append(f"torch_threads {torch_threads} lowered to {torch_n}: this process may use {cores} core(s)")
    wanted = core_threads or cores
    core_n = max(1, min(wanted, cores, pool))
    if core_threads and core_n < core_threads:
        notes.append(f"core_threads {core_threads} lowered to {core_n}: this process may use {cores} core(s) "
                     f"and numba's pool holds {pool} (NUMBA_NUM_THREADS)")
    return ThreadPlan(torch_n, core_n, tuple(notes))


def apply_threads(plan: ThreadPlan) -> None:
    """Give torch and the batched core the plan's threads (in this process)."""
    import torch

    from gin3_env.vector import set_num_threads

    # numba first: starting its OpenMP threading layer resets the OpenMP thread count torch reads
    set_num_threads(plan.core)
    torch.set_num_threads(plan.torch)
