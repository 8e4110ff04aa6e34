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
same answers. The outer order enforcing keeps PettingZoo's attribute refusals until
the first ``reset``; after it its ``observe``, ``last`` and ``step`` are one plain
fast path doing what the three layers do (see :class:`_OrderEnforcing`).

Refusals are the package's errors (:mod:`gin3_env.envs.errors`), not PettingZoo's
bare ``AssertionError``: a call before ``reset`` is a ``ResetNeededError``, an
action outside the action space (or ``None`` for the agent to act) an
``ActionOutOfRangeError`` (an ``AssertionError`` too, as PettingZoo's check), the next agent of ``agent_iter``
without a ``step`` a ``CallOrderError``. A refused call changes nothing: the wrappers'
flags and the illegal-move wrapper's cached observation are put back.

PettingZoo versions. The fast stack reads the internals of PettingZoo 1.27's wrappers
(``TerminateIllegalWrapper._prev_info`` and ``_terminated``, a ``BaseWrapper`` that sets no
attributes of its own): :data:`FAST_STACK` says whether the installed PettingZoo is of that
line. On 1.24 to 1.26 (and any later line, until it is checked) :func:`wrap` builds
PettingZoo's own classic stack instead: the same game
and the same answers, at PettingZoo's speed (``python -m gin3_env.benchmarks.wrappers``
measures the two on one machine: the fast stack plays about 2.8 times the steps per CPU
second of PettingZoo's on 1.27), with PettingZoo's own refusals (its bare assertions).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import pettingzoo
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from ..errors import ActionOutOfRangeError, CallOrderError, ResetNeededError
from .errors import action_value, describe_action

__all__ = ["FAST_STACK", "ActionSpace", "wrap"]


def _release(version: str) -> tuple[int, ...]:
    """``"1.27.0"`` -> ``(1, 27)``; the digits of each of the first two parts."""
    parts = []
    for part in version.split(".")[:2]:
        digits = "".join(ch for ch in part if ch.isdigit()) or "0"
        parts.append(int(digits))
    return tuple(parts)


# whether the installed PettingZoo's wrappers have the internals the fast stack reads: the 1.27
# line, the one tests/test_wrapping.py holds it to; any other release gets PettingZoo's own stack
FAST_STACK = _release(pettingzoo.__version__) == (1, 27)

# Attributes read on the wrappers at every step.
_HOT = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``contains`` answers a plain ``int`` without numpy.

    ``AssertOutOfBoundsWrapper`` calls ``contains`` at every step; gymnasium's goes
    through ``np.iinfo`` and ``np.can_cast``. The answers are the same for every input."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # the space's range as plain ints (start and n are numpy ints), set here rather than at the
        # first contains(): a call refused by the bounds check leaves the env byte for byte the same
        self._bounds = range(int(self.start), int(self.start) + int(self.n))

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            bounds = self.__dict__.get("_bounds")
            if bounds is None:  # the space's range as plain ints, once (start and n are numpy ints)
                bounds = self._bounds = range(int(self.start), int(self.start) + int(self.n))
            return x in bounds
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
        raw = self._raw
        agent = raw.agent_selection
        check_in_space(raw, agent, action, raw.terminations[agent] or raw.truncations[agent])
        wrappers.BaseWrapper.step(self, action)  # the stock wrapper's step is its assert, then this


def check_in_space(raw: AECEnv, agent: str, action: Any, dead: bool) -> int | None:
    """What ``AssertOutOfBoundsWrapper`` asserts (``None`` only for a finished agent, else in the
    space), as an :class:`ActionOutOfRangeError` naming the action, the space and what is wrong;
    returns the action as an int (``None`` for ``None``).

    Integers are plain ints, numpy integers and 0-d integer arrays; a bool, a float, a string or
    an array is refused whatever its value."""
    space = raw.action_space(agent)
    if type(action) is int and space.contains(action):
        return action
    if action is None:
        if dead:
            return None
        raise ActionOutOfRangeError(f"{agent} is to act: the action must be an int 0..{int(space.n) - 1}, not None")
    value = action_value(action)
    if value is None:
        got = describe_action(action)
    elif space.contains(value):
        return value
    else:
        got = f"{value} (out of range)"
    raise ActionOutOfRangeError(
        f"action {action!r:.60} is not in {agent}'s action space {space} (ids 0..{int(space.n) - 1}): "
        f"the action must be an int 0..{int(space.n) - 1}, got {got}"
    )


_BEFORE_RESET = frozenset(
    {"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"}
)


def _checked(name: str) -> property:
    read = attrgetter(f"_raw.{name}")

    def get(self: _OrderEnforcing) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return read(self)

    return property(get, doc=f"The raw env's ``{name}`` (after the first reset).")


class _FastIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, reading the raw env in one hop; its loop
    check refuses with :class:`CallOrderError` instead of a bare ``assert``."""

    def __next__(self) -> Any:
        env = self.env
        raw = env._raw
        if not raw.agents or self.iters_til_term <= 0:  # AECIterator.__next__
            raise StopIteration
        if not env._has_updated:  # checked before anything changes: a refused next() uses up nothing
            raise CallOrderError("agent_iter(): call step() (or reset()) before asking for the next agent")
        self.iters_til_term -= 1
        env._has_updated = False
        return raw.agent_selection


class _FastIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _FastIterator:
        return _FastIterator(self.env, self.max_iter)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing with one plain fast path after the first ``reset``.

    Before the first reset everything goes through PettingZoo's classes (and is refused
    as they refuse it). After it, ``observe``, ``last`` and ``step`` do in one call what the
    three stacked wrappers do layer by layer (the same checks, the same bookkeeping on
    the ``TerminateIllegalWrapper`` below), and attributes are read on the raw env in one hop.
    An action is checked once: in the space, then legal by the mask; the raw env then plays it
    (``_play``) without checking it again. ``tests/test_wrapping.py`` plays this stack and
    PettingZoo's own side by side and requires the same answers."""

    def __init__(self, env: AECEnv) -> None:
        self._raw = env.unwrapped
        layer = env
        while not isinstance(layer, wrappers.TerminateIllegalWrapper):
            layer = layer.env
        self._illegal = layer
        super().__init__(env)

    def __getattr__(self, name: str) -> Any:
        if name in _BEFORE_RESET and not self.__dict__.get("_has_reset", False):
            raise AttributeError(f"{name} cannot be accessed before reset")
        return _OneHop.__getattr__(self, name)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # PettingZoo's wrappers update their flags before the env checks the arguments: a
        # refused reset puts every layer back as it was
        layers = []
        env: Any = self
        while isinstance(env, wrappers.BaseWrapper):
            layers.append((env, dict(env.__dict__)))
            env = env.env
        try:
            super().reset(seed=seed, options=options)
        except BaseException:
            for layer, saved in layers:
                layer.__dict__.clear()
                layer.__dict__.update(saved)
            raise

    # before the first reset: the package's ResetNeededError (PettingZoo raises bare AssertionErrors)
    def _before_reset(self, method: str) -> ResetNeededError:
        return ResetNeededError(f"{method}() before reset(): call reset() first")

    def render(self) -> Any:
        if not self._has_reset:
            raise self._before_reset("render")
        return super().render()

    def state(self) -> Any:
        if not self._has_reset:
            raise self._before_reset("state")
        return super().state()

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        if not self._has_reset:
            raise self._before_reset("agent_iter")
        return _FastIterable(self, max_iter)

    def observe(self, agent: Any) -> Any:
        if not self._has_reset:
            raise self._before_reset("observe")
        raw = self._raw
        obs = raw.observe(agent)  # an unknown agent is refused here, before anything is noted
        if agent == raw.agent_selection:  # what TerminateIllegalWrapper.observe notes
            layer = self._illegal
            layer._prev_obs = obs
            layer._prev_info = raw.infos.get(agent, {})
        return obs

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise self._before_reset("last")
        raw = self._raw
        if not raw.agents:  # as the raw env's last() (the stock stack's last ends there)
            raise ResetNeededError("last() after the end: every agent has left the finished episode; call reset()")
        agent = raw.agent_selection
        observation = None
        if observe:  # self.observe(agent), inlined: the agent is the one selected
            observation = raw.observe(agent)
            layer = self._illegal
            layer._prev_obs = observation
            layer._prev_info = raw.infos.get(agent, {})
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise self._before_reset("step")
        raw = self._raw
        if not raw.agents:
            super().step(action)  # PettingZoo's warning after the end
            return
        layer = self._illegal
        # a refused step (out of range here, or refused by the raw env) changes nothing: the flag
        # and the cached observation PettingZoo's layers update before the env may refuse are put back
        saved = self._has_updated, layer._prev_obs, layer._prev_info  # type: ignore[has-type]
        self._has_updated = True
        try:
            agent = raw.agent_selection
            dead = raw.terminations[agent] or raw.truncations[agent]
            # AssertOutOfBoundsWrapper.step
            value = check_in_space(raw, agent, action, dead)
            # TerminateIllegalWrapper.step
            if layer._prev_obs is None:
                layer.observe(agent)
            prev = layer._prev_obs
            if isinstance(prev, dict):
                assert "action_mask" in prev, f"`action_mask` not found in dictionary observation: {prev}"
                mask = prev["action_mask"]
            else:
                assert layer._prev_info is not None and "action_mask" in layer._prev_info
                mask = layer._prev_info["action_mask"]
            layer._prev_obs = None
            layer._prev_info = None
            if dead:  # what the raw env's step does for a finished agent
                raw._was_dead_step(action)
            elif not mask[value]:
                EnvLogger.warn_on_illegal_move()
                raw._cumulative_rewards[agent] = 0
                raw.terminations = dict.fromkeys(raw.agents, True)
                raw.truncations = dict.fromkeys(raw.agents, True)
                raw.rewards = dict.fromkeys(raw.truncations, 0)
                raw.rewards[agent] = float(layer._illegal_value)
                raw._accumulate_rewards()
                raw._deads_step_first()
                layer._terminated = True
            else:  # an int in range, legal by the mask: the raw env plays it without checking it again
                raw._play(value)
        except BaseException:
            self._has_updated, layer._prev_obs, layer._prev_info = saved
            raise

    def __str__(self) -> str:
        return str(self.env)  # as the stock wrapper prints itself: the env's name


for _name in _HOT:
    if _name != "_cumulative_rewards":
        setattr(_OrderEnforcing, _name, _checked(_name))
_OrderEnforcing._cumulative_rewards = property(attrgetter("_raw._cumulative_rewards"))


def wrap(aec: AECEnv) -> AECEnv:
    """Wrap a raw env as PettingZoo's classic envs are: terminate on an illegal move
    (reward -1 to the mover), assert actions in bounds, enforce the call order (the fast
    stack where the installed PettingZoo allows it, else PettingZoo's own; see the module doc)."""
    if not FAST_STACK:
        return wrappers.OrderEnforcingWrapper(
            wrappers.AssertOutOfBoundsWrapper(wrappers.TerminateIllegalWrapper(aec, illegal_reward=-1))
        )
    return _OrderEnforcing(_AssertOutOfBounds(_TerminateIllegal(aec, illegal_reward=-1)))
