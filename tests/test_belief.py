"""The hand tracker rebuilds each seat's view from its observations; the particle belief is calibrated."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("numba")

from experiments.belief_report import evaluate_belief
from gin3_env.engine.hand import HandState
from gin3_env.engine.rules import Rules
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
    true 0.82 of the time, ``docs/results/belief.json``); the log-loss is below the uniform belief's."""
    report = evaluate_belief(12, seed=4242, config=BeliefConfig(n_particles=512))
    assert report.cards > 5000
    for p, f, n in zip(report.bin_mean_p, report.bin_freq, report.bin_count, strict=True):
        if n >= 1000:
            assert abs(p - f) <= 0.05, (p, f, n)
        elif n >= 200:
            assert abs(p - f) <= 0.20, (p, f, n)
    assert report.log_loss < report.uniform_log_loss


MCMC = BeliefConfig(n_particles=48, refresh=False, mcmc_steps=2)


def _play_tracked(config: BeliefConfig, deals: int, seed: int, check) -> int:
    """Heuristic against heuristic over ``deals`` hands, a tracker per seat; ``check(tracker, state, p, view)``
    at every decision. Returns the number of decisions."""
    rng = np.random.default_rng(seed)
    rules = Rules()
    trackers = [HandTracker(rules, config, np.random.default_rng(seed + s)) for s in (1, 2)]
    policy = HeuristicPolicy()
    decisions = 0
    for _ in range(deals):
        state = HandState.deal(rules, deck=[int(c) for c in rng.permutation(52)])
        while not state.is_over:
            p = state.player
            obs, mask = encode(state.view(p)), action_mask(state.view(p))
            view = trackers[p].observe(decode(obs, rules))
            check(trackers[p], state, p, view)
            action = policy.act({"observation": obs, "action_mask": mask})
            trackers[p].record(action)
            state.apply(action)
            decisions += 1
    assert all(t.consistent for t in trackers)
    return decisions


def test_mcmc_particles_fit_the_view_and_explain_the_history() -> None:
    """With the whole-history moves, every particle holds exactly the opponent's hidden count of
    unseen cards (never a card the player has seen), every sampled state gives the opponent its
    known cards plus the particle's, and every particle's trajectory (its cards and its stock draws)
    can have made the opponent's recorded moves: a finite likelihood, with its draws all distinct,
    each still hidden or one of the opponent's own later discards."""
    from gin3_env.kernels import belief_kernels as bk

    moved = []

    def check(tracker: HandTracker, state: HandState, p: int, view) -> None:
        b = tracker.belief
        assert b.drawn.shape == (len(b.hidden), len(b.events))
        for k, h in enumerate(b.hidden):
            h = int(h)
            assert h.bit_count() == view.opponent_hidden and h & ~view.unseen == 0
            scratch = [np.zeros(52, np.int64) for _ in range(3)]
            ll = bk.history_loglik(h, b.drawn[k], b.events, len(b.events), tracker.rules.knock_limit, b._fp, b._ip,
                                   b.config.eps_take, b.config.eps_knock, 1 / b.config.tau,
                                   np.zeros(max(len(b.events), 1), np.int64), *scratch, np.zeros(52))
            assert np.isfinite(ll)
            draws = [int(c) for c in b.drawn[k] if c >= 0]
            assert len(set(draws)) == len(draws)
            for e, c in enumerate(b.drawn[k]):  # still hidden, or discarded (seen) at that turn or later
                later = {int(r[bk.EV_D]) for r in b.events[e:] if r[bk.EV_D_HIDDEN]}
                assert c < 0 or h >> int(c) & 1 or int(c) in later
        assert np.isfinite(b.logw).all() and np.allclose(b.logw, 0)
        for sample in tracker.sample_states(3):
            opp = sample.hands[1 - p]
            assert opp & view.opponent_known == view.opponent_known
            assert (opp & ~view.opponent_known) & ~view.unseen == 0
            assert opp.bit_count() == view.opponent_known.bit_count() + view.opponent_hidden
        moved.append(b.accepted)

    assert _play_tracked(MCMC, 6, 11, check) > 50
    assert max(moved) > 0  # the moves do change particles


def _beliefs_seen(seed: int) -> list[np.ndarray]:
    seen: list[np.ndarray] = []
    _play_tracked(MCMC, 3, seed, lambda t, s, p, v: seen.append(t.belief.card_probabilities()))
    return seen


def test_mcmc_belief_is_reproducible_with_a_seed() -> None:
    first, again, other = _beliefs_seen(5), _beliefs_seen(5), _beliefs_seen(6)
    assert len(first) == len(again) and all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not (len(other) == len(first) and all(np.array_equal(a, b) for a, b in zip(first, other, strict=True)))


def test_mcmc_options_are_checked_and_named_in_a_search_spec() -> None:
    from gin3_env.policies.search import MCMC_BELIEF, parse_options

    assert parse_options("belief=mcmc") == {"belief": MCMC_BELIEF}
    assert MCMC_BELIEF.mcmc_steps > 0 and not MCMC_BELIEF.refresh
    with pytest.raises(ValueError, match="refresh=False"):
        BeliefConfig(mcmc_steps=2)
    with pytest.raises(ValueError, match="mcmc_steps"):
        BeliefConfig(refresh=False, mcmc_steps=-1)
    with pytest.raises(ValueError, match="mcmc_pair"):
        BeliefConfig(refresh=False, mcmc_steps=1, mcmc_pair=1.5)
    with pytest.raises(ValueError, match="belief must be one of"):
        parse_options("belief=marginals")


def test_mcmc_moves_leave_the_posterior_invariant_on_a_small_case() -> None:
    """On a tiny pool the posterior over hidden hands can be enumerated exactly: many chained
    moves from one start reach every hand in proportion to its whole-history likelihood."""
    from itertools import combinations

    from gin3_env.kernels import belief_kernels as bk
    from gin3_env.kernels.heuristic_params import heuristic_params

    fp, ip = heuristic_params(HeuristicPolicy().config)
    # the opponent's hand is 8 known cards (the kernels' hand is hidden | known) plus 2 hidden ones of a 6-card pool;
    # it was offered card 20 and passed, then drew and discarded a card it held (card 0, hidden)
    known = sum(1 << c for c in (13, 14, 15, 26, 27, 39, 40, 41))
    pool_cards = [0, 1, 5, 9, 33, 47]
    pool = sum(1 << c for c in pool_cards)
    ev = np.zeros((2, bk.EV_FIELDS), np.int64)
    ev[0] = [known, 20, bk.KIND_OFFER, 0, -1, 0, pool, -1, 0, 0, 0, 31, -1]
    ev[1] = [known, 21, bk.KIND_DRAW, 0, 0, 1, pool, 21, 0, 0, 0, 30, -1]
    args = (3, fp, ip, 0.05, 0.05, 0.25)
    scratch = (np.zeros(2, np.int64), np.zeros(52, np.int64), np.zeros(52, np.int64), np.zeros(52, np.int64),
               np.zeros(52))
    # a trajectory: the two hidden cards now, the card drawn at turn 1 (one of them or, forced, card 0)
    exact: dict[int, float] = {}
    for pair in combinations([c for c in pool_cards if c != 0], 2):
        h = (1 << pair[0]) | (1 << pair[1])
        for drawn in pair:  # card 0 was held from the deal, the drawn card still held
            ll = bk.history_loglik(h, np.array([-1, drawn]), ev, 2, *args, *scratch)
            exact[h] = exact.get(h, 0.0) + np.exp(ll)
    total = sum(exact.values())
    # chains started on one trajectory; the hidden cards' pool excludes card 0 (seen, discarded)
    n, steps = 4000, 30
    hidden = np.full(n, (1 << 1) | (1 << 5), np.int64)
    drawn = np.tile(np.array([-1, 5], np.int64), (n, 1))
    u = np.random.default_rng(0).random((n, steps, 6))
    bk.rejuvenate(hidden, drawn, ev, 2, pool & ~1, u, 0.5, *args)
    for h, mass in exact.items():
        assert np.mean(hidden == h) == pytest.approx(mass / total, abs=0.03)
