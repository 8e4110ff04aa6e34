"""PettingZoo's classic wrapper stack, with cheaper attribute lookups; a faster ``Discrete``.

:func:`wrap` puts a raw env in the wrappers PettingZoo's classic envs use:
``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper``,
``OrderEnforcingWrapper``. The classes here are subclasses of those, changing
only how attributes are read: PettingZoo's ``BaseWrapper.__getattr__`` forwards
a missing attribute layer by layer, and ``agent_selection``, ``terminations`` ...
are read about 20 times a step (by ``agent_iter``, ``last`` and the wrappers'
own ``step``/``observe``), which made the wrappers cost more than the game.
These wrappers add no public attributes of their own and write the env's state
on the raw env (``env.unwrapped``), so reading it there, in one hop, gives the
same answers. The order enforcing keeps PettingZoo's lookups (and refusals)
until the first ``reset``; after it nothing is refused any more, and the
wrapper switches to the one-hop class.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

__all__ = ["ActionOutOfRangeError", "ActionSpace", "wrap"]

# Attributes read on the wrappers at every step.
_HOT = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``contains`` answers a plain ``int`` without numpy.

    ``AssertOutOfBoundsWrapper`` calls ``contains`` at every step; gymnasium's goes
    through ``np.iinfo`` and ``np.can_cast``. The answers are the same for every input."""

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return int(self.start) <= x < int(self.start) + int(self.n)
        return super().contains(x)


class _OneHop:
    """Mixin: read the raw env's attributes directly (C-level getters for the hot ones)."""

    _raw: AECEnv

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") and name != "_cumulative_rewards":
            raise AttributeError(f"accessing private attribute '{name}' is prohibited")
        raw = self.__dict__.get("_raw")
        if raw is None:  # while unpickling
            raise AttributeError(name)
        return getattr(raw, name)


def _add_hot_properties(cls: type) -> type:
    for name in _HOT:
        setattr(cls, name, property(attrgetter(f"_raw.{name}"), doc=f"The raw env's ``{name}``."))
    return cls


_add_hot_properties(_OneHop)


class _TerminateIllegal(_OneHop, wrappers.TerminateIllegalWrapper):
    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        self._raw = env.unwrapped
        super().__init__(env, illegal_reward)


class ActionOutOfRangeError(ValueError, AssertionError):
    """``env().step`` got an action outside the agent's action space.

    A ``ValueError`` like ``raw_env``'s refusal, and an ``AssertionError`` like the bare
    ``assert`` of PettingZoo's ``AssertOutOfBoundsWrapper`` it replaces, but naming the
    action and the space (and not removed by ``python -O``)."""


class _AssertOutOfBounds(_OneHop, wrappers.AssertOutOfBoundsWrapper):
    def __init__(self, env: AECEnv) -> None:
        self._raw = env.unwrapped
        super().__init__(env)

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        done = action is None and (raw.terminations[agent] or raw.truncations[agent])
        if not done and (action is None or not raw.action_space(agent).contains(action)):
            space = raw.action_space(agent)
            if action is None:
                raise ActionOutOfRangeError(f"{agent} is to act: the action must be an int 0..{int(space.n) - 1}, "
                                            "not None")
            raise ActionOutOfRangeError(
                f"action {action!r} is not in {agent}'s action space {space} (ids 0..{int(space.n) - 1})"
            )
        wrappers.BaseWrapper.step(self, action)  # the stock wrapper's step is its assert, then this


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing as is, until the first ``reset``."""

    def __init__(self, env: AECEnv) -> None:
        self._raw = env.unwrapped
        super().__init__(env)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        self.__class__ = _OrderEnforcingAfterReset

    def __str__(self) -> str:
        return str(self.env)  # as the stock wrapper prints itself: the env's name


@_add_hot_properties
class _OrderEnforcingAfterReset(_OrderEnforcing):
    """After a reset the order enforcing refuses no attribute: read them in one hop.

    (Single inheritance, so that ``reset`` may switch an instance's class to it.)"""

    __getattr__ = _OneHop.__getattr__


def wrap(aec: AECEnv) -> AECEnv:
    """Wrap a raw env as PettingZoo's classic envs are: terminate on an illegal move
    (reward -1 to the mover), assert actions in bounds, enforce the call order."""
    return _OrderEnforcing(_AssertOutOfBounds(_TerminateIllegal(aec, illegal_reward=-1)))
