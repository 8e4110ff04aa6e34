"""Golden observations: the vectors the envs, the features and the OpenSpiel adapter produce are pinned.

The digests were computed with the encoder as it stood before the observation package and
``PlayerView``; the vector must stay bit-identical, so a trained model keeps
seeing what it was trained on. Each digest is the first 16 hex digits of the SHA-256 of
the float32 bytes, recorded along seeded random play.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gin3_env
from gin3_env.observation.features import augment
from gin3_env.policies import RandomPolicy


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array, dtype=np.float32).tobytes()).hexdigest()[:16]


def walk(make: Callable[[], Any], seed: int, picks: set[int]) -> list[tuple[Any, ...]]:
    """Random play from ``reset(seed)``; at each step in ``picks`` every agent's observation
    digest and that of the acting agent's augmented observation; at the end every agent's."""
    env = make()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out: list[tuple[Any, ...]] = []
    step = 0
    while env.agents:
        agent = env.agent_selection
        if step in picks:
            row: list[Any] = [step] + [digest(env.observe(a)["observation"]) for a in env.possible_agents]
            row.append(digest(augment(env.observe(agent)["observation"])))
            out.append(tuple(row))
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            mask = env.observe(agent)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        step += 1
    out.append(("end", *(digest(env.observe(a)["observation"]) for a in env.possible_agents)))
    return out


HAND_PICKS = {0, 1, 2, 5, 12, 30}
HAND_GOLDEN = {
    0: [
        (0, "4d6eb73091cb4958", "31e2e4c75d3a39fb", "0be17af193d89b72"),
        (1, "8320a025b821f6fa", "3f521310025b4f13", "9057b0934164ca3d"),
        (2, "a6f8b97983886551", "8aa2f9a0d03fb477", "d57a14389310c937"),
        (5, "16ad4cc204f9e269", "e68818b2414042f4", "6f4bc1fd44b289bc"),
        (12, "9bdc4062c88fa208", "58987c0a2f1e43ba", "35e66fbc49b0f5bd"),
        (30, "6bd49db4d04f329a", "d0128ceeef6801bd", "bda097cba0f2aeda"),
        ("end", "3bc6de48fd238c15", "2b573f5369f81392"),
    ],
    1: [
        (0, "41cf766db1ae87e5", "dbfbbe663dcb3e3e", "5b1517b10a9347a1"),
        (1, "ff10f8bcbe39af15", "434b35143473ca83", "cf717b9d14a19b1d"),
        (2, "6a9353222761fd74", "5189fdc4bfb96278", "0d2b4d9d38737fb0"),
        (5, "1fc923d17d0844c0", "2260caaedf4081f1", "56271608f53226be"),
        (12, "6712210d387d6a49", "fe628a1a194a1c9e", "e5dfa5b333309ca0"),
        (30, "a1acce5062c8d961", "c60695c03b61c521", "9a08f910c030aa7a"),
        ("end", "3add2973552e201b", "fbe04b9c9008030b"),
    ],
    7: [
        (0, "ec02b0c8718f6d57", "3ba9b351c5552a07", "af455c14f54137aa"),
        (1, "8b0cdbf61a67ae7d", "bd4b0986a4b849fc", "e40993c54c429d42"),
        (2, "6c2dfc8395390c3f", "e80c69078321f66f", "b5bc47d8a4548f59"),
        (5, "b8ad8ec4d720440e", "7bb19892e6a7b41e", "b2e534d72790a595"),
        (12, "4da512e0d65db5c2", "0371fe3bcc9d131b", "e63cc06b654a024e"),
        (30, "d5efdc215987f9b2", "ef781633ab0c5433", "d7f305f5d47c31db"),
        ("end", "139b7621c0aa2c4c", "cae5cff1414beec4"),
    ],
}
MATCH_GOLDEN = [
    (0, "84a8648eb0986684", "7f8ae0497d32e8d4", "8ad7da01bcc1a5de", "334fdef368cf89ac"),
    (4, "003b277670c62dd7", "0be4f5b30899fad3", "7c53b22ee9ec05a4", "0438a5dc95fcaf4b"),
    (40, "daecb38da93a2ca9", "d38e3592954f395c", "2667de7c0ab57eb7", "9336c9aee7587db0"),
    (120, "532b4b27d1ee1f84", "6bc7e3365c2df2a5", "d9514e8376a42eb2", "316fae064526c8bc"),
    ("end", "1b7a9de56a870043", "f8720d1a9d5f4fb1", "923cc2658e627666"),
]


@pytest.mark.parametrize("seed", sorted(HAND_GOLDEN))
def test_hand_env_observations_are_pinned(seed: int) -> None:
    assert walk(gin3_env.raw_env, seed, HAND_PICKS) == HAND_GOLDEN[seed]


def test_match_env_observations_are_pinned() -> None:
    assert walk(lambda: gin3_env.match_raw_env(target_score=30), 3, {0, 4, 40, 120}) == MATCH_GOLDEN


OPENSPIEL_GOLDEN = [("6e5e748049eaade9", 9), ("5d2910037e718ca9", 19)]


def test_openspiel_adapter_observations_are_pinned() -> None:
    pytest.importorskip("pyspiel")
    from gin3_env.interop.openspiel import load_game, play_openspiel_hand

    class Recorder:
        def __init__(self) -> None:
            self.inner = RandomPolicy(seed=5)
            self.seen: list[str] = []

        def act(self, observation: dict[str, np.ndarray]) -> int:
            self.seen.append(digest(observation["observation"]) + digest(observation["action_mask"]))
            return self.inner.act(observation)

    game = load_game()
    rng = np.random.default_rng(11)
    got = []
    for our in (0, 1):
        deck = [int(c) for c in rng.permutation(52)]
        recorder = Recorder()
        play_openspiel_hand(game, recorder, our, deck)
        got.append((hashlib.sha256("".join(recorder.seen).encode()).hexdigest()[:16], len(recorder.seen)))
    assert got == OPENSPIEL_GOLDEN
