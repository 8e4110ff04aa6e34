"""Values the envs take are checked, with a message that names them: ``illegal_penalty``, a
batched env used after ``close()``, a bool inside an action list."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import gin3_env
from gin3_env.envs.single_agent import ThreeHandedGinEnv
from gin3_env.envs.single_agent_match import ThreeHandedGinMatchEnv
from gin3_env.errors import ClosedEnvError, EnvUsageError, InvalidActionError

BAD_PENALTIES = [float("nan"), float("inf"), -1.0, -1e-9, "25", True, None]
MAKERS: dict[str, Any] = {
    "hand": lambda **kw: ThreeHandedGinEnv(opponent="random", **kw),
    "match": lambda **kw: ThreeHandedGinMatchEnv(opponent="random", **kw),
    "vector_env": lambda **kw: gin3_env.vector_env(4, opponent="random", **kw),
    "sb3_vec_env": lambda **kw: gin3_env.sb3_vec_env(4, opponent="random", **kw),
}


@pytest.mark.parametrize("kind", list(MAKERS))
@pytest.mark.parametrize("penalty", BAD_PENALTIES)
def test_a_bad_illegal_penalty_is_refused_by_name(kind: str, penalty: Any) -> None:
    with pytest.raises(ValueError, match="illegal_penalty"):
        MAKERS[kind](illegal_penalty=penalty)


@pytest.mark.parametrize("kind", list(MAKERS))
def test_an_illegal_penalty_of_zero_or_more_is_taken(kind: str) -> None:
    for penalty in (0, 0.0, 25, 7.5):
        assert MAKERS[kind](illegal_penalty=penalty) is not None


def test_sb3_set_attr_checks_the_value_and_changes_nothing_when_refused() -> None:
    env = gin3_env.sb3_vec_env(4, opponent="random")
    for name, bad in (("illegal_penalty", float("nan")), ("illegal_penalty", -3.0), ("reward_scale", 0.0)):
        before = env.get_attr(name)
        with pytest.raises(ValueError, match=name):
            env.set_attr(name, bad)
        assert env.get_attr(name) == before
    env.set_attr("illegal_penalty", 10)
    assert env.get_attr("illegal_penalty") == [10.0] * 4


def test_an_illegal_action_costs_the_checked_penalty() -> None:
    env = ThreeHandedGinEnv(opponent="random", illegal_penalty=0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and info["illegal_action"] and reward == 0.0


def test_vector_env_after_close_refuses_every_call() -> None:
    env = gin3_env.vector_env(4, opponent="random", seed=0)
    env.reset(seed=0)
    env.close()
    env.close()  # closing twice is fine
    calls = {
        "reset": lambda: env.reset(seed=1),
        "step": lambda: env.step(np.zeros(4, dtype=np.int64)),
        "action_masks": env.action_masks,
        "set_opponent": lambda: env.set_opponent("heuristic"),
    }
    for name, call in calls.items():
        with pytest.raises(ClosedEnvError, match=f"{name}\\(\\) after close\\(\\)"):
            call()
    assert issubclass(ClosedEnvError, EnvUsageError)


def _legal_list(masks: np.ndarray) -> list[Any]:
    return [int(np.flatnonzero(row)[0]) for row in masks]


@pytest.mark.parametrize("flag", [True, False, np.bool_(True)])
def test_a_bool_inside_an_action_list_is_refused_like_a_bool_array(flag: Any) -> None:
    env = gin3_env.vector_env(4, opponent="random", seed=0)
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="integers"):
        env.step(np.array([0, 0, 0, 1], dtype=bool))  # a bool array: refused before
    actions = _legal_list(env.action_masks())
    actions[3] = flag
    masks = env.action_masks()
    with pytest.raises(InvalidActionError, match="hand 3") as refused:
        env.step(actions)
    assert refused.value.hand == 3 and "bool" in str(refused.value)
    np.testing.assert_array_equal(env.action_masks(), masks)  # nothing changed
    sb3 = gin3_env.sb3_vec_env(4, opponent="random", seed=0)
    sb3.reset()
    actions = _legal_list(sb3.action_masks())
    actions[1] = flag
    with pytest.raises(InvalidActionError, match="hand 1"):
        sb3.step_async(actions)
    env.step(_legal_list(env.action_masks()))  # plain ints still work
