"""Every env's info has one schema: the same keys on every step from ``reset`` on, no ``None``
(a sentinel or a fixed-size array where a value does not apply), each value of one type, and
numbers only (ints, floats, bools, numeric arrays: no text, no list). Learning libraries stack
infos step by step and make tensors of them (Tianshou's buffers read a missing key or a ``None``
as missing data; TorchRL's ``PettingZooWrapper`` calls ``torch.as_tensor`` on each value)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import gin3_env
from experiments.knock_learner_env import ENV_ID as KNOCK_ENV_ID
from gin3_env.envs.infos import NOT_APPLICABLE, OUTCOME_CODES, outcome_name
from gin3_env.vector.gym_env import GinVectorEnv


def schema(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(path, type) of every leaf; a ``None``, a text or a list anywhere fails."""
    assert value is not None, f"None at {path or 'the top'}"
    if isinstance(value, dict):
        yield path, "dict"
        for key in sorted(value):
            yield from schema(value[key], f"{path}/{key}")
    elif isinstance(value, np.ndarray):
        assert value.dtype.kind in "biuf", f"a {value.dtype} array at {path}: numbers only"
        yield path, f"array {value.dtype.kind} {value.shape}"
    else:
        assert isinstance(value, bool | int | float | np.number), f"{type(value).__name__} at {path}: numbers only"
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
    for info in infos:  # flat: TorchRL's PettingZooWrapper makes one tensor of each value
        assert not any(isinstance(v, dict) for v in info.values()), sorted(info)
    ended = [i for i in infos if i["outcome"]]
    assert ended and {i["outcome"] for i in ended} <= set(OUTCOME_CODES.values()) - {0}
    assert any(i["knocker"] == NOT_APPLICABLE for i in infos)  # the sentinel, before the end


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
    infos, ended = [info], 0  # reset's info has the keys of every step's
    for _ in range(120):
        acts = [rng.choice(np.flatnonzero(m)) for m in info["action_mask"]]
        _, _, terminated, truncated, info = env.step(np.array(acts))
        infos.append(info)
        ended += int((terminated | truncated).sum())
    assert ended > 0 and any(not (i.get("_outcome", i.get("_final_obs"))).any() for i in infos)
    check_one_schema(infos)


def test_codes_table_in_the_design_page_is_the_code() -> None:
    """docs/design.md's table of codes names each outcome code as the code does."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "design.md").read_text()
    rows = {int(m[0]): m[1].strip() for m in __import__("re").findall(r"\n  \| (-?\d) \| ([^|]*)\|", text)}
    for code in range(len(OUTCOME_CODES)):
        assert rows[code].replace(" ", "_") == outcome_name(code), (code, rows.get(code))


def test_the_knock_learners_infos_have_one_schema() -> None:
    env = gym.make(KNOCK_ENV_ID)
    rng = np.random.default_rng(0)
    infos = []
    for episode in range(6):
        _, info = env.reset(seed=episode)
        infos.append(info)
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(int(rng.integers(2)))
            infos.append(info)
            done = terminated or truncated
    check_one_schema(infos)
    assert {i["learner"] for i in infos} <= {0, 1}
