"""Shared helpers of the evaluation package: policy names, the progress bar."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol, TypeVar, runtime_checkable

T = TypeVar("T")


@runtime_checkable
class Policy(Protocol):
    """Anything with ``act(observation_dict) -> int``."""

    def act(self, observation: dict[str, Any]) -> int: ...


def policy_name(policy: Any) -> str:
    """A short name for reports: the policy's ``name`` attribute, else its class name."""
    name = getattr(policy, "name", None)
    return str(name) if name else type(policy).__name__


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
