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

Refusals are the package's errors (:mod:`gin3_env.envs.errors`), not PettingZoo's
bare ``AssertionError``: a call before ``reset`` is a ``ResetNeededError``, an
action outside the action space (or ``None`` for the agent to act) an
``ActionOutOfBoundsError`` (an ``AssertionError`` too, as PettingZoo's check).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers import order_enforcing

from .errors import ActionOutOfBoundsError, CallOrderError, InvalidActionError, ResetNeededError, check_action_value

__all__ = ["ActionSpace", "wrap"]

_NUM_ACTIONS = 107  # gin3_env.engine.actions.NUM_ACTIONS, the one action space of every agent
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

    def step(self, action: Any) -> None:
        # PettingZoo's step clears its cached observation before the env may refuse the
        # action; a refused step keeps it, so that nothing changes
        cached = self._prev_obs, self._prev_info  # type: ignore[has-type]
        try:
            super().step(action)
        except BaseException:
            self._prev_obs, self._prev_info = cached
            raise


class _AssertOutOfBounds(_OneHop, wrappers.AssertOutOfBoundsWrapper):
    def __init__(self, env: AECEnv) -> None:
        self._raw = env.unwrapped
        super().__init__(env)

    def step(self, action: Any) -> None:
        """PettingZoo's check (``None`` only for a finished agent, else in the space), raising
        :class:`ActionOutOfBoundsError` with what is wrong."""
        raw = self._raw
        agent = raw.agent_selection
        done = raw.terminations[agent] or raw.truncations[agent]
        if action is None:
            if not done:
                raise ActionOutOfBoundsError(f"{agent} is to act: the action must be an int 0..106, not None")
        elif type(action) is not int or not 0 <= action < _NUM_ACTIONS:
            try:
                check_action_value(action, agent)
            except InvalidActionError as exc:
                raise ActionOutOfBoundsError(str(exc)) from None
        wrappers.BaseWrapper.step(self, action)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing as is, until the first ``reset``."""

    def __init__(self, env: AECEnv) -> None:
        self._raw = env.unwrapped
        super().__init__(env)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # PettingZoo's wrappers update their flags before the env checks the arguments: a
        # refused reset puts every layer back as it was
        layers = []
        env: Any = self
        while isinstance(env, wrappers.BaseWrapper):
            layers.append((env, dict(env.__dict__)))
            env = env.env
        cls = self.__class__
        try:
            super().reset(seed=seed, options=options)
        except BaseException:
            for layer, saved in layers:
                layer.__dict__.clear()
                layer.__dict__.update(saved)
            self.__class__ = cls
            raise
        self.__class__ = _OrderEnforcingAfterReset

    # before the first reset (PettingZoo raises bare AssertionErrors here)
    def _before_reset(self, method: str) -> ResetNeededError:
        return ResetNeededError(f"{method}() before reset(): call reset() first")

    def step(self, action: Any) -> None:
        raise self._before_reset("step")

    def observe(self, agent: str) -> Any:
        raise self._before_reset("observe")

    def last(self, observe: bool = True) -> Any:
        raise self._before_reset("last")

    def render(self) -> Any:
        raise self._before_reset("render")

    def state(self) -> Any:
        raise self._before_reset("state")

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        raise self._before_reset("agent_iter")

    def __str__(self) -> str:
        return str(self.env)  # as the stock wrapper prints itself: the env's name


@_add_hot_properties
class _OrderEnforcingAfterReset(_OrderEnforcing):
    """After a reset the order enforcing refuses no attribute: read them in one hop.

    (Single inheritance, so that ``reset`` may switch an instance's class to it.)"""

    __getattr__ = _OneHop.__getattr__
    observe = wrappers.OrderEnforcingWrapper.observe
    render = wrappers.OrderEnforcingWrapper.render
    state = wrappers.OrderEnforcingWrapper.state
    def agent_iter(self, max_iter: int = 2**63) -> Any:
        return _OrderedAgents(self, max_iter)

    def step(self, action: Any) -> None:
        updated = self._has_updated  # type: ignore[has-type]  # PettingZoo sets it before the step, refused or not
        try:
            wrappers.OrderEnforcingWrapper.step(self, action)
        except BaseException:
            self._has_updated = updated
            raise

    def last(self, observe: bool = True) -> Any:
        if not self._raw.agents:
            raise ResetNeededError("last() after the end: every agent has left the finished episode; call reset()")
        return wrappers.OrderEnforcingWrapper.last(self, observe)


class _OrderedAgents(order_enforcing.AECOrderEnforcingIterable):
    def __iter__(self) -> Any:
        return _OrderedAgentIterator(self.env, self.max_iter)


class _OrderedAgentIterator(order_enforcing.AECOrderEnforcingIterator):
    """PettingZoo's loop check, refusing with :class:`CallOrderError` instead of a bare assert."""

    def __next__(self) -> Any:
        if not self.env._has_updated:  # type: ignore[attr-defined]
            raise CallOrderError("agent_iter(): call step() (or reset()) before asking for the next agent")
        return super().__next__()


def wrap(aec: AECEnv) -> AECEnv:
    """Wrap a raw env as PettingZoo's classic envs are: terminate on an illegal move
    (reward -1 to the mover), assert actions in bounds, enforce the call order."""
    return _OrderEnforcing(_AssertOutOfBounds(_TerminateIllegal(aec, illegal_reward=-1)))
