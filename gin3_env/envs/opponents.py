"""The opponents of the single-agent envs: one policy, or a pool drawn from at each reset.

An opponent given by name or model path (``"heuristic"``, ``"gated"``, ``run/best.zip``) is
loaded by the policy loader the package installs at import (``gin3_env.policies.load_policy``,
one layer up: the envs do not import the policies themselves), for the env's rules
(``load_policy(spec, rules=...)``); an opponent object built for other rules than the env's is
refused in one line (:func:`~gin3_env.game.policy.check_plays_rules`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..engine.rules import Rules
from ..game.policy import Policy, check_plays_rules, check_policy

__all__ = ["OpponentPool", "resolve_policy", "set_policy_loader"]

_loader: Callable[..., Policy] | None = None


def set_policy_loader(loader: Callable[..., Policy]) -> None:
    """Install the function that turns a policy name or model path into a policy
    (``import gin3_env`` installs ``gin3_env.policies.load_policy``)."""
    global _loader
    _loader = loader


def resolve_policy(spec: Any, rng: np.random.Generator | None = None, rules: Rules | None = None) -> Policy:
    """A policy from a name or model path (through the installed loader, for the game's ``rules``; None:
    the rule book's), or a policy object passed through (refused if built for other rules); ``"random"``
    with ``rng`` is seeded from it (the env's: a seeded run repeats)."""
    if isinstance(spec, str):
        if _loader is None:
            raise ValueError(f"no policy loader is installed to load {spec!r}: import gin3_env first")
        if spec == "random" and rng is not None:
            return _loader(spec, seed=int(rng.integers(2**63)))
        return _loader(spec, rules=rules)
    policy = check_policy(spec, "opponent (a policy name, a model path or an object with act())")
    check_plays_rules(policy, rules)
    return policy


class OpponentPool:
    """Policies to play against, drawn at each reset uniformly or by ``weights``, each for the game's ``rules``."""

    def __init__(
        self, opponent: Any, weights: Sequence[float] | None = None, rng: np.random.Generator | None = None,
        rules: Rules | None = None,
    ) -> None:
        items = list(opponent) if isinstance(opponent, list | tuple) else [opponent]
        if not items:
            raise ValueError("opponent pool is empty")
        self.weights: np.ndarray | None = None
        if weights is not None:
            w = np.asarray(weights, dtype=float)
            if w.shape != (len(items),) or (w < 0).any() or w.sum() <= 0:
                raise ValueError(f"weights must be {len(items)} numbers >= 0 with a positive sum, got {weights!r}")
            self.weights = w / w.sum()
        self._specs = items
        self.rules = rules
        self.policies = [resolve_policy(o, rng, rules) for o in items]

    def reseed(self, seed: int) -> None:
        """Seed again the opponents this pool seeds itself (each ``"random"`` given by name), each from
        ``seed`` and its place in the pool: an env's ``reset(seed=seed)`` then repeats whatever came
        before. Policies given as objects keep their own state."""
        for i, spec in enumerate(self._specs):
            if isinstance(spec, str) and spec == "random":
                self.policies[i] = resolve_policy(spec, np.random.default_rng([seed, i]), self.rules)

    def __len__(self) -> int:
        return len(self.policies)

    def draw(self, rng: np.random.Generator) -> Policy:
        """One of the pool (the only one without drawing when there is one)."""
        if len(self.policies) == 1:
            return self.policies[0]
        return self.policies[int(rng.choice(len(self.policies), p=self.weights))]
