"""``env()``'s wrapper stack answers exactly as PettingZoo's own classic stack on the installed PettingZoo.

``gin3_env.envs.wrapping`` replaces the layer-by-layer calls of PettingZoo's
``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(env, -1)))``
with one fast path after the first reset. Both stacks are driven here with the same
calls (legal moves, illegal moves, out-of-range actions, steps after the end, attribute
reads before reset) and must give the same observations, rewards, ends, infos and errors.
The planned differences, each stated here:

- an out-of-range action raises ``ActionOutOfRangeError``, an ``AssertionError`` that names
  the action, where PettingZoo's bare ``assert`` says only "action is not in action space";
  the stock stack here uses that layer too;
- ``step``/``agent_iter`` before ``reset`` raise the package's ``ResetNeededError``, and the
  next agent of ``agent_iter`` without a ``step`` a ``CallOrderError``, where
  PettingZoo raises a bare ``AssertionError``: :data:`PLANNED` maps each of PettingZoo's
  errors, by its exact text, to ours, and every other answer is compared as it is.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from gin3_env.envs import aec_hand, aec_match, wrapping

# the fast stack runs on the PettingZoo line it reads the internals of; elsewhere env() is PettingZoo's own
pytestmark = pytest.mark.skipif(not wrapping.FAST_STACK, reason="env() is PettingZoo's own stack on this PettingZoo")


def stock(raw: Any) -> Any:
    """PettingZoo's classic stack, its out-of-bounds layer being ours: PettingZoo's own class whose
    bare ``assert`` became an ``ActionOutOfRangeError`` (an ``AssertionError``) naming the action."""
    return wrappers.OrderEnforcingWrapper(
        wrapping._AssertOutOfBounds(wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1))
    )


# PettingZoo's bare AssertionErrors (by their exact text) -> the errors env() raises instead
PLANNED = {
    ("AssertionError", "reset() needs to be called before step."): (
        "ResetNeededError", "step() before reset(): call reset() first"),
    ("AssertionError", "reset() needs to be called before agent_iter()."): (
        "ResetNeededError", "agent_iter() before reset(): call reset() first"),
    ("AssertionError", "need to call step() or reset() in a loop over `agent_iter`"): (
        "CallOrderError", "agent_iter(): call step() (or reset()) before asking for the next agent"),
}


def planned(log: list[Any]) -> list[Any]:
    """The stock stack's log with its errors of :data:`PLANNED` replaced by ours."""
    return [("raised", PLANNED.get(entry[1], entry[1])) if isinstance(entry, tuple) and len(entry) == 2
            and entry[0] == "raised" else entry for entry in log]


def outcome(call: Any) -> tuple[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = call()
        except Exception as exc:  # the kind and the text are compared
            return ("raised", (type(exc).__name__, str(exc)))
    return ("ok", value)


def snapshot(env: Any) -> Any:
    if not env.agents:
        return ("no agents", dict(env.rewards), dict(env._cumulative_rewards))
    obs, reward, term, trunc, info = env.last()
    return (
        env.agent_selection,
        {k: np.asarray(v).tobytes() for k, v in obs.items()},
        reward,
        term,
        trunc,
        repr(sorted(info.items())),
        dict(env.rewards),
        dict(env.terminations),
        dict(env.truncations),
        list(env.agents),
    )


def drive(env: Any, seed: int, script: np.random.Generator) -> list[Any]:
    log: list[Any] = [outcome(lambda: env.agent_selection), outcome(lambda: env.step(0))]
    log.append(outcome(lambda: env.reset(seed=seed)))
    for _ in range(400):
        log.append(snapshot(env))
        if not env.agents:
            log.append(outcome(lambda: env.step(None)))  # a step after the end: PettingZoo warns
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            action: Any = None
        else:
            mask = env.observe(agent)["action_mask"]
            roll = script.random()
            if roll < 0.02:
                action = int(np.flatnonzero(mask == 0)[0])  # illegal: the stack ends the game
            elif roll < 0.03:
                action = 500  # out of range: AssertOutOfBoundsWrapper refuses it
            elif roll < 0.04:
                action = None  # None for an agent that must act
            else:
                action = int(script.choice(np.flatnonzero(mask)))
        if script.random() < 0.3:
            log.append(outcome(lambda a=agent: env.observe(a)["action_mask"].tobytes()))
        log.append(outcome(lambda a=action: env.step(a)))
    return log


@pytest.mark.parametrize("module", [aec_hand, aec_match], ids=["hand", "match"])
@pytest.mark.parametrize("seed", range(8))
def test_env_wrappers_answer_as_pettingzoos_stack(module: Any, seed: int) -> None:
    options = {"target_score": 25} if module is aec_match else {}
    ours = drive(module.env(**options), seed, np.random.default_rng(seed))
    theirs = drive(stock(module.raw_env(**options)), seed, np.random.default_rng(seed))
    assert theirs[1] == ("raised", ("AssertionError", "reset() needs to be called before step."))  # mapped below
    assert ours == planned(theirs)


def test_wrapped_env_reads_the_raw_state_after_reset() -> None:
    env = aec_hand.env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agents
    env.reset(seed=0)
    assert env.terminations is env.unwrapped.terminations and env.agents is env.unwrapped.agents
    with pytest.raises(AttributeError, match="private"):
        _ = env._hidden_thing


def drive_iter(env: Any, seed: int) -> list[Any]:
    log: list[Any] = [outcome(lambda: env.agent_iter())]
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter(max_iter=300):
        obs, reward, term, trunc, info = env.last()
        log.append((agent, obs["observation"].tobytes(), reward, term, trunc, repr(sorted(info.items()))))
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    env.reset(seed=seed)
    twice = iter(env.agent_iter())
    next(twice)
    log.append(outcome(lambda: next(twice)))  # a second next() without a step is refused
    return log


@pytest.mark.parametrize("module", [aec_hand, aec_match], ids=["hand", "match"])
def test_agent_iter_answers_as_pettingzoos(module: Any) -> None:
    for seed in range(3):
        ours, theirs = drive_iter(module.env(), seed), drive_iter(stock(module.raw_env()), seed)
        assert theirs[0][1][0] == theirs[-1][1][0] == "AssertionError"  # PettingZoo's; ours are named (PLANNED)
        assert ours == planned(theirs)


def test_the_wrapper_benchmark_times_both_stacks_in_one_run() -> None:
    """``python -m gin3_env.benchmarks.wrappers`` plays both stacks and reports their ratio
    (the figure, measured, is in docs/design.md §6; this checks only that it is produced)."""
    from gin3_env.benchmarks import wrappers as bench

    stacks = {name: make() for name, make in bench.STACKS.items()}
    assert isinstance(stacks["ours"], wrapping._OrderEnforcing)
    assert type(stacks["pettingzoo"]) is wrappers.OrderEnforcingWrapper
    report = bench.run(seconds=0.05, rounds=2)
    assert set(report["steps_per_cpu_s"]) == {"ours", "pettingzoo"}
    assert all(len(rates) == 2 and min(rates) > 0 for rates in report["steps_per_cpu_s"].values())
    assert report["ours_over_pettingzoo"] == pytest.approx(
        report["median_steps_per_cpu_s"]["ours"] / report["median_steps_per_cpu_s"]["pettingzoo"])
    assert "ours / pettingzoo's" in bench.format_report(report)
