"""The one ``Policy`` protocol: anything with ``act(observation) -> int``.

``observation`` is the dict an agent gets from the AEC envs: ``{"observation":
float32 vector (:mod:`gin3_env.observation.layout`, maybe with match features appended), "action_mask":
int8 (107,)}``; ``act`` returns a legal action id. Evaluation, imitation, the
Gymnasium envs' opponents and ``gin3 play`` all take policies of this type.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..engine import rules as _rules

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


def rules_of(policy: Any) -> _rules.Rules | None:
    """The rules a player was built for: its ``rules`` (a :class:`Rules`, the one way a player says them);
    None for a player that reads no rule (random, a saved model, an object of unknown kind)."""
    own = getattr(policy, "rules", None)
    return own if isinstance(own, _rules.Rules) else None


def rules_read(policy: Any) -> tuple[str, ...]:
    """The options of its rules a player reads: its ``rules_read`` (the heuristic: ``("knock_limit",)``), else all
    of them (a player that says its rules and not which it reads is held to every one)."""
    read = getattr(policy, "rules_read", None)
    return tuple(read) if read is not None else _rules.Rules.option_names()


def check_plays_rules(policy: Any, rules: _rules.Rules | None, what: str | None = None) -> None:
    """Refuse, in one ``ValueError`` line naming the player and the option, a player built for other rules
    than the game's ``rules`` (None: the default rules). A player that says its rules (:func:`rules_of`) must
    have been built for the game's in each option it reads (:func:`rules_read`); a player that says nothing
    is taken to read no rule."""
    game = rules if rules is not None else _rules.Rules()
    own = rules_of(policy)
    if own is None:
        return
    options = [k for k in rules_read(policy) if getattr(own, k) != getattr(game, k)]
    if options:
        name = what or policy_name(policy)
        differ = ", ".join(f"{k} {getattr(own, k)!r} (the game's: {getattr(game, k)!r})" for k in options)
        raise ValueError(f"the player {name!r} was built for other rules than the game's: {differ}; "
                         "load it with the game's rules (load_policy(spec, rules=...))")


def introduce(first: Any, second: Any) -> None:
    """Tell each of two players whom it faces in the hand about to start: a player with a ``face(opponent)``
    method (a search, whose belief models its opponent) gets the other player object; others are left alone."""
    for player, other in ((first, second), (second, first)):
        face = getattr(player, "face", None)
        if callable(face) and other is not None and player is not other:
            face(other)
