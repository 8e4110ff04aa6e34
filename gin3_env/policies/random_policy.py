"""A player that picks uniformly among the legal actions."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..observation.decoding import check_observation


class RandomPolicy:
    """Uniform over the legal actions of the observation's ``action_mask``.

    ``seed`` seeds its own ``numpy.random.Generator`` (``None``: fresh entropy),
    so two policies built with the same seed make the same choices.
    """

    name = "random"

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def act(self, observation: dict[str, Any]) -> int:
        _, mask = check_observation(observation)
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(len(legal))])

    def __repr__(self) -> str:
        return "RandomPolicy()"
