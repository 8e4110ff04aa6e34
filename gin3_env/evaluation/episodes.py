"""A player's episodes as the learner of ``gin3/ThreeHandedGin-v0``, played on the batched core or on the
scalar env: what :mod:`gin3_env.evaluation.dataset` records.

:func:`batched_episodes` (``gymnasium.make_vec(ENV_ID, num_envs=...)`` and the player's batched form,
:func:`gin3_env.vector.players.as_batch`) splits the episodes evenly over its slots, each slot's first
episodes in the order they end (no bias towards short hands); :func:`scalar_episodes` (``gym.make``, one
episode at a time, optionally on given decks and roles) plays the others and is the reference the batched
transitions are tested against (tests/test_dataset.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.actions import NUM_ACTIONS
from ..engine.hand import PLAYER_NAMES
from ..game.policy import policy_name

ENV_ID = "gin3/ThreeHandedGin-v0"
DEFAULT_NUM_ENVS = 256


@dataclass(frozen=True)
class Episode:
    """One recorded episode: ``T`` learner steps."""

    observations: np.ndarray  # float32 (T+1, obs)
    actions: np.ndarray  # int64 (T,)
    rewards: np.ndarray  # float64 (T,)
    terminations: np.ndarray  # bool (T,)
    truncations: np.ndarray  # bool (T,)
    masks: np.ndarray  # bool (T+1, 107)
    deck: np.ndarray  # int64 (52,): the deck the hand was dealt from
    learner: int  # 0 the team, 1 the box

    @property
    def options(self) -> dict[str, Any]:
        """The reset options that deal this episode again in the Gymnasium env."""
        return {"deck": [int(c) for c in self.deck], "learner": PLAYER_NAMES[self.learner]}


# ------------------------------------------------------------------ players
def player_label(spec: Any) -> str:
    """The name a dataset gives its player: the spec as given (a path, a name), or the object's name."""
    return os.fspath(spec) if isinstance(spec, str | os.PathLike) else policy_name(spec)


def _seeded(spec: Any) -> bool:
    return isinstance(spec, str) and (spec == "random" or spec.startswith("search"))


def load_scalar(spec: Any, seed: int | None) -> Any:
    """The player as a scalar policy (``act(observation_dict) -> int``); random players seeded by ``seed``."""
    from ..policies import load_policy

    if not isinstance(spec, str | os.PathLike):
        return spec
    spec = os.fspath(spec)
    return load_policy(spec, seed=seed) if _seeded(spec) else load_policy(spec)


def load_batched(spec: Any, seed: int | None) -> tuple[Any, Any]:
    """(the player's batched form or None where it has none, the scalar policy loaded on the way or None)."""
    from ..vector.players import as_batch

    scalar = None
    if isinstance(spec, str | os.PathLike):
        spec = os.fspath(spec)
        if spec not in ("random", "heuristic"):
            spec = scalar = load_scalar(spec, seed)
    return as_batch(spec, seed), scalar


def player_seed(seed: int | None) -> int | None:
    """The seed of a random player: drawn from the recording's seed, apart from the env's own streams."""
    if seed is None:
        return None
    return int(np.random.SeedSequence([seed, 0x6A7]).generate_state(1)[0])


# ------------------------------------------------------------------ the two backends
def batched_episodes(
    player: Any,
    episodes: int,
    *,
    opponent: Any = "heuristic",
    seed: int | None = 0,
    num_envs: int = DEFAULT_NUM_ENVS,
    learner: str = "random",
    batch: Any = None,
) -> Iterator[Episode]:
    """``episodes`` episodes of ``player`` (its batched form, or ``batch``) on the batched core, in the
    order they end: slot ``i`` of ``min(num_envs, episodes)`` records its first ``episodes // slots`` (one
    more for the first ``episodes % slots`` slots) episodes."""
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode

    policy = batch if batch is not None else load_batched(player, player_seed(seed))[0]
    if policy is None:
        raise ValueError(f"the player {player_label(player)!r} has no batched form; use backend='scalar'")
    slots = min(int(num_envs), episodes)
    env = gym.make_vec(ENV_ID, num_envs=slots, opponent=opponent, learner=learner,
                       autoreset_mode=AutoresetMode.SAME_STEP)
    return _play_batched(env, policy, episodes, seed)  # made and checked now (a bad opponent fails here)


def _play_batched(env: Any, policy: Any, episodes: int, seed: int | None) -> Iterator[Episode]:
    core = env.unwrapped.core
    slots = env.num_envs
    try:
        obs, info = env.reset(seed=seed)
        quota = np.full(slots, episodes // slots, dtype=np.int64)
        quota[: episodes % slots] += 1
        steps: list[list[tuple[np.ndarray, np.ndarray, int, float]]] = [[] for _ in range(slots)]
        starts: list[tuple[np.ndarray, int]] = []

        def start(i: int, learner_of: np.ndarray) -> tuple[np.ndarray, int]:
            return np.asarray(core.hands.hand_state(i).deck, dtype=np.int64), int(learner_of[i])

        starts = [start(i, info["learner"]) for i in range(slots)]
        while quota.any():
            masks = info["action_mask"]
            actions = np.asarray(policy.act(obs, masks), dtype=np.int64)
            next_obs, rewards, terminated, truncated, info = env.step(actions)
            ended = terminated | truncated
            for i in np.flatnonzero(quota > 0):
                steps[i].append((obs[i], masks[i], int(actions[i]), float(rewards[i])))
                if not ended[i]:
                    continue
                rows = steps[i]
                final = info["final_obs"][i]
                yield Episode(
                    observations=np.stack([r[0] for r in rows] + [final]).astype(np.float32, copy=False),
                    actions=np.array([r[2] for r in rows], dtype=np.int64),
                    rewards=np.array([r[3] for r in rows], dtype=np.float64),
                    terminations=np.array([False] * (len(rows) - 1) + [bool(terminated[i])]),
                    truncations=np.array([False] * (len(rows) - 1) + [bool(truncated[i])]),
                    masks=np.concatenate([np.stack([r[1] for r in rows]), np.ones((1, NUM_ACTIONS), bool)]),
                    deck=starts[i][0],
                    learner=starts[i][1],
                )
                steps[i] = []
                quota[i] -= 1
                if quota[i]:
                    starts[i] = start(int(i), info["learner"])
            obs = np.array(next_obs, dtype=np.float32)  # a copy: the rows kept must not change
    finally:
        env.close()


def scalar_episodes(
    player: Any,
    episodes: int,
    *,
    opponent: Any = "heuristic",
    seed: int | None = 0,
    learner: str = "random",
    deals: Sequence[tuple[Sequence[int], int]] | None = None,
    policy: Any = None,
) -> Iterator[Episode]:
    """``episodes`` episodes of ``player`` (a scalar policy, or ``policy``) in ``gym.make(ENV_ID)``, one
    at a time: the first reset seeded with ``seed``, the others continuing its generators; with ``deals``
    (``(deck, learner)`` pairs, as :attr:`Episode.deck` and :attr:`Episode.learner`) episode ``k`` is dealt
    from ``deals[k]``."""
    import gymnasium as gym

    policy = policy if policy is not None else load_scalar(player, player_seed(seed))
    env = gym.make(ENV_ID, opponent=opponent, learner=learner)
    return _play_scalar(env, policy, episodes, seed, deals)  # made and checked now (a bad opponent fails here)


def _play_scalar(env: Any, policy: Any, episodes: int, seed: int | None,
                 deals: Sequence[tuple[Sequence[int], int]] | None) -> Iterator[Episode]:
    try:
        for k in range(episodes):
            options = None
            if deals is not None:
                deck, role = deals[k]
                options = {"deck": [int(c) for c in deck], "learner": PLAYER_NAMES[int(role)]}
            obs, info = env.reset(seed=seed if k == 0 else None, options=options)
            hand = env.unwrapped.hand
            deck_of, role_of = np.asarray(hand.deck, dtype=np.int64), int(info["learner"])
            observations, masks = [obs], [info["action_mask"]]
            actions: list[int] = []
            rewards: list[float] = []
            terminated = truncated = False
            while not (terminated or truncated):
                action = int(policy.act({"observation": obs, "action_mask": info["action_mask"].astype(np.int8)}))
                obs, reward, terminated, truncated, info = env.step(action)
                actions.append(action)
                rewards.append(float(reward))
                observations.append(obs)
                masks.append(info["action_mask"])
            n = len(actions)
            yield Episode(
                observations=np.stack(observations).astype(np.float32, copy=False),
                actions=np.array(actions, dtype=np.int64),
                rewards=np.array(rewards, dtype=np.float64),
                terminations=np.array([False] * (n - 1) + [bool(terminated)]),
                truncations=np.array([False] * (n - 1) + [bool(truncated)]),
                masks=np.stack(masks).astype(bool),
                deck=deck_of,
                learner=role_of,
            )
    finally:
        env.close()
