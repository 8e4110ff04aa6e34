"""The batched core against the scalar engine: same decks and actions, same everything.

Each hand of a :class:`VectorHands` is shadowed by a scalar :class:`HandState` dealt from the
same deck; at every step both must show the same player to act, legal mask, observation
(:func:`gin3_env.observation.encode`, what the AEC env returns), rewards, end flags and
results. Redeals are shadowed too (the next decks are queued, so the scalar side knows them).
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import fields

import numpy as np
import pytest
from conftest import slow_size

from gin3_env.engine.hand import HandState
from gin3_env.engine.rules import _RANGES, Rules
from gin3_env.errors import IllegalActionError
from gin3_env.kernels import hand_kernels as hk
from gin3_env.kernels import meld_kernels as mk
from gin3_env.observation import encoding
from gin3_env.vector import OUTCOME_NAMES, HeuristicBatch, RandomBatch, VectorHands

HEURISTIC = HeuristicBatch()

np_rng = np.random.default_rng



def encode(state: HandState, player: int) -> np.ndarray:
    """The scalar observation of ``player`` (0 team, 1 box) in ``state``."""
    return encoding.encode(state.view(player))


def action_mask(state: HandState, player: int) -> np.ndarray:
    """The scalar mask of ``player`` (zeros unless it is to act)."""
    return encoding.action_mask(state.view(player))

def pick_actions(masks: np.ndarray, rng: np.random.Generator, knock_rate: float,
                 obs: np.ndarray | None = None) -> np.ndarray:
    """Legal actions: the heuristic's for half the hands when ``obs`` is given (so hands reach
    gin), else random ones that knock with probability ``knock_rate`` when a knock is legal
    (uniform play almost never knocks, and the showdown must be exercised)."""
    acts = np.empty(len(masks), dtype=np.int64)
    smart = None if obs is None else HEURISTIC.act(obs, masks)
    for i, m in enumerate(masks):
        if smart is not None and i % 2:
            acts[i] = smart[i]
            continue
        legal = np.flatnonzero(m)
        knocks = legal[legal >= 55]
        if len(knocks) and rng.random() < knock_rate:
            acts[i] = knocks[rng.integers(len(knocks))]
        else:
            acts[i] = legal[rng.integers(len(legal))]
    return acts


def check_same(vh: VectorHands, states: list[HandState]) -> None:
    obs, masks, players = vh.observe(), vh.action_mask, vh.current_player
    for i, s in enumerate(states):
        p = s.player
        assert players[i] == p, i
        np.testing.assert_array_equal(masks[i], action_mask(s, p), err_msg=f"mask of hand {i}")
        np.testing.assert_array_equal(obs[i], encode(s, p), err_msg=f"observation of hand {i}")


def play_lockstep(
    n_envs: int, n_hands: int, seed: int, rules: Rules | None = None, knock_rate: float = 0.5
) -> dict[str, int]:
    """Play until ``n_hands`` hands ended, comparing every step; returns outcome counts."""
    rules = rules or Rules()
    rng = np_rng(seed)
    decks = np.array([rng.permutation(52) for _ in range(n_envs)])
    vh = VectorHands(n_envs, seed=seed, rules=rules)
    vh.reset(decks=decks)
    queued = np.array([rng.permutation(52) for _ in range(n_hands + n_envs)])
    vh.queue_decks(queued)
    next_deck = 0
    states = [HandState.deal(rules, deck=d) for d in decks]
    counts = dict.fromkeys(OUTCOME_NAMES[1:], 0)
    ended = 0
    while ended < n_hands:
        check_same(vh, states)
        acts = pick_actions(vh.action_mask, rng, knock_rate, vh.observe())
        rewards, terminated, truncated = vh.step(acts)
        results = (vh.outcome, vh.winner, vh.points, vh.knocker, vh.knocker_deadwood, vh.defender_deadwood)
        for i, s in enumerate(states):
            s.apply(int(acts[i]))
            if not s.is_over:
                assert not terminated[i] and not truncated[i] and not rewards[i].any()
                continue
            r = s.result
            assert r is not None
            assert tuple(rewards[i]) == r.returns, (i, r)
            assert truncated[i] == (r.outcome == "truncated") and terminated[i] == (r.outcome != "truncated")
            outcome, winner, points, knocker, kdw, ddw = (x[i] for x in results)
            assert OUTCOME_NAMES[outcome] == r.outcome
            assert (winner if winner >= 0 else None) == r.winner and points == r.points
            assert (knocker if knocker >= 0 else None) == r.knocker
            assert (kdw if kdw >= 0 else None) == r.knocker_deadwood
            assert (ddw if ddw >= 0 else None) == r.defender_deadwood
            assert vh.result(i)["outcome"] == r.outcome
            counts[r.outcome] += 1
            ended += 1
            states[i] = HandState.deal(rules, deck=queued[next_deck])
            next_deck += 1
    check_same(vh, states)
    return counts


def test_random_hands_match_the_scalar_engine_at_every_step() -> None:
    counts = play_lockstep(128, 1000, seed=11)  # 30,000 more: the slow test below
    assert sum(counts.values()) >= 1000
    # the showdown in all its outcomes, and the other ends, were all exercised
    assert counts["gin"] > 10 and counts["knock"] > 100 and counts["undercut"] > 20 and counts["dead"] > 50


@pytest.mark.slow
def test_many_more_random_hands_match_the_scalar_engine() -> None:
    hands = slow_size(30000, 6000)
    counts = play_lockstep(512, hands, seed=12, knock_rate=0.3)
    assert sum(counts.values()) >= hands


def rules_option_cases() -> list[dict]:
    """Batched-against-scalar cases from the rules table itself (``Rules``' fields and their ranges):
    each int option at its lowest, its highest and half its default, each bool option flipped. A new
    option gets its cases with no edit here; one of another type gets a case that fails, naming it."""
    cases: list[dict] = []
    for field in fields(Rules):
        if isinstance(field.default, bool):
            cases.append({field.name: not field.default})
        elif field.name in _RANGES:
            lo, hi = _RANGES[field.name]
            values = dict.fromkeys((lo, hi, max(lo, field.default // 2)))  # type: ignore[operator]
            cases.extend({field.name: v} for v in values if v != field.default)
        else:
            cases.append({field.name: None})
    return cases


@pytest.mark.parametrize("options", rules_option_cases(), ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_each_rules_option_matches_the_scalar_engine(options: dict) -> None:
    (name, value), = options.items()
    assert value is not None, f"rules option {name!r}: no batched test values for its type (add them here)"
    assert name in hk.RULES_FIELDS  # the kernels get it in their rules vector
    rules = Rules(**options)
    assert hk.rules_vector(rules)[hk.RULES_FIELDS.index(name)] == int(value)
    counts = play_lockstep(32, 150, seed=len(str(options)), rules=rules)
    if name == "max_turns" and value < 20:
        assert counts["truncated"] > 0
    if name == "dead_stock":
        assert counts["dead"] > 0


def test_the_rules_vector_is_every_rules_field_in_order() -> None:
    rules = Rules(gin_bonus=31, undercut_bonus=17, knock_limit=7, target_score=250, dead_stock=5,
                  allow_discard_taken_card=True, max_turns=90)
    assert Rules.option_names() == hk.RULES_FIELDS
    assert list(hk.rules_vector(rules)) == [int(v) for v in rules.to_dict().values()]
    named = {name: getattr(hk, name) for name in dir(hk) if name.startswith("R_")}
    assert sorted(named.values()) == sorted(set(named.values()))  # no two names for one entry
    for name, index in named.items():
        assert 0 <= index < len(hk.RULES_FIELDS), name


def _golden_logs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Rules, tuple[int, ...], list[int]]]:
    """Every hand the golden tests play: (rules, deck, actions), recorded as they play it."""
    golden = importlib.import_module("test_hand_golden")
    played: dict[int, tuple[HandState, Rules, tuple[int, ...], list[int]]] = {}
    original = HandState.apply

    def recording_apply(self: HandState, action: int) -> None:
        original(self, action)
        played[id(self)] = (self, self.rules, self.deck, list(self.actions))

    monkeypatch.setattr(HandState, "apply", recording_apply)
    for name, fn in inspect.getmembers(golden, inspect.isfunction):
        if not name.startswith("test_"):
            continue
        marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
        if not marks:
            fn()
            continue
        (mark,) = marks
        names = [x.strip() for x in mark.args[0].split(",")] if isinstance(mark.args[0], str) else mark.args[0]
        for values in mark.args[1]:
            values = values if len(names) > 1 else (values,)
            fn(**dict(zip(names, values, strict=True)))
    monkeypatch.undo()
    return [(rules, deck, actions) for _, rules, deck, actions in played.values()]


def test_every_golden_hand_plays_the_same_through_the_batched_core(monkeypatch: pytest.MonkeyPatch) -> None:
    logs = _golden_logs(monkeypatch)
    assert len(logs) >= 20
    outcomes = set()
    for rules, deck, actions in logs:
        vh = VectorHands(1, rules=rules)
        vh.reset(decks=np.array([deck]))
        s = HandState.deal(rules, deck=deck)
        rows = np.array([0])
        for a in actions:
            check_same(vh, [s])
            rewards, ended = vh.apply(rows, np.array([a]))
            s.apply(a)
            assert bool(ended[0]) == s.is_over
        if s.is_over:
            r = s.result
            assert r is not None
            got = vh.result(0)
            outcomes.add(r.outcome)
            assert tuple(rewards[0]) == r.returns
            assert got["outcome"] == r.outcome and got["points"] == r.points
            assert got["knocker_deadwood"] == r.knocker_deadwood and got["defender_deadwood"] == r.defender_deadwood
            np.testing.assert_array_equal(vh.observe_rows(rows, np.array([0]))[0], encode(s, 0))
            np.testing.assert_array_equal(vh.observe_rows(rows, np.array([1]))[0], encode(s, 1))
        else:
            check_same(vh, [s])
    assert outcomes == {"gin", "knock", "undercut", "dead", "truncated"}


def test_meld_kernels_match_the_scalar_functions() -> None:
    from gin3_env.engine import melds

    rng = np_rng(5)
    kd = np.zeros(52, np.int64)
    order = np.zeros(52, np.int64)
    for k in range(1500):
        if k % 2:  # hands rich in sets
            ranks = rng.choice(13, 3, replace=False)
            pool = [s * 13 + int(r) for r in ranks for s in range(4)]
            cards = [int(c) for c in rng.choice(pool, 8, replace=False)]
            cards += [int(c) for c in rng.permutation(52) if int(c) not in cards][:3]
        else:
            cards = [int(c) for c in rng.permutation(52)[:11]]
        mask = sum(1 << c for c in cards)
        assert mk.deadwood(mask) == melds.deadwood_of_mask(mask)
        scalar = melds.knock_deadwoods(mask)
        n = mk.knock_deadwoods(mask, kd, order)
        assert list(order[:n]) == list(scalar)  # same cards in the same (dict) order
        assert all(kd[c] == v for c, v in scalar.items())
        assert mk.knock_min(mask) == min(scalar.values())
        for m in (mask, mask & ~(1 << cards[0])):
            dead = sum(1 << c for c in melds.best_arrangement(m).deadwood_cards)
            assert mk.best_deadwood_cards(m) == dead


# ------------------------------------------------------------------ seeding
def test_seeds_give_the_same_deals_and_others_differ() -> None:
    a, b, c = VectorHands(16, seed=7), VectorHands(16, seed=7), VectorHands(16, seed=8)
    np.testing.assert_array_equal(a.observe(), b.observe())
    assert (a.hands != c.hands).any()
    rng = np_rng(0)
    for _ in range(60):
        acts = pick_actions(a.action_mask, rng, 0.5)
        for x in (a, b):
            x.step(acts)
        np.testing.assert_array_equal(a.observe(), b.observe())
        np.testing.assert_array_equal(a.outcome, b.outcome)
    a.reset(seed=7)
    np.testing.assert_array_equal(a.observe(), VectorHands(16, seed=7).observe())
    # the deals are the generator's permuted rows, as the module doc says
    decks = np.random.default_rng(3).permuted(np.broadcast_to(np.arange(52, dtype=np.int8), (4, 52)), axis=1)
    d = VectorHands(4, seed=3)
    e = VectorHands(4)
    e.reset(decks=decks)
    np.testing.assert_array_equal(d.hands, e.hands)


# ------------------------------------------------------------------ bad input
def _snapshot(vh: VectorHands) -> tuple[np.ndarray, ...]:
    return (vh._S.copy(), vh._M.copy(), vh._pile.copy(), vh._mask.copy(), vh.observe())


def _assert_same(before: tuple[np.ndarray, ...], vh: VectorHands) -> None:
    for x, y in zip(before, _snapshot(vh), strict=True):
        np.testing.assert_array_equal(x, y)


def test_bad_actions_are_refused_naming_the_hand_and_nothing_changes() -> None:
    vh = VectorHands(6, seed=1)
    rng = np_rng(1)
    for _ in range(3):
        vh.step(pick_actions(vh.action_mask, rng, 0.0))
    good = pick_actions(vh.action_mask, rng, 0.0)
    before = _snapshot(vh)
    illegal = good.copy()
    illegal[4] = int(np.flatnonzero(vh.action_mask[4] == 0)[0])
    with pytest.raises(IllegalActionError, match=rf"hand 4: illegal action {illegal[4]} "):
        vh.step(illegal)
    _assert_same(before, vh)
    out = good.copy()
    out[2] = 107
    with pytest.raises(ValueError, match="hand 2: action 107 out of range"):
        vh.step(out)
    out[2] = -1
    with pytest.raises(ValueError, match="hand 2: action -1 out of range"):
        vh.step(out)
    with pytest.raises(ValueError, match=r"shape \(6,\)"):
        vh.step(good[:5])
    with pytest.raises(ValueError, match="integers"):
        vh.step(good.astype(np.float64))
    with pytest.raises(ValueError, match="integers"):
        vh.step(np.ones(6, dtype=bool))
    _assert_same(before, vh)
    vh.step(good)  # and the good ones still play


def test_bad_decks_are_refused_naming_the_row() -> None:
    vh = VectorHands(3, seed=0)
    before = _snapshot(vh)
    decks = np.array([np.arange(52)] * 3)
    decks[1, 5] = 7
    with pytest.raises(ValueError, match=r"deck row 1 is not a permutation.*repeats card 8C"):
        vh.reset(decks=decks)
    decks[1, 5] = 60
    with pytest.raises(ValueError, match="deck row 1 holds a value that is not a card"):
        vh.reset(decks=decks)
    with pytest.raises(ValueError, match="shape"):
        vh.reset(decks=np.arange(52)[None])
    with pytest.raises(ValueError, match="ints"):
        vh.reset(decks=np.zeros((3, 52)))
    _assert_same(before, vh)
    with pytest.raises(ValueError, match="num_envs"):
        VectorHands(0)
    with pytest.raises(ValueError, match="unknown rules option"):
        VectorHands(2, knock_limt=3)


def test_observations_equal_the_aec_envs_observe() -> None:
    """docs/design.md's wording: observe() and action_mask equal the AEC env's observe(agent) on the
    same deck and actions (the AEC env itself, not only the encoder it calls)."""
    import gin3_env

    rng = np_rng(21)
    decks = np.array([rng.permutation(52) for _ in range(24)])
    vh = VectorHands(24)
    vh.reset(decks=decks)
    envs = [gin3_env.raw_env() for _ in decks]
    for env, deck in zip(envs, decks, strict=True):
        env.reset(options={"deck": [int(c) for c in deck]})
    rows = np.arange(24)
    live = np.ones(24, dtype=bool)
    while live.any():
        obs, masks = vh.observe(), vh.action_mask
        for i in np.flatnonzero(live):
            seen = envs[i].observe(envs[i].agent_selection)
            np.testing.assert_array_equal(obs[i], seen["observation"])
            np.testing.assert_array_equal(masks[i], seen["action_mask"])
        acts = pick_actions(masks[live], rng, 0.3, obs[live])
        _, ended = vh.apply(rows[live], acts)
        for i, a in zip(np.flatnonzero(live), acts, strict=True):
            envs[i].step(int(a))
        live[rows[live][ended != 0]] = False


def test_the_public_views_follow_the_hands_and_refuse_writes() -> None:
    hands = VectorHands(4, seed=3)
    views = (hands.players_view, hands.mask_view, hands.winner_view, hands.turns_view)
    for view in views:
        assert not view.flags.writeable
        with pytest.raises(ValueError):
            view[0] = 0
    np.testing.assert_array_equal(hands.mask_view, hands.action_mask)
    np.testing.assert_array_equal(hands.players_view, hands.current_player)
    players, mask = views[0], views[1]
    for _ in range(30):
        hands.step(RandomBatch(0).act(hands.observe(), hands.action_mask))
        np.testing.assert_array_equal(mask, hands.action_mask)  # the same views, no copy
        np.testing.assert_array_equal(players, hands.current_player)
        np.testing.assert_array_equal(hands.winner_view, hands.winner)
        np.testing.assert_array_equal(hands.turns_view, hands.turns)
