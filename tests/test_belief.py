"""The hand tracker rebuilds each seat's view from its observations; the particle belief is calibrated."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("numba")

from gin3_env.engine.hand import HandState
from gin3_env.engine.rules import Rules
from gin3_env.evaluation.belief import evaluate_belief
from gin3_env.observation.decoding import decode
from gin3_env.observation.encoding import action_mask, encode
from gin3_env.policies import HeuristicPolicy, RandomPolicy
from gin3_env.policies.belief import BeliefConfig, HandTracker


def _sorted_pile(view):  # the observation holds the pile below the top as a set
    return replace(view, pile=tuple(sorted(view.pile)))


@pytest.mark.parametrize("opponent", ["heuristic", "random"])
def test_tracker_view_equals_engine_view_and_particles_fit_it(opponent: str) -> None:
    """Over whole hands (several hands in a row on the same trackers, as a policy object plays them),
    the tracker's view equals the engine's view of that seat (up to the pile's order), and every
    particle holds exactly the opponent's hidden count of unseen cards."""
    rng = np.random.default_rng(3)
    rules = Rules()
    trackers = [HandTracker(rules, BeliefConfig(n_particles=64), np.random.default_rng(s)) for s in (1, 2)]
    players = [HeuristicPolicy(), HeuristicPolicy() if opponent == "heuristic" else RandomPolicy(seed=5)]
    decisions = 0
    for _ in range(12):
        state = HandState.deal(rules, deck=[int(c) for c in rng.permutation(52)])
        while not state.is_over:
            p = state.player
            obs, mask = encode(state.view(p)), action_mask(state.view(p))
            view = trackers[p].observe(decode(obs, rules))
            assert view == _sorted_pile(state.view(p))
            hidden = state.hands[1 - p] & ~state.known[1 - p]
            assert view.opponent_hidden == hidden.bit_count()
            for h in trackers[p].belief.hidden:
                h = int(h)
                assert h.bit_count() == view.opponent_hidden and h & ~view.unseen == 0
            probs = trackers[p].belief.card_probabilities()
            assert probs.sum() == pytest.approx(view.opponent_hidden)
            action = players[p].act({"observation": obs, "action_mask": mask})
            trackers[p].record(action)
            state.apply(action)
            decisions += 1
    assert decisions > 100
    assert all(t.consistent for t in trackers)


def test_sampled_states_agree_with_the_view() -> None:
    rng = np.random.default_rng(8)
    policy = HeuristicPolicy()
    state = HandState.deal(deck=[int(c) for c in rng.permutation(52)])
    tracker = HandTracker(state.rules, BeliefConfig(n_particles=32), np.random.default_rng(0))
    for _ in range(9):
        p = state.player
        obs, mask = encode(state.view(p)), action_mask(state.view(p))
        if p == 0:
            view = tracker.observe(decode(obs, state.rules))
            for sample in tracker.sample_states(5):
                assert _sorted_pile(sample.view(0)) == view
        action = policy.act({"observation": obs, "action_mask": mask})
        if p == 0:
            tracker.record(action)
        state.apply(action)
        if state.is_over:
            break


def test_belief_config_refuses_bad_values() -> None:
    with pytest.raises(ValueError, match="n_particles"):
        BeliefConfig(n_particles=0)
    with pytest.raises(ValueError, match="tau"):
        BeliefConfig(tau=0)
    with pytest.raises(ValueError, match="eps_take"):
        BeliefConfig(eps_take=1.5)


def test_belief_is_calibrated_and_beats_uniform_on_held_out_hands() -> None:
    """Held-out heuristic-vs-heuristic deals (seed 4242, not a seed the knobs were chosen on).
    Tolerance: in every probability bin holding at least 1,000 (decision, unseen card) pairs the
    predicted chance and the observed frequency differ by at most 0.05, in every bin of at least
    200 pairs by at most 0.20 (the top bins are overconfident: over 200 deals, predicted 0.97 came
    true 0.82 of the time, ``results/belief.json``); the log-loss is below the uniform belief's."""
    report = evaluate_belief(12, seed=4242, config=BeliefConfig(n_particles=512))
    assert report.cards > 5000
    for p, f, n in zip(report.bin_mean_p, report.bin_freq, report.bin_count, strict=True):
        if n >= 1000:
            assert abs(p - f) <= 0.05, (p, f, n)
        elif n >= 200:
            assert abs(p - f) <= 0.20, (p, f, n)
    assert report.log_loss < report.uniform_log_loss
