"""The usage errors of the package, in one module at the bottom of the layers.

The engine, the compiled core, the envs and the batched learner envs raise these; each
refuses a call before anything changes (no state moved, no generator drawn from).

The engine's:

- :class:`IllegalActionError` (a ``ValueError``): an action that is not legal in the state.

The envs' (:mod:`gin3_env.envs.errors` holds the checks that raise them), sharing the base
:class:`EnvUsageError`:

- :class:`ResetNeededError` (also a ``RuntimeError`` and gymnasium's ``ResetNeeded``): a call
  that needs ``reset`` first, or ``step`` once the episode is over.
- :class:`UnknownAgentError` (a ``ValueError``): an agent name that is not one of ``possible_agents``.
- :class:`InvalidActionError` (a ``ValueError``): an action that is not an int in ``0..106``;
  :class:`ActionOutOfRangeError` (also an ``AssertionError``) when the wrapped AEC envs' bounds
  check refuses it.
- :class:`CallOrderError` (also an ``AssertionError``): calls in an order the env refuses.
- :class:`InvalidSeedError` (a ``ValueError``): a seed that is not ``None`` or an int ``>= 0``.

The batched core's and its envs', naming the hand at fault and its action:

- :class:`BatchActionError` (an ``InvalidActionError``): ``actions`` that are not one int per
  hand (wrong shape, a float, bool, string or object dtype); ``hand`` and ``action`` name the
  first hand at fault where one is.
- :class:`HandActionOutOfRangeError` (also an ``ActionOutOfRangeError``): an action outside
  ``0..106`` in hand ``hand``.
- :class:`IllegalHandActionError` (also an ``IllegalActionError``): an action that is not legal
  in hand ``hand`` (:class:`~gin3_env.vector.VectorHands`; the learner envs end that episode
  with the penalty instead).
- :class:`UnknownAttributeError` (also an ``AttributeError``, which SB3 expects from
  ``get_attr``): an attribute or method the batched SB3 env does not have.
- :class:`InvalidResetOptionError` (a ``ValueError``): ``reset`` options the env does not take.
- :class:`InvalidIndicesError` (a ``ValueError``): SB3 ``indices`` that are not slots of the batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from gymnasium.error import ResetNeeded
except ModuleNotFoundError as exc:  # the engine and the compiled core work without gymnasium
    if exc.name != "gymnasium":
        raise

    class ResetNeeded(Exception):  # type: ignore[no-redef]
        """Stands in for ``gymnasium.error.ResetNeeded`` where gymnasium is not installed."""


class IllegalActionError(ValueError):
    """An action that is not legal in the current state."""


# ---------------------------------------------------------------- the envs'
class EnvUsageError(Exception):
    """An env method called in a state, or with an argument, that the env refuses; nothing changed."""


class ResetNeededError(EnvUsageError, ResetNeeded, RuntimeError):
    """The env must be reset first: not reset yet, or its episode is over."""


class UnknownAgentError(EnvUsageError, ValueError):
    """An agent name that the env does not have."""


class InvalidActionError(EnvUsageError, ValueError):
    """An action that is not a valid action value for the agent to step."""


class ActionOutOfRangeError(InvalidActionError, AssertionError):
    """``env().step`` got an action outside the agent's action space (the wrapped envs' bounds check).

    A ``ValueError`` like ``raw_env``'s refusal, and an ``AssertionError`` like the bare
    ``assert`` of PettingZoo's ``AssertOutOfBoundsWrapper`` it replaces, but naming the
    action and the space (and not removed by ``python -O``)."""


class CallOrderError(EnvUsageError, AssertionError):
    """Calls in an order the env refuses (two agents from ``agent_iter`` without a ``step``)."""


class UnknownKeywordError(EnvUsageError, TypeError):
    """A keyword argument that the env (or factory) does not take.

    A ``TypeError``, as Python's own refusal of an unexpected keyword argument, so that
    callers that retry without a keyword on ``TypeError`` (TorchRL's ``GymEnv`` with
    ``frameskip``) work."""


class InvalidSeedError(EnvUsageError, ValueError):
    """A ``reset`` seed that is not ``None`` or a non-negative int."""


def check_seed(seed: Any) -> int | None:
    """``None`` or a non-negative int (numpy integers too); else :class:`InvalidSeedError`."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise InvalidSeedError(f"seed must be None or an int >= 0, got {type(seed).__name__} {seed!r:.60}")
    if seed < 0:
        raise InvalidSeedError(f"seed must be None or an int >= 0, got {seed}")
    return int(seed)


# ---------------------------------------------------------------- the batched core's
class BatchActionError(InvalidActionError):
    """``actions`` for the batch that are not one valid action per hand."""

    def __init__(self, message: str, hand: int | None = None, action: Any = None) -> None:
        super().__init__(message)
        self.hand = hand
        self.action = action


class HandActionOutOfRangeError(BatchActionError, ActionOutOfRangeError):
    """An action outside ``0..106`` in one hand of the batch."""


class IllegalHandActionError(BatchActionError, IllegalActionError):
    """An action that is not legal in one hand of the batch."""


class UnknownAttributeError(EnvUsageError, AttributeError):
    """An attribute or method that the batched env does not have."""


class InvalidResetOptionError(EnvUsageError, ValueError):
    """``reset`` options that the env does not take."""


class InvalidIndicesError(EnvUsageError, ValueError):
    """``indices`` of the SB3 env that are not slots of the batch, or a subset where only all slots will do."""


class ClosedEnvError(EnvUsageError, RuntimeError):
    """A call on a batched env after its ``close()``."""
