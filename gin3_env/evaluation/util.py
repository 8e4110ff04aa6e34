"""Shared helpers of the evaluation package: the progress bar.

(The ``Policy`` protocol and ``policy_name`` live in :mod:`gin3_env.observation.policy`.)"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress_bar(items: Iterable[T], enabled: bool, desc: str, total: int | None = None) -> Iterator[T]:
    """Wrap ``items`` in a tqdm bar when ``enabled`` and tqdm is installed."""
    if enabled:
        try:
            from tqdm import tqdm
        except ImportError:  # tqdm is in the "train" extra
            pass
        else:
            yield from tqdm(items, desc=desc, total=total, leave=False)
            return
    yield from items
