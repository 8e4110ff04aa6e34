"""Every env method called in the wrong state, or with a bad argument, names the problem and changes nothing.

Hand-written cases for each refusal, then hypothesis stateful testing: random sequences of
calls (reset with good and bad seeds and options, step with legal, illegal and mistyped
actions, observe/last/render/agent_iter/spaces with good and bad agents, whole episodes
played to the end and past it) through the AEC hand and match envs (raw and wrapped) and the
Gymnasium envs, and the batched ``gin3_env.vector`` envs (``VectorHands``, ``vector_env``,
``sb3_vec_env``: step with actions spoilt in one hand, of the wrong shape or dtype, before reset;
reseeding, masks, SB3's step_async/step_wait/env_method/get_attr).
Each call either works or raises one of the package's errors
(:mod:`gin3_env.envs.errors`, the engine's ``IllegalActionError``, a ``ValueError`` naming a
bad reset option); never an ``AttributeError``, ``KeyError``, ``TypeError`` or a bare
``AssertionError``; and a refused call leaves the env exactly as it was (its pickle).

A new env joins by writing a :class:`Driver` (a :class:`BatchDriver` for a batched one) for it
and one ``TestX = machine(XDriver()).TestCase`` line.
"""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest
from conftest import examples
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

import gin3_env
from gin3_env.envs import aec_hand, aec_match
from gin3_env.envs.single_agent import ThreeHandedGinEnv
from gin3_env.envs.single_agent_match import ThreeHandedGinMatchEnv
from gin3_env.errors import (
    ActionOutOfRangeError,
    CallOrderError,
    EnvUsageError,
    IllegalActionError,
    InvalidActionError,
    InvalidSeedError,
    ResetNeededError,
    UnknownAgentError,
)

warnings.filterwarnings("ignore", module="pettingzoo")
warnings.filterwarnings("ignore", message=".*illegal.*")

BAD_ACTIONS = ["draw", 1.5, True, False, np.float32(1.0), np.array([1, 2]), [0], -1, 107, 10**9, object()]
GOOD_TYPED = [np.int64(0), np.int8(1), np.array(2)]
BAD_AGENTS = ["nobody", "", 0, None, ["team_0"], ("box_0",)]
BAD_SEEDS = [-1, "seed", 1.5, True, [1, 2]]
DECK = list(range(52))


# ------------------------------------------------------------ hand-written
@pytest.mark.parametrize("make", [aec_hand.raw_env, aec_hand.env, aec_match.raw_env, aec_match.env],
                         ids=["hand_raw", "hand_wrapped", "match_raw", "match_wrapped"])
def test_aec_calls_before_reset(make: Callable[[], Any]) -> None:
    env = make()
    agent = env.possible_agents[0]
    with pytest.raises(ResetNeededError, match=r"step\(\) before reset\(\)"):
        env.step(0)
    with pytest.raises(ResetNeededError, match="reset"):
        env.observe(agent)
    with pytest.raises(ResetNeededError, match=r"last\(\) before reset\(\)"):
        env.last()
    with pytest.raises(ResetNeededError, match=r"agent_iter\(\) before reset\(\)"):
        env.agent_iter()
    with pytest.raises(UnknownAgentError, match="unknown agent 'nobody'"):
        env.action_space("nobody")
    with pytest.raises(UnknownAgentError, match=r"unknown agent \['x'\]"):
        env.observation_space(["x"])
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection


@pytest.mark.parametrize("make", [aec_hand.raw_env, aec_hand.env], ids=["raw", "wrapped"])
def test_aec_hand_bad_actions_and_agents(make: Callable[[], Any]) -> None:
    env = make()
    env.reset(seed=3)
    before = pickle.dumps(env)
    kind = ActionOutOfRangeError if make is aec_hand.env else InvalidActionError
    for action, says in [("draw", "got str 'draw'"), (1.5, "got float 1.5"), (True, "got a bool"),
                         (np.array([1, 2]), "an array of shape (2,)"), (107, "107 (out of range)"),
                         (None, "team_0 is to act")]:
        with pytest.raises(kind) as caught:
            env.step(action)
        assert says in str(caught.value)
    for agent in BAD_AGENTS:
        with pytest.raises(UnknownAgentError, match="unknown agent"):
            env.observe(agent)
    with pytest.raises(InvalidSeedError, match="seed must be None or an int >= 0, got -1"):
        env.reset(seed=-1)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"decks": []})
    assert pickle.dumps(env) == before


def _finish(env: Any) -> None:
    """Play the first legal action until the episode is over (every agent done)."""
    for _ in range(2000):
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            return
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    raise AssertionError("the episode did not end")


@pytest.mark.parametrize("make", [aec_hand.raw_env, aec_hand.env], ids=["raw", "wrapped"])
def test_aec_step_after_the_end(make: Callable[[], Any]) -> None:
    env = make()
    env.reset(seed=1)
    _finish(env)
    first = env.agent_selection
    with pytest.raises(InvalidActionError, match=f"{first} is done .*only valid action is None"):
        env.step(0)
    while env.agents:
        env.step(None)
    if make is aec_hand.raw_env:
        with pytest.raises(ResetNeededError, match="after the end"):
            env.step(None)
        with pytest.raises(ResetNeededError, match="after the end"):
            env.last()
    env.reset(seed=1)  # and it plays again
    assert env.agents == env.possible_agents


@pytest.mark.parametrize("make", [ThreeHandedGinEnv, ThreeHandedGinMatchEnv])
def test_gymnasium_env_misuse(make: type) -> None:
    env = make(opponent="random")
    with pytest.raises(ResetNeededError, match="reset"):
        env.step(0)
    with pytest.raises(ResetNeededError, match="reset"):
        env.action_masks()
    assert isinstance(ResetNeededError("x"), gymnasium.error.ResetNeeded)
    env.reset(seed=2)
    before = pickle.dumps(env)
    for action in BAD_ACTIONS:
        with pytest.raises(InvalidActionError, match=r"must be an int 0\.\.106"):
            env.step(action)
    for seed in BAD_SEEDS:
        with pytest.raises(InvalidSeedError):
            env.reset(seed=seed)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(seed=5, options={"nope": 1})
    assert pickle.dumps(env) == before  # refused resets did not reseed or redeal


# -------------------------------------------------------------- stateful
def allowed(exc: BaseException, call: str) -> bool:
    """One of the package's named errors (a plain ValueError only for reset's options and decks)."""
    if not str(exc).strip():
        return False
    if isinstance(exc, EnvUsageError | IllegalActionError | gymnasium.error.ResetNeeded):
        return True
    return call == "reset" and type(exc) is ValueError


class Driver:
    """How the state machine drives one kind of env: build it, the calls it offers, its state."""

    name = "env"
    aec = True

    def make(self) -> Any:
        raise NotImplementedError

    def snapshot(self, env: Any) -> bytes:
        """The whole state of the env (a refused call must leave it byte for byte the same)."""
        return pickle.dumps(env)

    def reset_options(self) -> st.SearchStrategy[Any]:
        return st.none()

    def legal_action(self, env: Any) -> Any:
        """A legal action for whoever is to act now (None for a finished agent), or None to skip."""
        raise NotImplementedError

    def done(self, env: Any) -> bool:
        raise NotImplementedError


class AECDriver(Driver):
    def __init__(self, name: str, factory: Callable[[], Any], options: st.SearchStrategy[Any]) -> None:
        self.name, self.factory, self.options = name, factory, options

    def make(self) -> Any:
        return self.factory()

    def reset_options(self) -> st.SearchStrategy[Any]:
        return self.options

    def legal_action(self, env: Any) -> Any:
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            return None
        return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])

    def done(self, env: Any) -> bool:
        return not env.agents


class GymDriver(Driver):
    aec = False

    def __init__(self, name: str, factory: Callable[[], Any], options: st.SearchStrategy[Any]) -> None:
        self.name, self.factory, self.options = name, factory, options

    def make(self) -> Any:
        return self.factory()

    def snapshot(self, env: Any) -> bytes:
        return pickle.dumps(env.unwrapped)  # gymnasium's wrappers keep first-call flags of their own

    def reset_options(self) -> st.SearchStrategy[Any]:
        return self.options

    def legal_action(self, env: Any) -> Any:
        return int(np.flatnonzero(env.unwrapped.action_masks())[0])

    def done(self, env: Any) -> bool:
        return bool(env.unwrapped._ended)


_hand_options = st.one_of(st.none(), st.just({"deck": DECK}), st.just({"deck": DECK[:51]}),
                          st.just({"deck": [0] * 52}), st.just({"nope": 1}), st.just("deck"))
# scores one point short of the target: the first hand won ends the match
_match_options = st.one_of(st.none(), st.just({"scores": [99, 99, 99]}), st.just({"scores": [100, 0, 0]}),
                           st.just({"roles": {"box": 0, "captain": 0, "sitter": 1}}), st.just({"decks": [DECK]}),
                           st.just({"decks": "x"}), st.just({"nope": 1}))


def machine(driver: Driver) -> type[RuleBasedStateMachine]:
    """A state machine driving ``driver``'s env with random call sequences."""

    class EnvMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.env = driver.make()
            self.started = False

        def call(self, name: str, fn: Callable[[], Any]) -> bool:
            """Run one call; True if it worked. A refusal must be a named error and change nothing."""
            before = driver.snapshot(self.env)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fn()
            except Exception as exc:
                assert allowed(exc, name), f"{driver.name}.{name}: {type(exc).__name__}: {exc}"
                after = driver.snapshot(self.env)
                assert after == before, f"{driver.name}.{name} was refused ({exc}) but changed the env"
                return False
            return True

        @rule(seed=st.one_of(st.none(), st.integers(0, 2**32), st.sampled_from(BAD_SEEDS)),
              options=driver.reset_options())
        def reset(self, seed: Any, options: Any) -> None:
            if self.call("reset", lambda: self.env.reset(seed=seed, options=options)):
                self.started = True

        @rule(action=st.one_of(st.integers(-2, 110), st.none(), st.sampled_from(BAD_ACTIONS + GOOD_TYPED)))
        def step_anything(self, action: Any) -> None:
            self.call("step", lambda: self.env.step(action))

        @precondition(lambda self: self.started)
        @rule(moves=st.integers(1, 40))
        def play_legal(self, moves: int) -> None:
            for _ in range(moves):
                if driver.done(self.env):
                    return
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    self.env.step(driver.legal_action(self.env))  # a legal action: it must work

        @precondition(lambda self: self.started)
        @rule()
        def play_to_the_end(self) -> None:
            for _ in range(1000):
                if driver.done(self.env):
                    return
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    self.env.step(driver.legal_action(self.env))  # a legal action: it must work

        @rule()
        def render(self) -> None:
            self.call("render", self.env.render)

        if driver.aec:

            @rule(agent=st.one_of(st.sampled_from(driver.make().possible_agents), st.sampled_from(BAD_AGENTS)))
            def observe(self, agent: Any) -> None:
                self.call("observe", lambda: self.env.observe(agent))

            @rule(agent=st.one_of(st.sampled_from(driver.make().possible_agents), st.sampled_from(BAD_AGENTS)))
            def spaces(self, agent: Any) -> None:
                self.call("action_space", lambda: self.env.action_space(agent))
                self.call("observation_space", lambda: self.env.observation_space(agent))

            @rule(observe=st.booleans())
            def last(self, observe: bool) -> None:
                self.call("last", lambda: self.env.last(observe))

            @rule()
            def agent_iter(self) -> None:
                self.call("agent_iter", lambda: next(iter(self.env.agent_iter()), None))

        else:

            @rule()
            def action_masks(self) -> None:
                self.call("action_masks", self.env.unwrapped.action_masks)

    EnvMachine.__name__ = f"{driver.name}Machine"
    EnvMachine.TestCase.settings = settings(
        max_examples=examples(25), stateful_step_count=25, deadline=None, suppress_health_check=list(HealthCheck)
    )
    return EnvMachine


TestHandRaw = machine(AECDriver("hand_raw", aec_hand.raw_env, _hand_options)).TestCase
TestHandWrapped = machine(AECDriver("hand_wrapped", gin3_env.env, _hand_options)).TestCase
TestMatchRaw = machine(AECDriver("match_raw", aec_match.raw_env, _match_options)).TestCase
TestMatchWrapped = machine(AECDriver("match_wrapped", aec_match.env, _match_options)).TestCase
# gymnasium's passive env checker is left out: after a refused first reset its own bookkeeping
# breaks (TypeError in env_data_reuse_passive_checker, gymnasium 1.x), whatever the env
TestGymHand = machine(GymDriver("gym_hand", lambda: gymnasium.make("gin3/ThreeHandedGin-v0", opponent="random",
                                                                   disable_env_checker=True),
                                st.one_of(_hand_options, st.just({"learner": "box"}), st.just({"learner": "x"})))
                      ).TestCase
TestGymMatch = machine(GymDriver("gym_match", lambda: gymnasium.make("gin3/ThreeHandedGinMatch-v0",
                                                                     opponent="random", disable_env_checker=True),
                                 st.one_of(_match_options, st.just({"learner": 2}), st.just({"learner": 5})))
                       ).TestCase


# ------------------------------------------------------------ batched envs
NUM_BATCH = 3
# how a step's actions are spoilt: (kind, the fault is one hand's)
SPOILS = ["legal", "legal", "illegal", "range_low", "range_high", "float", "whole_float", "nan", "bool", "string",
          "object", "short", "long", "column", "ragged", "none"]


def spoilt_actions(masks: np.ndarray | None, kind: str, hand: int) -> Any:
    """Legal actions for each hand (0s when the masks cannot be read), spoilt as ``kind`` at ``hand``."""
    n = NUM_BATCH
    acts = np.zeros(n, np.int64) if masks is None else np.array([int(np.flatnonzero(m)[0]) for m in masks])
    if kind == "illegal" and masks is not None:
        acts[hand] = int(np.flatnonzero(~masks[hand].astype(bool))[0])
    elif kind in ("range_low", "range_high"):
        acts[hand] = -1 if kind == "range_low" else 107
    elif kind in ("float", "nan"):
        out = acts.astype(np.float64)
        out[hand] = 1.5 if kind == "float" else np.nan
        return out
    elif kind == "whole_float":
        return acts.astype(np.float32)
    elif kind == "bool":
        return np.ones(n, dtype=bool)
    elif kind == "string":
        return np.array(["draw"] * n)
    elif kind == "object":
        return np.array([object()] * n)
    elif kind == "short":
        return acts[:-1]
    elif kind == "long":
        return np.concatenate([acts, acts])
    elif kind == "column":
        return acts[:, None]
    elif kind == "ragged":
        return [[0, 1], [2]] + [[0]] * (n - 2)
    elif kind == "none":
        return None
    return acts


class BatchDriver:
    """How the batched state machine drives one batched env."""

    name = "batch"
    sb3 = False
    starts_dealt = False  # VectorHands deals in its constructor: no reset needed
    illegal_refused = False  # VectorHands refuses illegal actions; the learner envs end that episode instead

    def make(self) -> Any:
        raise NotImplementedError

    def reset(self, env: Any, seed: Any, options: Any) -> Any:
        return env.reset(seed=seed, options=options)

    def step(self, env: Any, actions: Any) -> Any:
        return env.step(actions)

    def masks(self, env: Any) -> np.ndarray:
        return env.action_masks()

    def state(self, env: Any) -> tuple[np.ndarray, np.ndarray, bytes]:
        """Observations, masks (read without the env's checks) and the whole state as bytes."""
        core = env.core
        return core.observe(), core.hands._mask.copy(), pickle.dumps(env)


class VectorHandsDriver(BatchDriver):
    name = "vector_hands"
    starts_dealt = True
    illegal_refused = True

    def make(self) -> Any:
        from gin3_env.vector import VectorHands

        return VectorHands(NUM_BATCH, seed=0)

    def reset(self, env: Any, seed: Any, options: Any) -> Any:
        return env.reset(seed=seed)

    def masks(self, env: Any) -> np.ndarray:
        return env.action_mask.astype(bool)

    def state(self, env: Any) -> tuple[np.ndarray, np.ndarray, bytes]:
        return env.observe(), env.action_mask, pickle.dumps(env)


class GymVectorDriver(BatchDriver):
    name = "vector_env"

    def make(self) -> Any:
        return gin3_env.vector_env(NUM_BATCH, opponent="random", seed=0)


class SB3VectorDriver(BatchDriver):
    name = "sb3_vec_env"
    sb3 = True

    def make(self) -> Any:
        return gin3_env.sb3_vec_env(NUM_BATCH, opponent="random", seed=0)

    def reset(self, env: Any, seed: Any, options: Any) -> Any:
        env.seed(seed)
        return env.reset()


def batch_allowed(exc: BaseException) -> bool:
    """One of the package's named errors, with a message."""
    return bool(str(exc).strip()) and isinstance(exc, EnvUsageError)


def batch_machine(driver: BatchDriver) -> type[RuleBasedStateMachine]:
    """A state machine driving ``driver``'s batched env with random call sequences."""

    class BatchMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.env = driver.make()
            self.started = driver.starts_dealt
            self.pending = False  # sb3: step_async done, step_wait not yet

        def call(self, name: str, fn: Callable[[], Any], refuse: type[BaseException] | None = None) -> Any:
            """Run one call; (True, result) if it worked. A refusal must be a named error and change
            nothing; with ``refuse`` the call must be refused with that error."""
            obs, masks, snap = driver.state(self.env)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = fn()
            except Exception as exc:
                assert batch_allowed(exc), f"{driver.name}.{name}: {type(exc).__name__}: {exc}"
                if refuse is not None:
                    assert isinstance(exc, refuse), f"{driver.name}.{name}: {type(exc).__name__}, not {refuse}"
                obs2, masks2, snap2 = driver.state(self.env)
                np.testing.assert_array_equal(obs2, obs, err_msg=f"{driver.name}.{name} refused, obs changed")
                np.testing.assert_array_equal(masks2, masks, err_msg=f"{driver.name}.{name} refused, masks changed")
                assert snap2 == snap, f"{driver.name}.{name} was refused ({exc}) but changed the env"
                return False, exc
            assert refuse is None, f"{driver.name}.{name} worked where it must raise {refuse.__name__}"
            return True, out

        def _masks(self) -> np.ndarray | None:
            return driver.masks(self.env) if self.started else None

        def _step(self, name: str, fn: Callable[[Any], Any], kind: str, hand: int) -> bool:
            """Try one spoilt step; True if it worked."""
            actions = spoilt_actions(self._masks(), kind, hand)
            refuse = None if self.started else ResetNeededError
            ok, out = self.call(name, lambda: fn(actions), refuse)
            if not self.started:
                return False
            must_work = kind == "legal" or (kind == "column" and driver.sb3)  # only SB3's env takes (n, 1)
            if must_work or (kind in ("illegal", "whole_float") and not driver.illegal_refused):
                assert ok, f"{driver.name}.{name} refused {kind} actions: {out}"
            if ok:
                return True
            assert isinstance(out, InvalidActionError | CallOrderError), f"{driver.name}.{name}: {out!r}"
            if kind in ("range_low", "range_high") or (kind == "illegal" and driver.illegal_refused):
                assert isinstance(out, ActionOutOfRangeError if kind != "illegal" else IllegalActionError)
                assert out.hand == hand, f"{driver.name}.{name}: {out} names hand {out.hand}, not {hand}"
                assert f"hand {hand}" in str(out) and str(actions[hand]) in str(out), str(out)
            if kind in ("float", "nan"):
                assert f"hand {out.hand}" in str(out), str(out)
                if not driver.illegal_refused:  # the learner envs take whole floats: the fault is hand's
                    assert out.hand == hand, str(out)
            return False

        @rule(seed=st.one_of(st.none(), st.integers(0, 2**32), st.sampled_from(BAD_SEEDS)),
              options=st.one_of(st.none(), st.just({}), st.just({"decks": 1}), st.just("x")))
        def reset(self, seed: Any, options: Any) -> None:
            ok, out = self.call("reset", lambda: driver.reset(self.env, seed, options))
            if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
                assert not ok and isinstance(out, InvalidSeedError), f"{driver.name}: seed {seed!r}: {out!r}"
            if ok:
                self.started, self.pending = True, False
                if not driver.starts_dealt:
                    assert driver.masks(self.env).any(axis=1).all()

        @rule(kind=st.sampled_from(SPOILS), hand=st.integers(0, NUM_BATCH - 1))
        def step(self, kind: str, hand: int) -> None:
            # a step that works consumes SB3's pending step_async; a refused one changes nothing, so
            # actions given to step_async before it are still there for step_wait
            if self._step("step", lambda a: driver.step(self.env, a), kind, hand):
                self.pending = False

        @precondition(lambda self: self.started)
        @rule(moves=st.integers(1, 30))
        def play_legal(self, moves: int) -> None:
            for _ in range(moves):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    driver.step(self.env, spoilt_actions(driver.masks(self.env), "legal", 0))  # it must work
            self.pending = False

        @rule()
        def action_masks(self) -> None:
            ok, out = self.call("action_masks", lambda: driver.masks(self.env),
                                None if self.started else ResetNeededError)
            if ok:
                assert out.shape == (NUM_BATCH, 107) and out.any(axis=1).all()

        if driver.sb3:

            @rule(kind=st.sampled_from(SPOILS), hand=st.integers(0, NUM_BATCH - 1))
            def step_async(self, kind: str, hand: int) -> None:
                if self._step("step_async", self.env.step_async, kind, hand):
                    self.pending = True  # a refused step_async leaves what was pending as it was

            @rule()
            def step_wait(self) -> None:
                refuse = ResetNeededError if not self.started else None if self.pending else CallOrderError
                self.call("step_wait", self.env.step_wait, refuse)
                self.pending = False

            @rule(indices=st.sampled_from([None, 0, [0, 2], [5], -7, "x"]))
            def env_method(self, indices: Any) -> None:
                bad = indices in ([5], -7, "x")
                refuse = ResetNeededError if not self.started and not bad else EnvUsageError if bad else None
                self.call("env_method", lambda: self.env.env_method("action_masks", indices=indices), refuse)
                self.call("env_method", lambda: self.env.env_method("nope"), AttributeError)

            @rule(name=st.sampled_from(["action_masks", "reward_scale", "render_mode", "nope", "_rng", "num_envs"]))
            def attrs(self, name: str) -> None:
                self.call("get_attr", lambda: self.env.get_attr(name),
                          AttributeError if name in ("nope", "_rng") else None)
                self.call("set_attr", lambda: self.env.set_attr(name, 1.0),
                          None if name == "reward_scale" else AttributeError)

        else:

            @rule()
            def observe(self) -> None:
                obs, masks, _ = driver.state(self.env)
                assert obs.shape[0] == NUM_BATCH and masks.shape == (NUM_BATCH, 107)

    BatchMachine.__name__ = f"{driver.name}Machine"
    BatchMachine.TestCase.settings = settings(
        max_examples=examples(25), stateful_step_count=25, deadline=None, suppress_health_check=list(HealthCheck)
    )
    return BatchMachine


TestVectorHands = batch_machine(VectorHandsDriver()).TestCase
TestGymVectorEnv = batch_machine(GymVectorDriver()).TestCase
TestSB3VecEnv = batch_machine(SB3VectorDriver()).TestCase


def test_sb3_model_lets_step_wait_use_what_a_refused_step_left_pending() -> None:
    """A refused ``step`` changes nothing, so the ``step_async`` before it is still pending and
    ``step_wait`` works, as the env documents; the state machine expects exactly that."""
    sb3_machine = batch_machine(SB3VectorDriver())()
    sb3_machine.reset(seed=0, options=None)
    sb3_machine.step_async(kind="legal", hand=0)
    sb3_machine.step(kind="nan", hand=1)  # refused
    assert sb3_machine.pending
    sb3_machine.step_wait()  # works: the actions of the step_async
    assert not sb3_machine.pending
    sb3_machine.step_wait()  # nothing pending now: CallOrderError, as the machine requires
    sb3_machine.teardown()


def test_hypothesis_runs_a_fixed_search_by_default() -> None:
    """The default profile: a fixed seed and no example database (``tests/conftest.py``)."""
    import os

    if os.environ.get("GIN3_HYPOTHESIS", "repeatable") == "repeatable":
        assert settings.default.derandomize and settings.default.database is None
    else:
        assert not settings.default.derandomize and examples(25) == 250
