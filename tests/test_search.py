"""SearchPolicy: legal, deterministic for a seed, within its budget, and it finds what the heuristic misses."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from gin3_env.engine.actions import KNOCK_BASE, action_str
from gin3_env.engine.cards import parse_cards
from gin3_env.engine.hand import HandState
from gin3_env.engine.phases import Phase
from gin3_env.engine.rules import Rules
from gin3_env.errors import IllegalActionError
from gin3_env.evaluation.hands import evaluate_hands, play_deal
from gin3_env.kernels.heuristic_params import HeuristicConfig
from gin3_env.kernels.rollout import Rollouts
from gin3_env.observation.encoding import action_mask, encode
from gin3_env.policies import HeuristicPolicy, load_policy
from gin3_env.policies.search import SearchConfig, SearchPolicy, parse_options


def _mask(cards: list[int]) -> int:
    return sum(1 << c for c in cards)


def _obs(state: HandState, player: int) -> dict:
    return {"observation": encode(state.view(player)), "action_mask": action_mask(state.view(player))}


def _mid_states(n: int, seed: int, policy: object = None) -> tuple[list[HandState], list[int], list[int]]:
    """States part-way through hands of ``policy`` (default: the heuristic) on both sides, its move there,
    and the hand's team points."""
    policy = policy or HeuristicPolicy()
    rng = np.random.default_rng(seed)
    states, firsts, truth = [], [], []
    while len(states) < n:
        state = HandState.deal(deck=[int(c) for c in rng.permutation(52)])
        stop, t, kept = int(rng.integers(0, 16)), 0, False
        while not state.is_over:
            a = policy.act(_obs(state, state.player))  # type: ignore[attr-defined]
            if t == stop:
                states.append(state.clone())
                firsts.append(a)
                kept = True
            state.apply(a)
            t += 1
        if kept:
            assert state.result is not None
            truth.append(state.result.returns[0])
    return states, firsts, truth


def test_rollouts_play_the_hand_the_scalar_heuristic_plays() -> None:
    """Differential: a compiled playout from a mid-hand state ends with the points the scalar engine
    and HeuristicPolicy reach from the same state."""
    states, firsts, truth = _mid_states(25, seed=1)
    points = Rollouts().run(states, firsts)
    assert points.tolist() == [float(x) for x in truth]


def test_gated_rollouts_play_the_hand_the_batched_gated_player_plays() -> None:
    """Differential: with the shipped knock gate a playout ends with the points the scalar engine reaches with
    the batched gated player (``gated``) on both sides; and the gate changes some of those hands."""
    trained = load_policy("gated")
    states, firsts, truth = _mid_states(40, seed=3, policy=trained)
    gated = Rollouts(gated_model=trained.model).run(states, firsts)
    assert gated.tolist() == [float(x) for x in truth]
    assert (Rollouts().run(states, firsts) != gated).any()  # the heuristic's playouts differ somewhere
    with pytest.raises(ValueError, match="differs"):
        Rollouts(policy=HeuristicConfig(outs_weight=0), gated_model=trained.model)


def test_search_on_the_gated_blueprint_falls_back_to_the_gated_move() -> None:
    """With a margin no gain can pass, the search on the gated blueprint plays the gated player's hand."""
    rng = np.random.default_rng(4)
    trained = load_policy("gated")
    search = SearchPolicy(seed=0, samples=8, time_budget=None, margin_z=1e9, rollout_policy="gated")
    for _ in range(4):
        deck = [int(c) for c in rng.permutation(52)]
        for pair, same in (((search, HeuristicPolicy()), (trained, HeuristicPolicy())),
                           ((HeuristicPolicy(), search), (HeuristicPolicy(), trained))):
            assert play_deal(*pair, deck).actions == play_deal(*same, deck).actions


def test_rollouts_refuse_an_illegal_first_move_and_a_finished_state() -> None:
    states, firsts, _ = _mid_states(2, seed=2)
    illegal = next(a for a in range(107) if a not in states[0].legal_actions())
    with pytest.raises(IllegalActionError, match="row 0"):
        Rollouts().run(states[:1], [illegal])
    over = states[1].clone()
    while not over.is_over:
        over.apply(HeuristicPolicy().act(_obs(over, over.player)))
    with pytest.raises(ValueError, match="over"):
        Rollouts().run([over], [0])
    with pytest.raises(ValueError, match="one action per state"):
        Rollouts().run(states, [firsts[0]])


def test_search_is_legal_and_deterministic_for_a_seed() -> None:
    rng = np.random.default_rng(5)
    decks = [[int(c) for c in rng.permutation(52)] for _ in range(3)]

    def play(seed: int) -> list[list[int]]:
        search = SearchPolicy(seed=seed, samples=8, time_budget=None)
        out = []
        for deck in decks:  # both seats; play_deal refuses an illegal move
            out.append(play_deal(search, HeuristicPolicy(), deck).actions)
            out.append(play_deal(HeuristicPolicy(), search, deck).actions)
        assert len(search.decision_seconds) > 10
        return out

    first = play(7)
    assert play(7) == first


def test_time_budget_stops_the_search_after_min_samples() -> None:
    rng = np.random.default_rng(9)
    deck = [int(c) for c in rng.permutation(52)]
    quick = SearchPolicy(seed=0, samples=64, min_samples=8, batch=8, time_budget=1e-6)
    full = SearchPolicy(seed=0, samples=24, min_samples=8, batch=8, time_budget=None)
    for policy, expected in ((quick, 8), (full, 24)):
        seen = []
        original = policy._search

        def spy(*args, _orig=original, _seen=seen, _p=policy):
            action = _orig(*args)
            _seen.append(_p.last_stats["samples"])
            return action

        policy._search = spy  # type: ignore[method-assign]
        play_deal(policy, HeuristicPolicy(), deck)
        assert seen and set(seen) == {expected}


def _undercut_trap() -> HandState:
    """The team may knock with 9 (discarding KD), but the box's ten cards are nine known melded
    cards (taken from the pile) and one of AD, 2H, 3S, the only unseen cards; the stock holds the
    other two. Any knock is undercut; any plain discard leaves two cards in the stock: a dead hand."""
    opp_known = parse_cards("4C 5C 6C 9D 9H 9S JC QC KC")
    unseen = parse_cards("AD 2H 3S")
    mine = parse_cards("5D 6D 7D 8D TD TH TS 4H 2C 3H KD")
    pile = [c for c in range(52) if c not in set(opp_known + unseen + mine)]
    return HandState(
        rules=Rules(), deck=(), hands=[_mask(mine), _mask(opp_known) | 1 << unseen[0]], stock=unseen[1:],
        discards=pile, phase=Phase.DISCARD, player=0, turns=40, known=[0, _mask(opp_known)], declined=[0, 0],
    )


def test_search_avoids_the_undercut_the_heuristic_walks_into() -> None:
    state = _undercut_trap()
    obs = _obs(state, 0)
    heuristic = HeuristicPolicy().act(obs)
    assert heuristic >= KNOCK_BASE, action_str(heuristic)
    after = state.clone()
    after.apply(heuristic)
    assert after.result is not None and after.result.outcome == "undercut" and after.result.returns[0] < 0
    search = SearchPolicy(seed=0, samples=8, time_budget=None)
    action = search.act(obs)
    assert action < KNOCK_BASE, action_str(action)
    after = state.clone()
    after.apply(action)
    assert after.result is not None and after.result.outcome == "dead"


def test_load_policy_search_and_its_options() -> None:
    policy = load_policy("search")
    assert isinstance(policy, SearchPolicy) and policy.config == SearchConfig()
    policy = load_policy("search:samples=16,time_budget=none,belief=uniform", seed=3)
    assert policy.config.samples == 16 and policy.config.time_budget is None and policy.config.belief is None
    assert parse_options("margin_z=0.5") == {"margin_z": 0.5}
    assert parse_options("rollout_policy=gated,belief=mcmc")["rollout_policy"] == "gated"
    assert parse_options("rollout_policy=none") == {"rollout_policy": None}
    policy = load_policy("search:rollout_policy=gated", seed=3)
    assert policy.gated_model is not None and policy.rollouts.gated_model is policy.gated_model
    with pytest.raises(ValueError, match="bad search option"):
        load_policy("search:sample=3")
    with pytest.raises(ValueError, match="must be an int"):
        load_policy("search:samples=many")
    with pytest.raises(ValueError, match="min_samples"):
        SearchPolicy(samples=4, min_samples=8)
    with pytest.raises(ValueError, match="time_budget"):
        SearchPolicy(time_budget=0)
    with pytest.raises(ValueError, match="unknown SearchPolicy option"):
        SearchPolicy(depth=3)


def test_rollout_gate_is_gone_rollout_policy_names_the_blueprint() -> None:
    """The old spelling ``rollout_gate`` (and ``gate`` for ``gated_model``) is not read any more."""
    with pytest.raises(ValueError, match="bad search option 'rollout_gate=gated'"):
        parse_options("rollout_gate=gated")
    with pytest.raises(ValueError, match="unknown SearchPolicy option"):
        SearchPolicy(rollout_gate="gated")
    with pytest.raises(TypeError):
        Rollouts(gate=None)  # type: ignore[call-arg]


def test_search_plays_a_few_evaluated_deals_with_the_seat_baseline() -> None:
    report = evaluate_hands(SearchPolicy(seed=1, samples=8, time_budget=None), HeuristicPolicy(), 3, seed=11,
                            seat_baseline=True)
    assert report.n_hands == 6 and report.seat_adjusted is not None


def test_compare_plays_searches_on_the_same_deals_against_an_opponent(tmp_path) -> None:
    """experiments.search_strength --compare: three searches against ``gated``; the one that never leaves its
    gated default is ``gated`` itself, so it scores exactly the opponent's own play of each seat."""
    from experiments.search_strength import compare

    out = tmp_path / "paired.json"
    row = compare(2, 5, ("samples=8", "samples=8,rollout_policy=gated",
                         "samples=8,rollout_policy=gated,margin_z=1e9"),
                  out, opponent="gated")
    assert {"b_minus_a", "c_minus_a", "c_minus_b"} <= set(row) and row["opponent"] == "gated"
    assert row["per_deal"]["c"]["team_minus_heuristic"] == [0.0, 0.0]
    assert row["per_deal"]["c"]["box_minus_heuristic"] == [0.0, 0.0]
    assert row["c"]["overrides"] == 0 and out.exists()
