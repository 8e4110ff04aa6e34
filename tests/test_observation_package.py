"""The observation package: features from a view equal features from the vector; the driver; sidecars."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_view import hands, play_to, players

from gin3_env.engine import HandState, MatchState, PlayerView, Rules
from gin3_env.engine.actions import KNOCK_BASE
from gin3_env.envs.single_agent_match import ThreeHandedGinMatchEnv
from gin3_env.game.driver import run_hand, run_match
from gin3_env.observation import (
    LAYOUT,
    MATCH_LAYOUT,
    MATCH_OBS_SIZE,
    OBS_SIZE,
    augment,
    augment_view,
    decode,
    encode,
    encode_match,
    observe,
)
from gin3_env.observation.encoding import match_side
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


# ------------------------------------------------------------------ every row of the layout table
@functools.cache
def _played_views() -> tuple[tuple[PlayerView, ...], tuple[np.ndarray, ...]]:
    """Both players' views along random hands to their ends (and across rules), with their vectors."""
    rng = np.random.default_rng(17)
    views = []
    for k in range(30):
        state = HandState.deal(Rules(max_turns=40 + k), rng=rng)
        while not state.is_over:
            views += [state.view(0), state.view(1)]
            state.apply(int(rng.choice(state.legal_actions())))
        views += [state.view(0), state.view(1)]
    return tuple(views), tuple(encode(view) for view in views)


@pytest.mark.parametrize(("name", "start", "stop"), LAYOUT, ids=[row[0] for row in LAYOUT])
def test_every_row_of_the_layout_is_encoded_and_decoded(name: str, start: int, stop: int) -> None:
    """Loops over the layout table: each row is written by ``encode`` (its entries change along play)
    and read back by ``decode`` (re-encoding the decoded view gives the same entries)."""
    views, vectors = _played_views()
    assert all(v.shape == (OBS_SIZE,) for v in vectors)
    seen = {v[start:stop].tobytes() for v in vectors}
    assert len(seen) > 1, f"{name} ({start}:{stop}) never changes along play: encode does not write it"
    for view, vector in zip(views, vectors, strict=True):
        if view.is_acting or view.to_act is None:  # the vector of the player to act (or of a hand over)
            back = encode(decode(vector, view.rules))
            np.testing.assert_array_equal(back[start:stop], vector[start:stop], err_msg=f"{name} decoded")


@functools.cache
def _match_vectors() -> np.ndarray:
    """Every seat's match observation at every step of a match played at random (knocking when it may)."""
    rng = np.random.default_rng(8)
    match = MatchState.start(Rules(target_score=200), rng=rng)
    rows = []
    while not match.is_over:
        for seat in range(3):
            vector = encode_match(match, seat)
            np.testing.assert_array_equal(vector[:OBS_SIZE], encode(match.hand.view(match_side(match, seat))))
            rows.append(vector)
        legal = match.hand.legal_actions()
        knocks = [a for a in legal if a >= KNOCK_BASE]
        match.apply(int(rng.choice(knocks or legal)))
    return np.array(rows)


@pytest.mark.parametrize(("name", "start", "stop"), MATCH_LAYOUT[len(LAYOUT):])
def test_every_match_row_is_encoded(name: str, start: int, stop: int) -> None:
    vectors = _match_vectors()
    assert vectors.shape[1] == MATCH_OBS_SIZE
    assert len(np.unique(vectors[:, start:stop], axis=0)) > 1, (
        f"{name} ({start}:{stop}) never changes along a match: encode_match does not write it")
