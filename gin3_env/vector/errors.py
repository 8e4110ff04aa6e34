"""The errors of the batched core and its envs: the named errors of :mod:`gin3_env.envs.errors`,
with the hand at fault and its action.

- :class:`BatchActionError` (an ``InvalidActionError``, so a ``ValueError``): ``actions`` that are
  not one int per hand (wrong shape, a float, bool, string or object dtype); ``hand`` and
  ``action`` name the first hand at fault where one is.
- :class:`HandActionOutOfRangeError` (also an ``ActionOutOfRangeError``): an action outside
  ``0..106`` in hand ``hand``.
- :class:`IllegalHandActionError` (also the engine's ``IllegalActionError``): an action that is
  not legal in hand ``hand`` (:class:`~gin3_env.vector.VectorHands`; the learner envs end that
  episode with the penalty instead).
- :class:`UnknownAttributeError` (also an ``AttributeError``, which SB3 expects from
  ``get_attr``): an attribute or method the batched SB3 env does not have.
- :class:`InvalidResetOptionError` (a ``ValueError``): ``reset`` options the env does not take.

Each is refused before anything changes: no hand is stepped, no generator drawn from.
"""

from __future__ import annotations

from typing import Any

from ..engine.hand import IllegalActionError
from ..envs.errors import ActionOutOfRangeError, EnvUsageError, InvalidActionError


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
