"""The one ``Policy`` protocol: anything with ``act(observation) -> int``.

``observation`` is the dict an agent gets from the AEC envs: ``{"observation":
float32 vector (:mod:`gin3_env.observation.layout`, maybe with match features appended), "action_mask":
int8 (107,)}``; ``act`` returns a legal action id. Evaluation, imitation, the
Gymnasium envs' opponents and ``gin3 play`` all take policies of this type.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

Observation = dict[str, np.ndarray]


@runtime_checkable
class Policy(Protocol):
    """Anything with ``act(observation_dict) -> int`` returning a legal action."""

    def act(self, observation: Observation) -> int: ...


def policy_name(policy: Any) -> str:
    """A short name for reports: the policy's ``name`` attribute, else its class name."""
    name = getattr(policy, "name", None)
    return str(name) if name else type(policy).__name__


def check_policy(policy: Any, what: str = "policy") -> Policy:
    """``policy`` if it has a callable ``act``, else a ``ValueError`` naming ``what``."""
    if not callable(getattr(policy, "act", None)):
        raise ValueError(f"{what} must be an object with act(observation) -> int, got {policy!r}")
    return policy


def introduce(first: Any, second: Any) -> None:
    """Tell each of two players whom it faces in the hand about to start: a player with a ``face(opponent)``
    method (a search, whose belief models its opponent) gets the other player object; others are left alone."""
    for player, other in ((first, second), (second, first)):
        face = getattr(player, "face", None)
        if callable(face) and other is not None and player is not other:
            face(other)
