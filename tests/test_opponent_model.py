"""Beliefs whose likelihood is the opponent's own player, and the search told whom it faces."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import gin3_env.policies.policy_belief as policy_belief
from gin3_env.engine.hand import HandState
from gin3_env.engine.rules import Rules
from gin3_env.evaluation.hands import evaluate_hands
from gin3_env.game.driver import run_hand
from gin3_env.kernels import hand_kernels as hk
from gin3_env.kernels.policy_belief import decision_rows
from gin3_env.kernels.rollout import Rollouts
from gin3_env.observation.decoding import check_observation, decode
from gin3_env.observation.layout import DEADWOOD_INDEX, PLANE
from gin3_env.policies import HeuristicPolicy, load_policy
from gin3_env.policies.belief import BeliefConfig, HandTracker
from gin3_env.policies.opponent_model import opponent_model
from gin3_env.policies.policy_rollouts import PolicyRollouts
from gin3_env.policies.search import SearchPolicy, parse_options

GAME = Rules()
PUBLIC = np.ones(hk.OBS_SIZE, bool)  # the entries that do not depend on the player's own cards
PUBLIC[:PLANE] = False
PUBLIC[DEADWOOD_INDEX] = False


class _Watcher:
    """The heuristic, keeping a belief about its opponent with ``model`` as the likelihood."""

    def __init__(self, model: Any, particles: int = 8) -> None:
        self.tracker = HandTracker(GAME, BeliefConfig(n_particles=particles), np.random.default_rng(0), model)
        self.me = HeuristicPolicy()

    def act(self, observation: dict[str, Any]) -> int:
        vector, _ = check_observation(observation)
        self.tracker.observe(decode(vector, GAME))
        action = self.me.act(observation)
        self.tracker.record(action)
        return action


def _rows(hands: np.ndarray, public: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    obs = np.zeros((len(hands), hk.OBS_SIZE), np.float32)
    mask = np.zeros((len(hands), hk.NUM_ACTIONS), np.int8)
    decision_rows(hands, public["phase"], public["player"], public["turns"], public["stock_only"], public["taken"],
                  public["stock"], public["pile_mask"], public["top"], public["known_other"],
                  public["declined_other"], public["declined_own"], hk.rules_vector(GAME), obs, mask)
    return obs, mask


@pytest.mark.parametrize("spec", ["heuristic", "gated"])
def test_the_rows_rebuilt_for_the_true_hand_are_the_opponents_own_and_its_model_plays_its_move(
        spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """At every opponent decision the belief reads, the observation rebuilt around the opponent's true cards
    is the observation the opponent really had (every entry), and its own player's move there is the move it
    made: the true hand always gets the model's full weight."""
    opponent = load_policy(spec)
    model = opponent_model(spec)
    real: list[tuple[np.ndarray, int]] = []
    checked: list[int] = []

    class Recorder:
        def act(self, observation: dict[str, Any]) -> int:
            action = int(opponent.act(observation))
            real.append((np.array(observation["observation"]), action))
            return action

    original = policy_belief._score

    def spy(belief: Any, model_: Any, hands: np.ndarray, seen: int, eps: float, **public: int) -> None:
        built, _ = _rows(hands[:1], public)
        matches = [(o, a) for o, a in real if np.array_equal(o[PUBLIC], built[0][PUBLIC])]
        assert len(matches) == 1
        observation, action = matches[0]
        assert action == seen
        true = np.array([sum(1 << c for c in np.flatnonzero(observation[:PLANE]))], np.int64)
        obs, mask = _rows(true, public)
        assert np.array_equal(obs[0], observation)
        assert int(model_.act(obs, mask)[0]) == seen
        checked.append(seen)
        original(belief, model_, hands, seen, eps, **public)

    monkeypatch.setattr(policy_belief, "_score", spy)
    rng = np.random.default_rng(5)
    for _ in range(6):
        deck = [int(c) for c in rng.permutation(52)]
        for seat in (0, 1):
            real.clear()
            players: list[Any] = [_Watcher(model), Recorder()] if seat == 0 else [Recorder(), _Watcher(model)]
            run_hand(HandState.deal(GAME, deck=deck), players)
    assert len(checked) > 40


def test_a_random_opponent_is_never_asked_for_its_move() -> None:
    """The random player's moves do not depend on its cards: its model is not informative, so the belief
    only tracks the draws (no move of the model is asked for)."""
    from dataclasses import replace

    model = opponent_model("random")
    assert not model.informative
    calls: list[int] = []

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        calls.append(len(obs))
        raise AssertionError("an uninformative model was asked for its move")

    watcher = _Watcher(replace(model, act=act))
    run_hand(HandState.deal(GAME, deck=list(range(52))), [watcher, load_policy("random", seed=1)])
    assert not calls and watcher.tracker.belief.effective_size() >= 1


def test_search_opponent_option_and_its_refusals() -> None:
    assert parse_options("opponent=gated")["opponent"] == "gated"
    assert parse_options("opponent=kernel")["opponent"] == "kernel"
    assert parse_options("opponent=search:rollout_policy=gated")["opponent"] == "search:rollout_policy=gated"
    for bad in ("opponent=nobody", "opponent=rllib:/nowhere", "rollout_policy=nobody"):
        with pytest.raises((ValueError, FileNotFoundError)):
            parse_options(bad)
    with pytest.raises(ValueError, match="mcmc"):
        SearchPolicy(**parse_options("opponent=gated,belief=mcmc,samples=4,min_samples=4")).act(
            _first_observation())
    search = SearchPolicy(**parse_options("opponent=gated,samples=4,min_samples=4"))
    assert search.model is not None and search.model.name == "gated"
    assert opponent_model("search:rollout_policy=gated").gated_model is not None
    assert opponent_model("search").heuristic is not None


def _first_observation() -> dict[str, Any]:
    from gin3_env.observation.encoding import action_mask, encode

    state = HandState.deal(GAME, deck=list(range(52)))
    return {"observation": encode(state.view(0)), "action_mask": action_mask(state.view(0))}


def test_evaluation_tells_the_search_whom_it_faces() -> None:
    """Seated by the evaluation, a search models its opponent's own player unless its spec names one."""
    told = load_policy("search:samples=4,min_samples=4", seed=1)
    evaluate_hands(told, load_policy("gated"), 1, seed=3)
    assert told.model is not None and told.model.name == "gated"
    kept = load_policy("search:samples=4,min_samples=4,opponent=kernel", seed=1)
    evaluate_hands(kept, load_policy("gated"), 1, seed=3)
    assert kept.model is None


def test_policy_rollouts_play_the_hands_the_compiled_rollouts_play() -> None:
    """Differential: the playouts stepped in Python with a batched player end as the compiled ones."""
    rng = np.random.default_rng(2)
    states: list[HandState] = []
    firsts: list[int] = []
    policy = HeuristicPolicy()
    from gin3_env.observation.encoding import action_mask, encode

    while len(states) < 20:
        state = HandState.deal(GAME, deck=[int(c) for c in rng.permutation(52)])
        for _ in range(int(rng.integers(0, 12))):
            view = state.view(state.player)
            state.apply(policy.act({"observation": encode(view), "action_mask": action_mask(view)}))
            if state.is_over:
                break
        if not state.is_over:
            view = state.view(state.player)
            states.append(state)
            firsts.append(int(policy.act({"observation": encode(view), "action_mask": action_mask(view)})))
    for spec in ("heuristic", "gated"):
        model = opponent_model(spec)
        slow = PolicyRollouts(GAME, model).run(states, firsts)
        fast = Rollouts(GAME, gated_model=model.gated_model).run(states, firsts)
        assert np.array_equal(slow, fast), spec
