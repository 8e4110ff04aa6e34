"""The learner envs on the batched core: the scalar Gymnasium env's episodes, Gymnasium's
vector conventions, SB3's VecEnv conventions, and MaskablePPO training on it unwrapped."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode

import gin3_env
from gin3_env.envs.single_agent import ThreeHandedGinEnv
from gin3_env.observation import AUGMENTED_SIZE, OBS_SIZE
from gin3_env.policies.heuristic import SIMPLE, HeuristicPolicy
from gin3_env.vector import HeuristicBatch, LearnerHands, RandomBatch
from gin3_training.ppo.duplicate import DuplicateReward

LEARNER_OPTIONS = {"outs_weight": 2.0, "danger_weight": 0.0}  # the learner plays unlike its opponent


@pytest.mark.parametrize("role", ["team", "box"])
def test_episodes_match_the_scalar_gymnasium_env(role: str) -> None:
    """Same decks, deterministic players on both sides: the same rewards (duplicate ones too),
    final observations and results, deal by deal."""
    n_envs, n_deals = 16, 160
    rng = np.random.default_rng(4)
    decks = np.array([rng.permutation(52) for _ in range(n_deals + 2000)])
    hand_env = ThreeHandedGinEnv(learner=role, opponent=HeuristicPolicy())
    scalar = DuplicateReward(hand_env, baseline=HeuristicPolicy(SIMPLE))
    learner = HeuristicPolicy(**LEARNER_OPTIONS)
    expected: dict[int, tuple[float, np.ndarray, float]] = {}
    for k in range(n_deals):
        obs, info = scalar.reset(options={"deck": decks[k]})
        if hand_env.hand is not None and hand_env.hand.is_over:  # the opponent ended it before the learner acted
            continue
        done = False
        while not done:
            obs, reward, terminated, truncated, info = scalar.step(learner.act(
                {"observation": obs, "action_mask": info["action_mask"]}))
            done = terminated or truncated
        expected[k] = (reward, obs, info["baseline_points"])
    core = LearnerHands(n_envs, learner=role, opponent="heuristic", reward_baseline=HeuristicBatch(SIMPLE))
    obs = core.reset(decks=decks)
    batch = HeuristicBatch(**LEARNER_OPTIONS)
    got: dict[int, tuple[float, np.ndarray, float]] = {}
    for _ in range(10_000):
        if set(expected) <= set(got):
            break
        obs, rewards, terminated, truncated, extra = core.step(batch.act(obs, core.action_masks()))
        assert not extra["illegal"].any()
        for i in np.flatnonzero(extra["ended"]):
            got[int(extra["deal"][i])] = (rewards[i], extra["final_obs"][i], extra["baseline_points"][i])
    first = {k: v for k, v in got.items() if k < n_deals}
    assert sorted(first) == sorted(expected)
    for k, (reward, final_obs, base) in expected.items():
        assert first[k][0] == reward and first[k][2] == base, k
        np.testing.assert_array_equal(first[k][1], final_obs)
    assert len(expected) > n_deals * 0.9


def test_gymnasium_vector_env_conventions() -> None:
    env = gin3_env.vector_env(8, opponent="random", learner="random", seed=3)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.observation_space.shape == (8, 374) and env.single_action_space.n == 107
    obs, info = env.reset(seed=3)
    again, _ = gin3_env.vector_env(8, opponent="random", learner="random").reset(seed=3)
    assert data_equivalence(obs, again, exact=True)
    assert obs in env.observation_space
    player = RandomBatch(0)
    finals = 0
    for _ in range(300):
        masks = env.action_masks()
        assert masks.dtype == bool and masks.shape == (8, 107) and masks.any(axis=1).all()
        np.testing.assert_array_equal(masks, info["action_mask"].astype(bool))
        # the observation is the learner's own: its role one-hot matches the learner array
        assert (obs[np.arange(8), 369 + info["learner"]] == 1).all()
        obs, rewards, terminated, truncated, info = env.step(player.act(obs, masks))
        assert obs in env.observation_space and rewards.shape == (8,) and terminated.dtype == bool
        done = terminated | truncated
        assert not (rewards[~done]).any()
        if done.any():
            finals += int(done.sum())
            np.testing.assert_array_equal(info["_final_obs"], done)
            final = info["final_obs"][done]
            assert (final[:, 364 + 4] == 1).all()  # the final observation shows the hand over
            assert not (obs[done, 364 + 4]).any()  # and the slot already holds a new hand
    assert finals > 20
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.full(8, 200))
    # an illegal action ends that episode with the penalty, as the scalar env does
    masks = env.action_masks()
    acts = player.act(obs, masks)
    acts[5] = int(np.flatnonzero(~masks[5])[0])
    _, rewards, terminated, _, info = env.step(acts)
    assert terminated[5] and rewards[5] == -25.0 and info["final_info"]["illegal_action"][5]


def test_reward_scale_and_roles() -> None:
    env = gin3_env.vector_env(32, learner="box", opponent="heuristic", reward_scale=0.5, seed=0)
    obs, info = env.reset(seed=0)
    assert (info["learner"] == 1).all() and (obs[:, 370] == 1).all()
    player = HeuristicBatch()
    for _ in range(40):
        obs, rewards, terminated, truncated, info = env.step(player.act(obs, env.action_masks()))
        ended = terminated | truncated
        points = info.get("final_info", {}).get("points")
        if points is not None:
            np.testing.assert_array_equal(rewards[ended], 0.5 * points[ended])
    with pytest.raises(ValueError, match="learner"):
        gin3_env.vector_env(2, learner="captain")
    with pytest.raises(ValueError, match="opponent"):
        gin3_env.vector_env(2, opponent=42)


def test_opponent_pool_weights_and_set_opponent() -> None:
    env = gin3_env.vector_env(256, opponent=["random", "heuristic"], weights=[1, 3], seed=1)
    env.reset(seed=1)
    share = (env.core.opponent_index == 1).mean()
    assert 0.65 < share < 0.85
    env.set_opponent("random")
    assert len(env.core.pool) == 1
    with pytest.raises(ValueError, match="weights"):
        env.set_opponent(["random", "heuristic"], weights=[1])


def test_sb3_vec_env_conventions_and_masks() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    venv = VecMonitor(gin3_env.sb3_vec_env(6, opponent="heuristic", features="augmented", seed=2))
    assert is_masking_supported(venv)
    obs = venv.reset()
    assert obs.shape == (6, AUGMENTED_SIZE)
    player = RandomBatch(2)
    episodes = 0
    for _ in range(200):
        masks = get_action_masks(venv)
        assert masks.shape == (6, 107) and masks.dtype == bool
        obs, _rewards, dones, infos = venv.step(player.act(obs[:, :OBS_SIZE], masks))
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (AUGMENTED_SIZE,)
            assert "episode" in infos[i] and infos[i]["result"]["outcome"] in (1, 2, 3, 4)  # gin, knock, undercut, dead
            episodes += 1
    assert episodes > 10
    venv.env_method("set_opponent", ["random", "heuristic"], [1.0, 1.0])
    assert len(venv.venv.core.pool) == 2


def test_maskable_ppo_trains_on_the_sb3_vec_env_unwrapped() -> None:
    from sb3_contrib import MaskablePPO

    venv = gin3_env.sb3_vec_env(16, opponent="random", seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, n_epochs=2, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    assert any(not np.allclose(a.numpy(), b.detach().numpy()) for a, b in zip(before, model.policy.parameters(),
                                                                               strict=True))
    from gin3_env.vector import ModelBatch

    obs = venv.reset()
    actions = ModelBatch(model).act(obs, venv.action_masks())
    assert venv.action_masks()[np.arange(16), actions].all()


def test_the_scalar_and_the_batched_learner_take_the_same_roles() -> None:
    """One list of learner roles (envs/errors.py) and one refusal, for both single-agent envs."""
    from gin3_env.envs.errors import LEARNER_ROLES

    for role in LEARNER_ROLES:
        ThreeHandedGinEnv(learner=role).reset(seed=1)
        LearnerHands(2, learner=role, seed=1).reset(seed=1)
    for bad in ("captain", "Team", 0, None, ["team"]):
        with pytest.raises(ValueError) as scalar:
            ThreeHandedGinEnv(learner=bad)
        with pytest.raises(ValueError) as batched:
            LearnerHands(2, learner=bad)
        assert str(scalar.value) == str(batched.value)
        assert repr(bad) in str(scalar.value) and "'random' (a role drawn at each reset)" in str(scalar.value)
