"""The opponents of the single-agent envs: one policy, or a pool drawn from at each reset."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..observation.policy import Policy

__all__ = ["OpponentPool", "resolve_policy"]


def resolve_policy(spec: Any) -> Policy:
    """A policy from a name or model path (``load_policy``), or a policy object passed through."""
    if isinstance(spec, str):
        from ..policies import load_policy  # lazy: the envs do not import the policies at import time

        return load_policy(spec)
    if not callable(getattr(spec, "act", None)):
        raise ValueError(f"opponent must be a policy name, a model path or an object with act(); got {spec!r}")
    return spec


class OpponentPool:
    """Policies to play against, drawn at each reset uniformly or by ``weights``."""

    def __init__(self, opponent: Any, weights: Sequence[float] | None = None) -> None:
        items = list(opponent) if isinstance(opponent, list | tuple) else [opponent]
        if not items:
            raise ValueError("opponent pool is empty")
        self.weights: np.ndarray | None = None
        if weights is not None:
            w = np.asarray(weights, dtype=float)
            if w.shape != (len(items),) or (w < 0).any() or w.sum() <= 0:
                raise ValueError(f"weights must be {len(items)} numbers >= 0 with a positive sum, got {weights!r}")
            self.weights = w / w.sum()
        self.policies = [resolve_policy(o) for o in items]

    def __len__(self) -> int:
        return len(self.policies)

    def draw(self, rng: np.random.Generator) -> Policy:
        """One of the pool (the only one without drawing when there is one)."""
        if len(self.policies) == 1:
            return self.policies[0]
        return self.policies[int(rng.choice(len(self.policies), p=self.weights))]
