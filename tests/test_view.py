"""What a player knows: ``HandState.view`` and ``determinise`` (hypothesis properties).

- ``determinise(v, rng).view(v.player) == v``;
- the sample's opponent holds the cards known to be his and nothing the player has seen;
- samples vary from seed to seed;
- two deals that differ only in a card hidden from the player give equal views and,
  with the same seed, equal samples;
- every sample plays on to the end under the engine's rules.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hand_properties import STYLES, random_step, rules_strategy

from gin3_env.engine import PlayerView, determinise
from gin3_env.engine.cards import FULL_MASK, cards_of
from gin3_env.engine.hand import BOX, TEAM, HandState
from gin3_env.engine.phases import Phase
from gin3_env.engine.rules import Rules


def play_to(deck_seed: int, play_seed: int, steps: int, style: str, rules: Rules) -> tuple[HandState, list[int]]:
    """A hand dealt from ``deck_seed`` after up to ``steps`` random moves (stopping before its end)."""
    state = HandState.deal(rules, rng=np.random.default_rng(deck_seed))
    rng = np.random.default_rng(play_seed)
    actions: list[int] = []
    for _ in range(steps):
        trial = state.clone()
        action = random_step(state, rng, style)
        trial.apply(action)
        if trial.is_over:
            break
        state.apply(action)
        actions.append(action)
    return state, actions


hands = st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.integers(0, 80), STYLES, rules_strategy)
players = st.sampled_from([TEAM, BOX])


@settings(max_examples=150, deadline=None)
@given(hands, players, st.integers(0, 2**32 - 1))
def test_determinise_agrees_with_the_view(hand, player, seed) -> None:
    state, _ = play_to(*hand)
    view = state.view(player)
    sample = determinise(view, np.random.default_rng(seed))
    assert sample.view(player) == view
    # The sample is a whole, legal position: 52 cards once each, the same legal moves.
    parts = [*sample.hands, sum(1 << c for c in sample.stock), sum(1 << c for c in sample.discards)]
    assert sum(p.bit_count() for p in parts) == 52 and (parts[0] | parts[1] | parts[2] | parts[3]) == FULL_MASK
    if view.is_acting or state.phase is not Phase.DISCARD:  # else they hang on the opponent's cards
        assert sample.legal_actions() == state.legal_actions()
    assert [h.bit_count() for h in sample.hands] == [h.bit_count() for h in state.hands]


@settings(max_examples=150, deadline=None)
@given(hands, players, st.integers(0, 2**32 - 1))
def test_sample_opponent_holds_the_known_cards_and_nothing_seen(hand, player, seed) -> None:
    state, _ = play_to(*hand)
    view = state.view(player)
    sample = determinise(view, np.random.default_rng(seed))
    opponent = sample.hands[1 - player]
    assert opponent & view.opponent_known == view.opponent_known
    hidden = opponent & ~view.opponent_known
    assert hidden & view.seen == 0
    assert hidden.bit_count() == view.opponent_hidden
    assert set(sample.stock) | set(cards_of(hidden)) == set(cards_of(view.unseen))


@settings(max_examples=60, deadline=None)
@given(hands, players)
def test_samples_vary(hand, player) -> None:
    state, _ = play_to(*hand)
    view = state.view(player)
    samples = [determinise(view, np.random.default_rng(seed)) for seed in range(12)]
    opponents = {s.hands[1 - player] for s in samples}
    stocks = {tuple(s.stock) for s in samples}
    # 12 draws from C(unseen, hidden) >= C(31, 10) deals: a repeat of all would be a bug.
    assert len(opponents) > 1 or view.opponent_hidden in (0, len(cards_of(view.unseen)))
    assert len(stocks) > 1


def swap_hidden(deck: list[int], state: HandState, player: int, rng: np.random.Generator) -> list[int] | None:
    """The deck with two cards swapped that ``player`` has not seen (one in the opponent's
    hidden hand if any, one in the stock); None if there are not two such cards."""
    view = state.view(player)
    hidden = cards_of(state.hands[1 - player] & ~view.opponent_known)
    pool = hidden + list(state.stock)
    if len(pool) < 2:
        return None
    first = hidden[int(rng.integers(len(hidden)))] if hidden else pool[0]
    second = state.stock[int(rng.integers(len(state.stock)))] if state.stock else pool[1]
    if first == second:
        return None
    out = list(deck)
    i, j = out.index(first), out.index(second)
    out[i], out[j] = out[j], out[i]
    return out


@settings(max_examples=120, deadline=None)
@given(hands, players, st.integers(0, 2**32 - 1))
def test_a_hidden_card_changes_neither_the_view_nor_the_sample(hand, player, seed) -> None:
    state, actions = play_to(*hand)
    other_deck = swap_hidden(list(state.deck), state, player, np.random.default_rng(seed))
    if other_deck is None:
        return
    twin = HandState.deal(state.rules, deck=other_deck)
    for action in actions:
        twin.apply(action)
    assert twin.hands[1 - player] != state.hands[1 - player] or twin.stock != state.stock
    assert twin.view(player) == state.view(player)
    a = determinise(state.view(player), np.random.default_rng(seed))
    b = determinise(twin.view(player), np.random.default_rng(seed))
    assert (a.hands, a.stock, a.discards, a.known, a.declined) == (b.hands, b.stock, b.discards, b.known, b.declined)


@settings(max_examples=100, deadline=None)
@given(hands, players, st.integers(0, 2**32 - 1), STYLES)
def test_every_sample_plays_to_the_end(hand, player, seed, style) -> None:
    state, _ = play_to(*hand)
    sample = determinise(state.view(player), np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    for _ in range(2 * state.rules.max_turns + 4):
        if sample.is_over:
            break
        result = sample.apply(random_step(sample, rng, style))
        assert result is sample.result
    assert sample.is_over and sample.result is not None
    total = sum(h.bit_count() for h in sample.hands) + len(sample.stock) + len(sample.discards)
    assert total + (sample.result.knock_discard is not None) == 52  # the knock's discard is in no pile


@settings(max_examples=60, deadline=None)
@given(hands, players, st.integers(0, 2**32 - 1))
def test_weights_bias_the_opponents_cards(hand, player, seed) -> None:
    state, _ = play_to(*hand)
    view = state.view(player)
    unseen = cards_of(view.unseen)
    need = view.opponent_hidden
    favoured = unseen[:need]
    weights = np.zeros(52)
    weights[favoured] = 1.0
    sample = determinise(view, np.random.default_rng(seed), weights=weights)
    assert sample.view(player) == view
    assert sample.hands[1 - player] & ~view.opponent_known == sum(1 << c for c in favoured)


def test_view_holds_what_the_player_knows() -> None:
    state = HandState.deal(Rules(), rng=np.random.default_rng(3))
    team, box = state.view(TEAM), state.view(BOX)
    assert team.to_act == TEAM and team.is_acting and not box.is_acting
    assert team.top == state.deck[20] and team.pile == () and team.stock_size == 31
    assert team.hand == state.hands[TEAM] and box.hand == state.hands[BOX]
    assert team.opponent_hand_size == 10 and team.legal_actions() == state.legal_actions()
    assert box.legal_actions() == []
    state.apply(1)  # the captain takes the upcard
    team, box = state.view(TEAM), state.view(BOX)
    assert team.taken == box.taken == state.deck[20]
    assert box.opponent_known == 1 << state.deck[20] and team.own_known == 1 << state.deck[20]
    assert box.opponent_hand_size == 11 and team.top is None
    assert team.legal_actions() == state.legal_actions()
    # A view is plain data: no reference to the hidden state, picklable, hashable.
    assert not any(isinstance(v, HandState | list) for v in vars(team).values())
    assert pickle.loads(pickle.dumps(team)) == team and hash(team) == hash(pickle.loads(pickle.dumps(team)))
    with pytest.raises(ValueError, match="player must be 0"):
        state.view(2)


def test_determinise_refuses_what_it_cannot_sample() -> None:
    state = HandState.deal(Rules(), rng=np.random.default_rng(4))
    view = state.view(TEAM)
    with pytest.raises(ValueError, match="PlayerView"):
        determinise(state, np.random.default_rng(0))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one number per card"):
        determinise(view, np.random.default_rng(0), weights=[1.0] * 51)
    with pytest.raises(ValueError, match="positive weight"):
        determinise(view, np.random.default_rng(0), weights=np.zeros(52))
    with pytest.raises(ValueError, match=">= 0"):
        determinise(view, np.random.default_rng(0), weights=-np.ones(52))
    bad = PlayerView(**{**vars(view), "stock_size": 3})
    with pytest.raises(ValueError, match="inconsistent"):
        determinise(bad, np.random.default_rng(0))
    finished = HandState.deal(Rules(knock_limit=100), rng=np.random.default_rng(4))
    finished.apply(1)
    finished.apply(next(a for a in finished.legal_actions() if a >= 55))
    assert finished.phase is Phase.OVER
    with pytest.raises(ValueError, match="over"):
        determinise(finished.view(TEAM), np.random.default_rng(0))


def test_a_sample_has_no_deal() -> None:
    state = HandState.deal(Rules(), rng=np.random.default_rng(5))
    sample = determinise(state.view(BOX), np.random.default_rng(0))
    assert sample.deck == () and sample.actions == []
    with pytest.raises(ValueError, match="no deal"):
        sample.log()
    with pytest.raises(ValueError, match="no deal"):
        _ = sample.upcard
