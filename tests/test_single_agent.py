"""The Gymnasium single-agent environments: checkers, masks, rewards, opponents, MaskablePPO."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from conftest import stacked_deck
from gymnasium.utils.env_checker import check_env as gym_check_env

import gin3_env
from gin3_env.engine import HandState, parse_card, parse_cards
from gin3_env.engine.actions import PASS, TAKE_DISCARD, knock_action
from gin3_env.envs.infos import OUTCOME_CODES
from gin3_env.envs.single_agent import ThreeHandedGinEnv
from gin3_env.envs.single_agent_match import ThreeHandedGinMatchEnv
from gin3_env.observation import MATCH_OBS_SIZE, OBS_SIZE, encode
from gin3_env.policies import HeuristicPolicy, RandomPolicy
from gin3_training.ppo.duplicate import DuplicateReward

GIN_TEAM = "AC 2C 3C 4D 5D 6D 7H 8H 9H KS"
JUNK_BOX = "2D 8D TD QC 3H JH 4S 6S 8S QS"


def random_legal(env: gym.Env, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(env.action_masks())))


def play_episode(env: gym.Env, rng: np.random.Generator, **reset: object) -> tuple[float, dict]:
    _, info = env.reset(**reset)
    total, done = 0.0, False
    while not done:
        _, reward, terminated, truncated, info = env.step(random_legal(env, rng))
        total += reward
        done = terminated or truncated
    return total, info


@pytest.mark.parametrize("cls", [ThreeHandedGinEnv, ThreeHandedGinMatchEnv])
def test_gymnasium_and_sb3_checkers_pass(cls: type[gym.Env]) -> None:
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    gym_check_env(cls(opponent=RandomPolicy(seed=0)), skip_render_check=True)
    sb3_check_env(cls(opponent=RandomPolicy(seed=0)))


def test_make_by_id_and_spaces() -> None:
    env = gym.make("gin3/ThreeHandedGin-v0", opponent="random")
    assert env.observation_space.shape == (OBS_SIZE,)
    assert env.action_space.n == 107
    match = gym.make("gin3/ThreeHandedGinMatch-v0", opponent="random")
    assert match.observation_space.shape == (MATCH_OBS_SIZE,)


def test_mask_is_the_learners_legal_moves_and_obs_its_view() -> None:
    env = ThreeHandedGinEnv(learner="box", opponent=RandomPolicy(seed=1))
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    while True:
        state = env.hand
        assert state is not None and state.player == 1  # the opponent moved inside step
        assert np.array_equal(env.action_masks(), state.legal_mask().astype(bool))
        assert np.array_equal(info["action_mask"], state.legal_mask())
        assert np.array_equal(obs, encode(state.view(1)))
        obs, _, terminated, truncated, info = env.step(random_legal(env, rng))
        if terminated or truncated:
            break


def test_gin_reward_is_exact_for_each_role() -> None:
    deck = stacked_deck(GIN_TEAM, JUNK_BOX, upcard="TH")
    points = 25 + 71  # gin bonus + the box's deadwood (2+8+10+10+3+10+4+6+8+10)
    env = ThreeHandedGinEnv(learner="team", opponent=HeuristicPolicy())
    env.reset(options={"deck": deck})
    env.step(TAKE_DISCARD)
    _, reward, terminated, truncated, info = env.step(knock_action(parse_card("KS")))
    assert (reward, terminated, truncated) == (points, True, False)
    assert info["result"]["outcome"] == OUTCOME_CODES["gin"] and info["result"]["points"] == points
    assert env.unwrapped.result is not None and env.unwrapped.result.outcome == "gin"  # the text
    # The learner as box: the heuristic captain takes the upcard and goes gin before the box
    # decides anything; with a given deck the episode is then over at reset.
    env = ThreeHandedGinEnv(learner="box", opponent=HeuristicPolicy(), reward_scale=0.5)
    _, info = env.reset(options={"deck": deck})
    assert info["result"]["winner"] == 0 and env.action_masks().all()  # the team; all True at the end
    with pytest.raises(RuntimeError, match="reset"):
        env.step(PASS)


def test_hands_decided_before_the_learner_acts_are_reported_and_redealt() -> None:
    class KnockAtOnce:
        """Takes the upcard and knocks whenever it can, else plays the first legal move."""

        def act(self, observation: dict) -> int:
            legal = np.flatnonzero(observation["action_mask"])
            knocks = legal[legal >= 55]
            return int(knocks[0]) if len(knocks) else (TAKE_DISCARD if TAKE_DISCARD in legal else int(legal[0]))

    env = ThreeHandedGinEnv(learner="box", opponent=KnockAtOnce(), knock_limit=60)
    skipped = []
    for seed in range(20):
        _, info = env.reset(seed=seed)
        assert env.action_masks().any()
        assert info["hands_decided_before_learner_acted"] == len(env.skipped_hands)
        skipped += env.skipped_hands
    assert skipped and all(r["knocker"] == "team" and r["winner"] != "" for r in skipped)
    always = ThreeHandedGinEnv(learner="box", opponent=KnockAtOnce(), knock_limit=100)
    with pytest.raises(RuntimeError, match="before the learner could act"):
        always.reset(seed=0)


def test_illegal_action_ends_the_episode_with_the_penalty() -> None:
    env = ThreeHandedGinEnv(learner="team", opponent="random", illegal_penalty=30, reward_scale=0.1)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(knock_action(0))  # no knock in the opening
    assert (reward, terminated, truncated) == (pytest.approx(-3.0), True, False)
    assert info["illegal_action"] is True
    with pytest.raises(RuntimeError, match="reset"):
        env.step(PASS)


def test_opponent_by_name_object_pool_and_model_path(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    rng = np.random.default_rng(0)
    for opponent in ("random", "heuristic", RandomPolicy(seed=2), ["random", "heuristic"]):
        env = ThreeHandedGinEnv(opponent=opponent)
        play_episode(env, rng, seed=5)
    model = MaskablePPO("MlpPolicy", ThreeHandedGinEnv(opponent="random"), n_steps=64, batch_size=64)
    path = tmp_path / "model.zip"
    model.save(path)
    env = ThreeHandedGinEnv(opponent=str(path))
    play_episode(env, rng, seed=6)
    with pytest.raises(FileNotFoundError, match=r"missing\.zip"):
        ThreeHandedGinEnv(opponent=str(tmp_path / "missing.zip"))
    with pytest.raises(ValueError, match="opponent"):
        ThreeHandedGinEnv(opponent=42)
    env = ThreeHandedGinEnv(opponent="random")
    with pytest.raises(ValueError, match="weights"):
        env.set_opponent(["random", "heuristic"], weights=[1.0])


def test_bad_arguments_and_options_are_refused() -> None:
    with pytest.raises(ValueError, match="learner"):
        ThreeHandedGinEnv(learner="sitter")
    with pytest.raises(ValueError, match="render_mode"):
        ThreeHandedGinEnv(render_mode="rgb_array_list")
    with pytest.raises(TypeError, match="render_mode"):  # what SB3's make_vec_env falls back on
        ThreeHandedGinEnv(render_mode="rgb_array_list")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'gin_bonsu' for ThreeHandedGin-v0 "
                                         r"\(did you mean 'gin_bonus'\?\)"):
        ThreeHandedGinEnv(gin_bonsu=20)
    with pytest.raises(TypeError, match=r"^unexpected keyword argument 'oponent' for ThreeHandedGin-v0 "
                                         r"\(did you mean 'opponent'\?\)"):
        gym.make("gin3/ThreeHandedGin-v0", oponent="random")
    with pytest.raises(TypeError, match=r"'learnr' for ThreeHandedGinMatch-v0 \(did you mean 'learner'\?\)"):
        gym.make("gin3/ThreeHandedGinMatch-v0", learnr=0)
    env = ThreeHandedGinEnv(opponent="random")
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"dek": []})
    with pytest.raises(ValueError, match="deck"):
        env.reset(options={"deck": [0] * 52})
    with pytest.raises(ValueError, match="learner seat"):
        ThreeHandedGinMatchEnv(learner=3)


def test_match_rewards_add_up_to_the_learners_seat_total() -> None:
    rng = np.random.default_rng(1)
    for seed in range(3):
        env = ThreeHandedGinMatchEnv(learner=seed % 3, opponent=HeuristicPolicy(), target_score=40)
        total, info = play_episode(env, rng, seed=seed)
        assert env.match is not None and env.match.is_over
        # every point the learner's seat won is in its rewards; losses come as negative rewards
        won = sum(h["seat_points"][env.seat] for h in env.match.history)
        assert total <= won
        assert info["winner"] == env.match.winner
        assert info["scores"].tolist() == env.match.scores


def test_pickle_and_seeded_reset_reproduce_episodes() -> None:
    env = ThreeHandedGinEnv(opponent=RandomPolicy(seed=0), gin_bonus=20)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.rules.gin_bonus == 20
    a, _ = ThreeHandedGinEnv(opponent="heuristic").reset(seed=11)
    b, _ = ThreeHandedGinEnv(opponent="heuristic").reset(seed=11)
    assert np.array_equal(a, b)


def test_text_render_shows_the_learners_view_and_the_table_on_request() -> None:
    from gin3_env.render import render_table

    env = ThreeHandedGinEnv(opponent="random", render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    state, learner = env.hand, env.player
    assert state is not None and not state.is_over
    assert isinstance(text, str) and text == render_table(state, learner)  # the opponent's hand hidden
    assert "(hidden)" in text
    spectator = ThreeHandedGinEnv(opponent="random", render_mode="ansi", render_view="table")
    spectator.reset(seed=1)
    assert spectator.render() == render_table(state, None)  # both hands
    match = ThreeHandedGinMatchEnv(opponent="random", render_mode="ansi", learner=0)
    match.reset(seed=2)
    assert "(hidden)" in str(match.render())
    with pytest.raises(ValueError, match="render_view must be 'learner'"):
        ThreeHandedGinEnv(render_view="both")


def test_learner_random_is_a_role_drawn_each_hand_and_the_error_says_so() -> None:
    env = ThreeHandedGinEnv(opponent="random", learner="random")
    roles = set()
    for seed in range(12):
        env.reset(seed=seed)
        roles.add(env.player)
    assert roles == {0, 1}
    with pytest.raises(ValueError, match="'random' \\(a role drawn at each reset\\), got 'sitter'"):
        ThreeHandedGinEnv(learner="sitter")


def test_maskable_ppo_trains_in_subproc_vec_env_without_wrappers() -> None:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = make_vec_env(
        "gin3_env:gin3/ThreeHandedGin-v0", n_envs=2, vec_env_cls=SubprocVecEnv, env_kwargs={"opponent": "random"}
    )
    try:
        model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0)
        model.learn(total_timesteps=256)
        assert model.num_timesteps >= 256
    finally:
        vec.close()


def test_hand_state_from_the_same_deck_as_the_env() -> None:
    deck = stacked_deck(GIN_TEAM, JUNK_BOX, upcard="TS")
    env = ThreeHandedGinEnv(learner="team", opponent="random")
    env.reset(options={"deck": deck})
    assert env.hand is not None
    assert env.hand.hands == HandState.deal(deck=deck).hands
    assert sorted(env.hand.hand_cards(0)) == sorted(parse_cards(GIN_TEAM))


def test_duplicate_reward_subtracts_the_baselines_points_on_the_same_deal() -> None:
    heuristic = HeuristicPolicy()
    env = DuplicateReward(ThreeHandedGinEnv(opponent="heuristic"), baseline="heuristic")
    rng = np.random.default_rng(3)
    for seed in range(12):
        # the baseline itself as the learner scores exactly zero on every deal
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = heuristic.act({"observation": obs, "action_mask": env.action_masks().astype(np.int8)})
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert reward == 0.0
        # another learner gets its points minus the baseline's
        total, info = play_episode(env, rng, seed=seed)
        assert env.hand is not None and env.hand.result is not None
        assert total == env.hand.result.returns[env.player] - info["baseline_points"]


def test_an_unknown_keyword_is_a_type_error_as_python_raises() -> None:
    """Python refuses an unexpected keyword with a ``TypeError``; callers that retry without a
    keyword on one (TorchRL's ``GymEnv`` passes ``frameskip`` and drops it) rely on that."""

    def make_as_torchrl_does(env_id: str) -> gym.Env:
        try:
            return gym.make(env_id, frameskip=1)
        except TypeError as err:
            # TorchRL drops the keyword only when Python's own words are in the message
            assert "unexpected keyword argument 'frameskip'" in str(err) and "it takes" in str(err)
            return gym.make(env_id)

    for env_id in ("gin3/ThreeHandedGin-v0", "gin3/ThreeHandedGinMatch-v0"):
        make_as_torchrl_does(env_id).close()
    with pytest.raises(TypeError, match=r"\(did you mean 'opponent'\?\); it takes num_envs, learner, opponent"):
        gin3_env.vector_env(4, oponent="random")


@pytest.mark.parametrize("make", [lambda: ThreeHandedGinEnv(opponent="random"),
                                  lambda: ThreeHandedGinMatchEnv(opponent="random", learner=0)])
def test_render_without_a_render_mode_warns_and_returns_none_as_gymnasium_does(make: Callable[[], Any]) -> None:
    env = make()
    env.reset(seed=1)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_the_learner_is_a_role_drawn_each_hand_by_default_spelt_random_as_in_the_match_env() -> None:
    import warnings

    from gin3_env.vector.learner import LearnerHands
    from gin3_training.ppo.config import TrainConfig

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the one spelling warns nowhere
        assert ThreeHandedGinEnv().learner_role == "random"
        assert LearnerHands(2, opponent="random").learner_role == "random"
        assert TrainConfig().learner == "random"
        assert ThreeHandedGinMatchEnv().learner_seat == "random"  # the match env: a seat drawn at each reset
        roles = set()
        env = ThreeHandedGinEnv(opponent="random")
        for seed in range(12):
            env.reset(seed=seed)
            roles.add(env.player)
        assert roles == {0, 1}  # either role is drawn
        env.reset(seed=0, options={"learner": "random"})
    for gone in ("either", "captain"):  # "either" was the hand envs' other spelling: one spelling now
        with pytest.raises(ValueError, match="learner must be 'team', 'box' or 'random'"):
            ThreeHandedGinEnv(learner=gone)
        with pytest.raises(ValueError, match="config key 'learner' must be team, box or random"):
            TrainConfig(learner=gone)
