"""Every env's info has one schema: the same keys on every step from ``reset`` on, no ``None``
(a sentinel or a fixed-size array where a value does not apply), each value of one type.
Learning libraries stack infos step by step (Tianshou's buffers read a missing key or a
``None`` as missing data)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import gin3_env
from gin3_env.vector.gym_env import GinVectorEnv


def schema(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, type) of every leaf; a ``None`` anywhere fails."""
    assert value is not None, f"None at {path or 'the top'}"
    if isinstance(value, dict):
        yield path, "dict"
        for key in sorted(value):
            yield from schema(value[key], f"{path}/{key}")
    elif isinstance(value, list | tuple):
        yield path, "list"
        for i, item in enumerate(value):
            yield from schema(item, f"{path}[{i}]")
    elif isinstance(value, np.ndarray):
        assert value.dtype != object, f"an object array at {path}"
        yield path, f"array {value.dtype.kind} {value.shape}"
    else:
        yield path, type(value).__name__


def check_one_schema(infos: list[Any]) -> None:
    first = list(schema(infos[0]))
    for step, info in enumerate(infos[1:], 1):
        assert list(schema(info)) == first, f"step {step}'s info differs from reset's"


def aec_infos(make: Callable[[], Any], hands: int) -> list[dict[str, Any]]:
    env = make()
    rng = np.random.default_rng(0)
    infos: list[dict[str, Any]] = []
    for episode in range(hands):
        env.reset(seed=episode)
        infos += [env.infos[a] for a in env.possible_agents]
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            infos.append(info)
            action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            infos += [env.infos[a] for a in env.agents]
    return infos


@pytest.mark.parametrize(
    ("make", "episodes"),
    [(gin3_env.env, 12), (gin3_env.raw_env, 6), (lambda: gin3_env.match_env(target_score=10), 2)],
    ids=["hand", "raw_hand", "match"],
)
def test_aec_infos_have_one_schema(make: Callable[[], Any], episodes: int) -> None:
    infos = aec_infos(make, hands=episodes)
    check_one_schema(infos)
    ended = [i for i in infos if i["outcome"]]
    assert ended and {i["outcome"] for i in ended} <= {"gin", "knock", "undercut", "dead", "truncated"}
    assert any(i["knocker"] == "" for i in infos)  # the sentinel, before the end


def gym_infos(env_id: str, episodes: int, **kwargs: Any) -> list[dict[str, Any]]:
    env = gym.make(env_id, opponent="random", **kwargs)
    rng = np.random.default_rng(0)
    infos = []
    for episode in range(episodes):
        _, info = env.reset(seed=episode)
        infos.append(info)
        done = False
        while not done:
            # now and then an unmasked action: an illegal one ends the episode (its info too)
            action = rng.integers(107) if rng.random() < 0.01 else rng.choice(np.flatnonzero(info["action_mask"]))
            _, _, terminated, truncated, info = env.step(int(action))
            infos.append(info)
            done = terminated or truncated
    return infos


@pytest.mark.parametrize(("env_id", "kwargs"), [("gin3/ThreeHandedGin-v0", {}),
                                                ("gin3/ThreeHandedGinMatch-v0", {"target_score": 10})],
                         ids=["hand", "match"])
def test_gymnasium_infos_have_one_schema(env_id: str, kwargs: dict[str, Any]) -> None:
    infos = gym_infos(env_id, 15 if env_id.endswith("Gin-v0") else 3, **kwargs)
    check_one_schema(infos)
    assert any(i["illegal_action"] for i in infos) and not all(i["illegal_action"] for i in infos)


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_vector_infos_have_one_schema(mode: str) -> None:
    env = gym.make_vec("gin3/ThreeHandedGin-v0", 8, opponent="random", autoreset_mode=mode)
    assert isinstance(env, GinVectorEnv)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    infos, ended = [], 0
    for _ in range(120):
        acts = [rng.choice(np.flatnonzero(m)) for m in info["action_mask"]]
        _, _, terminated, truncated, info = env.step(np.array(acts))
        infos.append(info)
        ended += int((terminated | truncated).sum())
    assert ended > 0 and any(not (i.get("_outcome", i.get("_final_obs"))).any() for i in infos)
    check_one_schema(infos)
