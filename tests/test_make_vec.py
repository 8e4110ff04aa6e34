"""``gymnasium.make_vec`` through every door: the batched core by the vector entry point (both
autoreset modes), Gymnasium's sync and async vector envs of the scalar env, the match id, and
Gymnasium's vector wrappers on top."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from conftest import slow_size
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import NormalizeObservation, RecordEpisodeStatistics

import gin3_env  # noqa: F401  (registers the ids)
from gin3_env.observation.state import STATE_SIZE
from gin3_env.vector.gym_env import GinVectorEnv

HAND_ID, MATCH_ID = "gin3/ThreeHandedGin-v0", "gin3/ThreeHandedGinMatch-v0"


def masked_random(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action per row; 0 where a row has none (a scalar env's finished episode,
    which the sync and async vector envs reset at the next step, ignoring the action)."""
    return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in masks])


def play(env: Any, steps: int, seed: int = 0) -> int:
    """Masked random actions from ``infos["action_mask"]``; returns the episodes ended."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    ended = 0
    for _ in range(steps):
        assert info["action_mask"].dtype == bool
        _, _, terminated, truncated, info = env.step(masked_random(info["action_mask"], rng))
        ended += int((terminated | truncated).sum())
    return ended


def test_make_vec_is_the_batched_core_with_the_keywords_passed_through() -> None:
    env = gym.make_vec(HAND_ID, num_envs=64, learner="box", opponent="random", knock_limit=5, reward_scale=0.5)
    assert isinstance(env, GinVectorEnv) and env.num_envs == 64
    assert env.core.rules.knock_limit == 5 and env.core.reward_scale == 0.5 and env.core.learner_role == "box"
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP  # Gymnasium's default, as sync/async
    same = gym.make_vec(HAND_ID, num_envs=4, autoreset_mode=AutoresetMode.SAME_STEP)
    assert same.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'oponent' .*\(did you mean 'opponent'\?\)"):
        gym.make_vec(HAND_ID, num_envs=2, oponent="random")
    with pytest.raises(ValueError, match="DISABLED"):
        gym.make_vec(HAND_ID, num_envs=2, autoreset_mode=AutoresetMode.DISABLED)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_the_vector_entry_point_survives_many_steps(mode: AutoresetMode) -> None:
    env = gym.make_vec(HAND_ID, num_envs=64, opponent="heuristic", autoreset_mode=mode)
    assert play(env, 600) > 300  # 10,000 steps in every mode: the slow test below


def test_next_step_autoreset() -> None:
    """The step that ends an episode returns its last observation and result; the next step
    ignores that slot's action (its mask is all True) and returns the new hand, reward 0."""
    env = gym.make_vec(HAND_ID, num_envs=16, opponent="heuristic", learner="random")
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=1)
    checked = 0
    for _ in range(300):
        obs, rewards, terminated, truncated, info = env.step(masked_random(info["action_mask"], rng))
        done = terminated | truncated
        if not done.any():
            continue
        assert (obs[done, 364 + 4] == 1).all()  # the last observation shows the hand over
        np.testing.assert_array_equal(info["_outcome"], done)
        assert set(info["outcome"][done]) <= {1, 2, 3, 4, 5}  # the codes of gin, knock, undercut, dead, truncated
        assert not info["outcome"][~done].any()  # 0 where no episode ended
        np.testing.assert_array_equal(info["_points"], done)
        assert (obs[done, 369 + info["learner"][done]] == 1).all()  # the learner of the ended hand
        assert info["action_mask"][done].all() and env.action_masks()[done].all()
        acts = masked_random(info["action_mask"], rng)
        acts[done] = 0  # ignored there (often illegal in the new hand)
        obs, rewards, terminated, truncated, info = env.step(acts)
        assert not rewards[done].any() and not terminated[done].any() and not truncated[done].any()
        assert not obs[done, 364 + 4].any()  # the new hand
        assert "_outcome" not in info or not info["_outcome"][done].any()
        checked += int(done.sum())
    assert checked > 30


def test_gymnasium_vector_wrappers_on_next_step() -> None:
    env = RecordEpisodeStatistics(NormalizeObservation(gym.make_vec(HAND_ID, num_envs=32, opponent="random")))
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    episodes = 0
    for _ in range(600):
        obs, _, _, _, info = env.step(masked_random(info["action_mask"], rng))
        if "episode" in info:
            episodes += int(info["_episode"].sum())
    assert episodes > 100
    assert abs(float(obs.mean())) < 1.0  # normalised observations, not the 0/1 vector


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_sync_and_async_modes_batch_the_infos(mode: str) -> None:
    """Gymnasium's vector envs of the scalar env: infos batch (a dead hand's result has no None
    where a knock's has numbers: ``dead_stock=20`` mixes the two in every batch)."""
    env = gym.make_vec(HAND_ID, num_envs=4, vectorization_mode=mode, opponent="random", dead_stock=20)
    try:
        assert play(env, 600 if mode == "sync" else 300) > 20
    finally:
        env.close()


def test_a_scalar_policy_object_as_the_opponent() -> None:
    """What ``gym.make`` takes as an opponent, ``make_vec`` takes too (played row by row)."""

    class First:
        def act(self, observation: dict) -> int:
            return int(np.flatnonzero(observation["action_mask"])[0])

    env = gym.make_vec(HAND_ID, num_envs=4, opponent=First(), learner="box")
    assert play(env, 200) > 0
    env.set_opponent([First(), "random"])
    assert [type(p).__name__ for p in env.core.pool] == ["EachRow", "RandomBatch"]
    play(env, 50)  # the pool plays


def test_match_id_falls_back_to_sync() -> None:
    env = gym.make_vec(MATCH_ID, num_envs=2, opponent="heuristic", target_score=10)
    assert isinstance(env, SyncVectorEnv)
    assert play(env, 300) >= 1


def test_state_render_and_frames() -> None:
    env = gym.make_vec(HAND_ID, num_envs=6, opponent="random", render_mode="rgb_array")
    env.reset(seed=0)
    state = env.state()
    assert state.shape == (6, STATE_SIZE) and state in env.state_space
    np.testing.assert_array_equal(state, env.core.hands.state())
    frames = env.render()
    assert len(frames) == 6 and frames[4].shape == (640, 960, 3) and frames[4].dtype == np.uint8
    np.testing.assert_array_equal(frames[-2], env.frame(4))
    env.step(masked_random(env.action_masks(), np.random.default_rng(0)))
    np.testing.assert_array_equal(frames[4], frames[4])  # drawn of the hands at the call, kept
    text = gym.make_vec(HAND_ID, num_envs=2, opponent="random", render_mode="ansi")
    text.reset(seed=0)
    assert "stock" in text.render()[1].lower()


@pytest.mark.slow
@pytest.mark.parametrize("env_id", [HAND_ID, MATCH_ID])
@pytest.mark.parametrize("vectorization", ["vector_entry_point", "sync", "async"])
@pytest.mark.parametrize("autoreset", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_64_envs_survive_10000_steps(env_id: str, vectorization: str, autoreset: AutoresetMode) -> None:
    """The full check: ``make_vec(id, 64)`` for 10,000 steps in every mode (minutes each; 2,000 in CI)."""
    if env_id == MATCH_ID and vectorization == "vector_entry_point":
        pytest.skip("the match id has no vector entry point (sync is its default)")
    how: dict[str, Any] = (
        {"autoreset_mode": autoreset} if vectorization == "vector_entry_point"
        else {"vector_kwargs": {"autoreset_mode": autoreset}}
    )
    env = gym.make_vec(env_id, num_envs=64, vectorization_mode=vectorization, opponent="random", **how)
    try:
        assert env.metadata["autoreset_mode"] is autoreset
        steps = slow_size(10_000, 2_000)
        assert play(env, steps) >= steps // 250  # episodes ended: a match of random players lasts ~150 steps
    finally:
        env.close()


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_autoreset_mode_through_vector_kwargs_as_through_the_keyword(mode: AutoresetMode) -> None:
    """``vector_kwargs={"autoreset_mode": ...}``, the spelling Gymnasium documents, builds the same
    env as the plain keyword; in sync mode it still goes to Gymnasium's vector env."""
    by_kwargs = gym.make_vec(HAND_ID, 8, vector_kwargs={"autoreset_mode": mode}, opponent="random")
    by_keyword = gym.make_vec(HAND_ID, 8, autoreset_mode=mode, opponent="random")
    assert isinstance(by_kwargs, GinVectorEnv) and by_kwargs.metadata["autoreset_mode"] is mode
    for env in (by_kwargs, by_keyword):
        env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        acts = masked_random(by_keyword.action_masks(), rng)
        a, b = by_kwargs.step(acts), by_keyword.step(acts)
        for x, y in zip(a[:4], b[:4], strict=True):
            np.testing.assert_array_equal(x, y)
    sync = gym.make_vec(HAND_ID, 2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode})
    assert isinstance(sync, SyncVectorEnv) and sync.metadata["autoreset_mode"] is mode
    sync.close()


README_LOOP_DOORS = [
    (HAND_ID, {}),
    (HAND_ID, {"vectorization_mode": "sync"}),
    (HAND_ID, {"vectorization_mode": "async"}),
    (MATCH_ID, {"target_score": 10}),
]


@pytest.mark.parametrize(("env_id", "door"), README_LOOP_DOORS, ids=["entry_point", "sync", "async", "match"])
def test_the_readme_random_loop_runs_in_every_vectorization_mode(env_id: str, door: dict[str, Any]) -> None:
    """The README's loop samples from every row's mask with ``rng.choice(np.flatnonzero(mask))``:
    a terminal observation's mask is all True in every door (docs/design.md §5), never empty."""
    envs = gym.make_vec(env_id, num_envs=4, opponent="random", **door)
    _, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        actions = [rng.choice(np.flatnonzero(mask)) for mask in info["action_mask"]]
        _, _, terminated, truncated, info = envs.step(np.array(actions))
        done = terminated | truncated
        ended += int(done.sum())
        assert info["action_mask"][done].all()
    envs.close()
    assert ended > 0


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_reset_info_has_the_keys_of_a_step_info(mode: AutoresetMode) -> None:
    env = gym.make_vec(HAND_ID, num_envs=4, opponent="random", autoreset_mode=mode)
    _, reset_info = env.reset(seed=0)
    _, _, _, _, step_info = env.step(masked_random(reset_info["action_mask"], np.random.default_rng(0)))
    assert sorted(reset_info) == sorted(step_info)
    for key, value in reset_info.items():
        if isinstance(value, np.ndarray):
            assert (value.dtype, value.shape) == (step_info[key].dtype, step_info[key].shape), key
    ended = reset_info["_outcome"] if mode is AutoresetMode.NEXT_STEP else reset_info["_final_obs"]
    assert not ended.any()  # no episode ended at reset


def test_learner_is_the_same_int_code_in_the_vector_and_the_scalar_env() -> None:
    vec = gym.make_vec(HAND_ID, num_envs=2, learner="box", opponent="random")
    scalar = gym.make(HAND_ID, learner="box", opponent="random")
    _, vinfo = vec.reset(seed=0)
    _, sinfo = scalar.reset(seed=0)
    assert vinfo["learner"].tolist() == [1, 1] and type(sinfo["learner"]) is int and sinfo["learner"] == 1


def test_make_vec_takes_max_episode_steps() -> None:
    """As Gymnasium's own vector envs: a slot's episode is truncated after that many learner steps."""
    env = gym.make_vec(HAND_ID, 8, opponent="heuristic", max_episode_steps=3)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    count, pending = np.zeros(8, dtype=int), np.zeros(8, dtype=bool)
    cuts = 0
    for _ in range(40):
        _, rewards, terminated, truncated, info = env.step(masked_random(info["action_mask"], rng))
        count[~pending] += 1  # a slot waiting for its NEXT_STEP reset takes no learner step
        done = terminated | truncated
        assert (count <= 3).all() and done[count == 3].all() and not done[pending].any()
        cut = truncated & (count == 3)
        assert (info["outcome"][cut] == 5).all() and not rewards[cut].any()  # truncated, reward 0
        cuts += int(cut.sum())
        pending, count[done] = done, 0
    assert cuts > 0
