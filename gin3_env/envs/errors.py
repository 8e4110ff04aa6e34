"""The errors an environment raises when it is used wrongly, and the checks that raise them.

Every env of the package (AEC hand and match, raw and wrapped; the Gymnasium
envs) refuses a call made in the wrong state or with a bad argument with one of
these, and a refused call changes nothing:

- :class:`ResetNeededError` (also a ``RuntimeError`` and gymnasium's ``ResetNeeded``):
  ``step``, ``observe``, ``last``, ``render``, ``agent_iter``, ``action_masks`` before
  ``reset``; ``step`` once the episode is over.
- :class:`UnknownAgentError` (a ``ValueError``): an agent name that is not one of
  ``possible_agents`` (an unhashable object too).
- :class:`InvalidActionError` (a ``ValueError``): an action that is not an int in ``0..106``
  (a string, float, bool, array; ``None`` for the agent to act; not ``None`` for an agent
  that is done); :class:`ActionOutOfRangeError` (also an ``AssertionError``, as PettingZoo's
  bare ``assert`` it replaces) when the wrapped AEC envs' out-of-bounds check refuses it,
  naming the action and the space.
- :class:`CallOrderError` (also an ``AssertionError``, as PettingZoo's check): the next
  agent of ``agent_iter`` asked for without a ``step`` since the last one.
- :class:`InvalidSeedError` (a ``ValueError``): a ``reset`` seed that is not
  ``None`` or an int ``>= 0``.
- :class:`UnknownKeywordError` (a ``TypeError``, as Python's own): a constructor keyword that is neither
  one of the env's arguments nor a rules option, named with the env and the closest
  known keyword.

An action of the right type that is not legal where it is played is the
engine's ``IllegalActionError`` (a ``ValueError``) in the raw AEC envs; the
wrapped AEC envs and the Gymnasium envs end the episode with a penalty instead
(their documented behaviour). All of these share the base
:class:`EnvUsageError`, except ``IllegalActionError``, which belongs to the
engine. The classes live in :mod:`gin3_env.errors` with the batched core's (import them from
there); this module holds the checks.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..engine.actions import NUM_ACTIONS
from ..errors import (
    InvalidActionError,
    UnknownAgentError,
    UnknownKeywordError,
    check_seed,
)

__all__ = [
    "DRAWN",
    "LEARNER_ROLES",
    "action_value",
    "agent_index",
    "check_action_value",
    "check_learner_role",
    "check_seed",
    "describe_action",
    "unknown_agent",
]


def unknown_keyword(key: str, env_name: str, known: Sequence[str]) -> UnknownKeywordError:
    """``unexpected keyword argument 'oponent' for ThreeHandedGin-v0 (did you mean 'opponent'?)``."""
    close = difflib.get_close_matches(key, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return UnknownKeywordError(
        f"unexpected keyword argument {key!r} for {env_name}{hint}; it takes {', '.join(known)}"
    )


def action_value(action: Any) -> int | None:
    """``action`` as an int if it is an int (or numpy integer, or 0-d integer array; not a bool), else None."""
    if type(action) is int:
        return action
    if isinstance(action, np.integer) or (
        isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer)
    ):
        return int(action)
    return None


def describe_action(action: Any) -> str:
    """What a non-integer ``action`` is, for an error message ("str 'draw'", "a bool (True)" ...)."""
    if action is None:
        return "None"
    if isinstance(action, bool | np.bool_):
        return f"a bool ({action!r})"
    if isinstance(action, np.ndarray):
        return f"an array of shape {action.shape} and dtype {action.dtype}"
    return f"{type(action).__name__} {action!r:.60}"


def check_action_value(action: Any, agent: str | None = None) -> int:
    """``action`` as an int if it is an int (or numpy integer, or 0-d integer array) in ``0..106``;
    else :class:`InvalidActionError` saying what it is."""
    who = f" for {agent}" if agent else ""
    value = action_value(action)
    if value is None:
        raise InvalidActionError(f"the action{who} must be an int 0..{NUM_ACTIONS - 1}, got {describe_action(action)}")
    if not 0 <= value < NUM_ACTIONS:
        # the first words as the engine's own refusal (engine.actions), then what was wrong
        raise InvalidActionError(
            f"action out of range 0..{NUM_ACTIONS - 1}: {value}; the action{who} must be an int "
            f"0..{NUM_ACTIONS - 1}, got {value} (out of range)"
        )
    return value


def agent_index(agent: Any, index: Mapping[str, int], agents: Sequence[str]) -> int:
    """``index[agent]``; :class:`UnknownAgentError` for any other name or object (unhashable ones too)."""
    try:
        return index[agent]
    except (KeyError, TypeError):
        raise unknown_agent(agent, agents) from None


def unknown_agent(agent: object, agents: Sequence[str]) -> UnknownAgentError:
    return UnknownAgentError(f"unknown agent {agent!r:.60}; the agents are {', '.join(agents)}")


def check_illegal_penalty(illegal_penalty: float) -> float:
    """``illegal_penalty`` as a float if it is a finite number >= 0 (game points taken for an illegal
    action), else a ``ValueError`` naming it: NaN would make the reward NaN, a negative one pay for
    illegal moves."""
    if isinstance(illegal_penalty, bool) or not isinstance(illegal_penalty, int | float | np.number):
        raise ValueError(f"illegal_penalty must be a number, got {illegal_penalty!r}")
    value = float(illegal_penalty)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"illegal_penalty must be a finite number >= 0 (game points), got {illegal_penalty!r}")
    return value


# The learner's role of the single-agent envs, the scalar ones and the batched ones alike.
DRAWN = "random"  # the learner's role (hand envs) or seat (match env) drawn at each reset: one spelling for both
LEARNER_ROLES = ("team", "box", DRAWN)  # DRAWN: a role drawn at each reset (for each hand in the batched envs)


def check_learner_role(role: Any) -> str:
    """The learner's role of the single-agent and batched learner envs: ``"team"``, ``"box"`` or ``"random"``
    (a role drawn at each reset, as the match env's ``learner="random"`` is a seat drawn at each reset);
    anything else is a ``ValueError``."""
    if not isinstance(role, str) or role not in LEARNER_ROLES:
        raise ValueError(f"learner must be 'team', 'box' or 'random' (a role drawn at each reset), got {role!r}")
    return role
