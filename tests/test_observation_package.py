"""The observation package: features from a view equal features from the vector; the driver; sidecars."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_view import hands, play_to, players

from gin3_env.engine import HandState, MatchState, PlayerView, Rules
from gin3_env.envs.single_agent import ThreeHandedGinMatchEnv
from gin3_env.game.driver import run_hand, run_match
from gin3_env.observation import augment, augment_view, decode, encode, observe
from gin3_env.observation.features import AUGMENTED_SIZE
from gin3_env.policies import HeuristicPolicy, RandomPolicy
from gin3_env.policies.loading import model_features


@settings(max_examples=80, deadline=None)
@given(hands, players)
def test_features_from_the_view_equal_features_from_the_vector(hand, player) -> None:
    state, _ = play_to(*hand)
    view = state.view(player)
    vector = encode(view)
    assert np.array_equal(augment_view(view, vector), augment(vector))


@settings(max_examples=120, deadline=None)
@given(hands, players)
def test_the_decoder_reads_back_the_view(hand, player) -> None:
    state, _ = play_to(*hand)
    view = state.view(player)
    seen = decode(encode(view), view.rules)
    assert type(seen) is PlayerView
    assert (seen.player, seen.phase, seen.hand, seen.top, seen.pile_mask) == (
        player, view.phase, view.hand, view.top, view.pile_mask)
    assert (seen.opponent_known, seen.opponent_declined, seen.own_declined) == (
        view.opponent_known, view.opponent_declined, view.own_declined)
    assert (seen.stock_size, seen.turns, seen.stock_only, seen.rules) == (
        view.stock_size, view.turns, view.stock_only, view.rules)
    assert seen.unseen == view.unseen and seen.pile == tuple(sorted(view.pile)) and seen.own_known == 0
    if view.is_acting or view.to_act is None:  # the observation of the player to act, or of a hand that is over
        assert seen == replace(view, pile=tuple(sorted(view.pile)), own_known=0)
        assert seen.deadwood == view.deadwood and seen.legal_actions() == view.legal_actions()


def test_the_decoder_takes_the_rules_for_the_turns() -> None:
    rules = Rules(max_turns=40)
    rng = np.random.default_rng(5)
    state = HandState.deal(rules, rng=rng)
    while state.turns < 7:
        state.apply(int(rng.choice(state.legal_actions())))
        if state.is_over:
            state = HandState.deal(rules, rng=rng)
    vector = encode(state.view(state.player))
    assert decode(vector, rules).turns == state.turns
    assert decode(vector).rules == Rules() and decode(vector).turns != state.turns  # read with max_turns 200


class Illegal:
    name = "cheater"

    def act(self, observation: dict) -> int:
        return int(np.flatnonzero(observation["action_mask"] == 0)[0])


def test_run_hand_stops_where_no_policy_plays_and_names_an_illegal_one() -> None:
    state = HandState.deal(rng=np.random.default_rng(0))
    assert run_hand(state, (None, RandomPolicy(seed=0))) is None and state.player == 0  # the captain is first
    assert run_hand(state, (HeuristicPolicy(), HeuristicPolicy())) is state.result is not None
    with pytest.raises(ValueError, match="cheater"):
        run_hand(HandState.deal(rng=np.random.default_rng(1)), (Illegal(), Illegal()))


def test_run_match_reports_each_hand_with_the_roles_it_was_played_with() -> None:
    match = MatchState.start(Rules(target_score=40), rng=np.random.default_rng(3))
    seen: list = []
    ended = run_match(match, [HeuristicPolicy()] * 3, on_hand=lambda m, roles, result: seen.append(roles))
    assert match.is_over and len(ended) == len(match.history) == len(seen)
    assert [roles.to_dict() for roles, _ in ended] == [entry["roles"] for entry in match.history]
    assert match.hand_roles.to_dict() == match.history[-1]["roles"]  # the last hand's, not the next one's


def test_single_agent_match_env_checks_options_and_shows_the_last_hands_roles() -> None:
    env = ThreeHandedGinMatchEnv(learner=0, opponent="heuristic", target_score=15, render_mode="ansi")
    with pytest.raises(ValueError, match=r"decks'\]\[0\]"):
        env.reset(options={"decks": [[0, 1, 2]]})
    with pytest.raises(ValueError, match="decks"):
        env.reset(options={"decks": "AC 2C"})
    with pytest.raises(ValueError, match="scores"):
        env.reset(options={"scores": "0 0 0"})
    _, info = env.reset(seed=4)
    heuristic, done = HeuristicPolicy(), info.get("match_over_before_learner_acted", False)
    while not done:
        obs = {"observation": env._obs(), "action_mask": env.action_masks().astype(np.int8)}
        _, _, done, _, info = env.step(heuristic.act(obs))
    match = env.match
    assert match is not None and match.is_over
    roles = match.hand_roles
    assert f"Box (seat {roles.box})" in env.render()


def test_model_features_from_the_description() -> None:
    assert model_features({"features": "plain"}, AUGMENTED_SIZE) == "plain"
    assert model_features({"config": {"features": "augmented"}}, AUGMENTED_SIZE) == "augmented"
    assert model_features({}, AUGMENTED_SIZE) == "augmented" and model_features({}, 374) == "plain"
    with pytest.raises(ValueError, match="unknown features"):
        model_features({"features": "fancy"}, 374)


def test_observe_is_the_encoding_and_the_mask_of_one_view() -> None:
    state = HandState.deal(rng=np.random.default_rng(6))
    obs = observe(state.view(0))
    assert np.array_equal(obs["observation"], encode(state.view(0)))
    assert obs["action_mask"].tolist() == state.legal_mask().tolist()
    assert not observe(state.view(1))["action_mask"].any()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_view_of_a_determinised_sample_encodes_like_the_original(seed) -> None:
    from gin3_env.engine import determinise

    state, _ = play_to(seed, seed + 1, 30, "greedy", Rules())
    view = state.view(state.player)
    sample = determinise(view, np.random.default_rng(seed))
    assert np.array_equal(encode(sample.view(view.player)), encode(view))
