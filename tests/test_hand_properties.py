"""Invariants of random hands (hypothesis): conservation, legality, termination, replay."""

from __future__ import annotations

import json

import numpy as np
from conftest import is_valid_meld, snapshot
from hypothesis import given, settings
from hypothesis import strategies as st
from test_melds import brute_arrangements, brute_layoff_deadwood

from gin3_env.engine.actions import DISCARD_BASE, KNOCK_BASE, NUM_ACTIONS, TAKE_DISCARD
from gin3_env.engine.cards import CARD_POINTS, FULL_MASK, cards_of, mask_of
from gin3_env.engine.hand import HandState, legal_actions
from gin3_env.engine.hand import replay_hand as replay
from gin3_env.engine.melds import deadwood, knock_deadwoods
from gin3_env.engine.phases import Phase
from gin3_env.engine.rules import Rules
from gin3_env.engine.showdown import showdown
from gin3_env.errors import IllegalActionError

rules_strategy = st.one_of(
    st.just(Rules()),
    st.builds(
        Rules,
        knock_limit=st.integers(0, 20),
        dead_stock=st.integers(0, 10),
        max_turns=st.integers(1, 120),
        allow_discard_taken_card=st.booleans(),
    ),
)


def random_step(state: HandState, rng: np.random.Generator, style: str) -> int:
    """A random legal action. ``uniform``: any; ``eager``: knock when possible, else any;
    ``greedy``: keep the hand's deadwood low (so knocks, gins and undercuts happen)."""
    legal = state.legal_actions()
    knocks = [a for a in legal if a >= KNOCK_BASE]
    if style == "uniform" or (style == "eager" and not knocks):
        return int(rng.choice(legal))
    if style == "eager":
        return int(rng.choice(knocks))
    if state.phase is Phase.DISCARD:
        kd = state.knock_deadwoods()
        gins = [a for a in knocks if kd[a - KNOCK_BASE] == 0]
        if gins or (knocks and rng.random() < 0.2):
            return int(rng.choice(gins or knocks))
        discards = [a for a in legal if a < KNOCK_BASE]
        best = min(kd[a - DISCARD_BASE] for a in discards)
        return int(rng.choice([a for a in discards if kd[a - DISCARD_BASE] == best]))
    if TAKE_DISCARD in legal and state.discards:
        hand = state.hands[state.player]
        if min(knock_deadwoods(hand | 1 << state.discards[-1]).values()) < deadwood(hand):
            return TAKE_DISCARD
    return int(rng.choice([a for a in legal if a != TAKE_DISCARD]))


STYLES = st.sampled_from(["uniform", "eager", "greedy"])


def check_conservation(state: HandState) -> None:
    result = state.result
    knock_discard = 0 if result is None or result.knock_discard is None else 1 << result.knock_discard
    parts = [state.hands[0], state.hands[1], knock_discard]
    parts += [1 << c for c in state.stock] + [1 << c for c in state.discards]
    assert sum(bin(p).count("1") for p in parts) == 52
    union = 0
    for p in parts:
        assert union & p == 0, "a card is in two places"
        union |= p
    assert union == FULL_MASK
    sizes = [bin(h).count("1") for h in state.hands]
    if state.phase is Phase.DISCARD:
        assert sizes[state.player] == 11 and sizes[1 - state.player] == 10
    else:
        assert sizes == [10, 10]
    for p in (0, 1):
        assert state.known[p] & ~state.hands[p] == 0  # known cards are still held


def check_result(state: HandState) -> None:
    result = state.result
    assert result is not None
    rules = state.rules
    if result.outcome in ("dead", "truncated"):
        assert result.winner is None and result.points == 0 and result.returns == (0, 0)
        if result.outcome == "dead":
            assert len(state.stock) <= rules.dead_stock
        else:
            assert state.turns == rules.max_turns
        return
    k, d = result.knocker_deadwood, result.defender_deadwood
    knocker = result.knocker
    assert knocker is not None and k is not None and d is not None and result.spreads is not None
    assert k <= rules.knock_limit
    if k == 0:
        assert (result.outcome, result.winner, result.points) == ("gin", knocker, rules.gin_bonus + d)
    elif k < d:
        assert (result.outcome, result.winner, result.points) == ("knock", knocker, d - k)
    else:
        assert (result.outcome, result.winner) == ("undercut", 1 - knocker)
        assert result.points == rules.undercut_bonus + k - d
    assert result.returns[result.winner] == result.points == -result.returns[1 - result.winner]
    ks, ds = result.spreads[knocker], result.spreads[1 - knocker]
    assert ks.layoffs == ()
    assert sorted([*(c for m in ks.melds for c in m), *ks.deadwood_cards]) == cards_of(state.hands[knocker])
    laid = [c for c, _ in ds.layoffs]
    assert sorted([*(c for m in ds.melds for c in m), *ds.deadwood_cards, *laid]) == cards_of(
        state.hands[1 - knocker]
    )
    for spread in (ks, ds):
        assert all(is_valid_meld(m) for m in spread.melds)
        assert spread.deadwood == sum(CARD_POINTS[c] for c in spread.deadwood_cards)
    assert k == ks.deadwood and d == ds.deadwood
    assert d <= deadwood(state.hands[1 - knocker])
    if result.outcome == "gin":
        assert laid == [] and d == deadwood(state.hands[1 - knocker])
    for i in range(len(ks.melds)):
        extra = [c for c, j in ds.layoffs if j == i]
        assert is_valid_meld([*ks.melds[i], *extra])


def play_random(seed: int, rules: Rules, style: str, check_each_step: bool = True) -> HandState:
    rng = np.random.default_rng(seed)
    state = HandState.deal(rules, rng=rng)
    steps = 0
    while not state.is_over:
        if check_each_step:
            check_conservation(state)
        legal = state.legal_actions()
        assert legal, "no legal action before the end"
        assert list(np.flatnonzero(state.legal_mask())) == legal
        assert legal == legal_actions(state)
        state.apply(random_step(state, rng, style))
        steps += 1
        assert state.turns <= rules.max_turns
        assert steps <= 2 * rules.max_turns + 2
    check_conservation(state)
    assert state.legal_actions() == [] and not state.legal_mask().any()
    check_result(state)
    return state


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), rules_strategy, STYLES)
def test_random_hands_conserve_cards_and_end(seed: int, rules: Rules, style: str) -> None:
    play_random(seed, rules, style)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), rules_strategy, STYLES)
def test_legal_actions_are_exactly_the_accepted_ones(seed: int, rules: Rules, style: str) -> None:
    rng = np.random.default_rng(seed)
    state = HandState.deal(rules, rng=rng)
    while True:
        legal = set(state.legal_actions())
        before = snapshot(state)
        for a in range(NUM_ACTIONS):
            if a in legal:
                trial = state.clone()
                trial.apply(a)
                assert trial.actions[-1] == a
            else:
                try:
                    state.apply(a)
                except IllegalActionError:
                    pass
                else:
                    raise AssertionError(f"action {a} accepted but not listed as legal")
        assert snapshot(state) == before
        if state.is_over:
            break
        state.apply(random_step(state, rng, style))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), rules_strategy, STYLES)
def test_clone_is_equal_and_independent(seed: int, rules: Rules, style: str) -> None:
    """A clone plays on exactly like the original, and playing it leaves the original untouched."""
    rng = np.random.default_rng(seed)
    state = HandState.deal(rules, rng=rng)
    while not state.is_over:
        copy = state.clone()
        assert snapshot(copy) == snapshot(state)
        before = snapshot(state)
        trial_rng = np.random.default_rng(seed + len(state.actions))
        while not copy.is_over:
            copy.apply(random_step(copy, trial_rng, style))
        assert snapshot(state) == before
        state.apply(random_step(state, rng, style))
    assert snapshot(state.clone()) == snapshot(state)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), rules_strategy, STYLES)
def test_replay_reproduces_the_hand(seed: int, rules: Rules, style: str) -> None:
    state = play_random(seed, rules, style, check_each_step=False)
    log = json.loads(json.dumps(state.log()))
    again = replay(log)
    assert snapshot(again) == snapshot(state)
    assert again.result == state.result and again.deck == state.deck and again.rules == state.rules
    # Replaying a prefix gives the state at that point, still in play.
    cut = len(state.actions) // 2
    partial = replay({**log, "actions": log["actions"][:cut]})
    assert partial.actions == state.actions[:cut] and not partial.is_over


def test_random_hands_reach_every_outcome() -> None:
    """The property tests above see gin, knock, undercut, dead and truncated hands."""
    seen: set[str] = set()
    for seed in range(150):
        rules = Rules(max_turns=40) if seed % 5 == 0 else Rules()
        state = play_random(seed, rules, ("uniform", "eager", "greedy")[seed % 3], check_each_step=False)
        assert state.result is not None
        seen.add(state.result.outcome)
    assert seen == {"gin", "knock", "undercut", "dead", "truncated"}


def best_showdown_by_brute_force(knocker: list[int], defender: list[int], rules: Rules) -> tuple:
    """(outcome, knocker won, points, K, D) of the best spread, by trying every spread."""
    if deadwood(knocker) == 0:
        d = deadwood(defender)
        return ("gin", True, rules.gin_bonus + d, 0, d)
    best: tuple | None = None
    for spread in brute_arrangements(knocker, rules.knock_limit):
        k = sum(CARD_POINTS[c] for c in knocker) - sum(CARD_POINTS[c] for m in spread for c in m)
        d = brute_layoff_deadwood(defender, [tuple(sorted(m)) for m in spread])
        row = ("knock", True, d - k, k, d) if k < d else ("undercut", False, rules.undercut_bonus + k - d, k, d)
        key = (row[2] if row[1] else -row[2], -k)
        if best is None or key > best[0]:
            best = (key, row)
    assert best is not None
    return best[1]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([Rules(), Rules(knock_limit=20), Rules(knock_limit=4)]))
def test_showdown_picks_the_best_spread(seed: int, rules: Rules) -> None:
    rng = np.random.default_rng(seed)
    pool = [s * 13 + r for s in range(4) for r in range(1, 8)]
    while True:
        knocker = [int(c) for c in rng.choice(pool, size=10, replace=False)]
        if deadwood(knocker) <= rules.knock_limit:
            break
    rest = [c for c in range(52) if c not in knocker]
    near = [c for c in rest if c in pool or c % 13 in (0, 8)]
    defender = [int(c) for c in rng.choice(near if len(near) >= 10 else rest, size=10, replace=False)]
    s = showdown(mask_of(knocker), mask_of(defender), rules)
    got = (s.outcome, s.knocker_won, s.points, s.knocker_deadwood, s.defender_deadwood)
    assert got == best_showdown_by_brute_force(knocker, defender, rules)
