"""Seeded runs repeat: the Gymnasium envs give the same trajectory from ``reset(seed=...)`` for
every opponent kind and pool, in two fresh envs, after other episodes, and in another process;
Gymnasium's ``check_env`` passes for each learner seat and each kind of opponent."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gin3_env  # noqa: F401  (installs the policy loader)
from gin3_env.envs.single_agent import ThreeHandedGinEnv
from gin3_env.envs.single_agent_match import ThreeHandedGinMatchEnv

OPPONENTS: dict[str, Any] = {
    "random": "random",
    "heuristic": "heuristic",
    "gated": "gated",
    "pool": ["random", "heuristic"],
    "pool_with_model": ["random", "ppo", "random"],
}
ENVS = {"hand": ThreeHandedGinEnv, "match": ThreeHandedGinMatchEnv}


def trajectory(env: Any, seed: int, episodes: int = 3, steps: int = 60) -> str:
    """A digest of ``episodes`` episodes from ``reset(seed=seed)`` (later ones unseeded), the learner
    taking its first legal action; at most ``steps`` steps each."""
    digest = hashlib.sha256()
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed if episode == 0 else None)
        digest.update(obs.tobytes())
        for _ in range(steps):
            action = int(np.flatnonzero(env.action_masks())[0])
            obs, reward, terminated, truncated, _ = env.step(action)
            digest.update(obs.tobytes() + np.float64(reward).tobytes())
            if terminated or truncated:
                break
    return digest.hexdigest()


@pytest.mark.parametrize("kind", list(ENVS))
@pytest.mark.parametrize("name", list(OPPONENTS))
def test_a_seeded_reset_repeats_in_fresh_and_used_envs(kind: str, name: str) -> None:
    make = ENVS[kind]
    first = trajectory(make(opponent=OPPONENTS[name]), seed=11)
    assert trajectory(make(opponent=OPPONENTS[name]), seed=11) == first  # a fresh env
    used = make(opponent=OPPONENTS[name])
    trajectory(used, seed=3)
    assert trajectory(used, seed=11) == first  # the same env after other episodes


@pytest.mark.parametrize("name", ["random", "pool"])
def test_a_seeded_reset_repeats_after_set_opponent(name: str) -> None:
    env = ThreeHandedGinEnv(opponent="heuristic")
    env.set_opponent(OPPONENTS[name])
    fresh = ThreeHandedGinEnv(opponent=OPPONENTS[name])
    assert trajectory(env, seed=5) == trajectory(fresh, seed=5)


def test_a_seeded_reset_repeats_across_processes() -> None:
    code = (
        "import sys; sys.path.insert(0, 'tests'); import test_seeding as t; "
        "print(' '.join(t.trajectory(t.ENVS[k](opponent=t.OPPONENTS[n]), seed=11) "
        "for k in ('hand', 'match') for n in ('random', 'pool')))"
    )
    here = [trajectory(ENVS[k](opponent=OPPONENTS[n]), seed=11) for k in ("hand", "match") for n in ("random", "pool")]
    # this process and a new one: two string-hash seeds (PYTHONHASHSEED is random in each)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == here


# Each learner seat and each kind of opponent once: the checker's cost is the env's, and a learner or an
# opponent takes the same code whatever the other is (the random opponent object: tests/test_single_agent.py).
@pytest.mark.parametrize(("learner", "name"), [("team", "heuristic"), ("box", "gated"), ("random", "pool")])
def test_check_env_passes_over_learner_and_opponent(learner: str, name: str) -> None:
    check_env(ThreeHandedGinEnv(learner=learner, opponent=OPPONENTS[name]), skip_render_check=True)


@pytest.mark.parametrize("name", ["pool"])  # a pool of named players (a RandomPolicy object: test_single_agent.py)
def test_check_env_passes_on_the_match_env(name: str) -> None:
    check_env(ThreeHandedGinMatchEnv(opponent=OPPONENTS[name]), skip_render_check=True)
