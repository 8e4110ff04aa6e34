"""The privileged state: its layout, the scalar and the batched encoders agree, and the envs'
``state()`` is inside ``state_space``."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from gin3_env.engine.actions import KNOCK_BASE
from gin3_env.engine.hand import HandState
from gin3_env.engine.match import MatchState
from gin3_env.engine.rules import Rules
from gin3_env.observation.state import (
    MATCH_STATE_LAYOUT,
    MATCH_STATE_SIZE,
    STATE_LAYOUT,
    STATE_SIZE,
    encode_match_state,
    encode_state,
)


def test_layout_tiles_the_vector() -> None:
    for layout, size in ((STATE_LAYOUT, STATE_SIZE), (MATCH_STATE_LAYOUT, MATCH_STATE_SIZE)):
        stops = [0] + [stop for _, _, stop in layout]
        assert [start for _, start, _ in layout] == stops[:-1] and stops[-1] == size
    import gin3_env.observation.state as module

    doc_rows = [line.split("|")[1:3] for line in (module.__doc__ or "").splitlines() if line.startswith("| ")]
    table = {name.strip(" `"): span.strip() for span, name in doc_rows[1:]}
    for name, start, stop in STATE_LAYOUT:
        assert table[name] == (f"{start}:{stop}" if stop - start > 1 else str(start)), name


def test_a_dealt_hand() -> None:
    rng = np.random.default_rng(0)
    hand = HandState.deal(deck=rng.permutation(52))
    state = encode_state(hand)
    planes = state[: 11 * 52].reshape(11, 52)
    assert planes[0].sum() == planes[1].sum() == 10 and planes[2].sum() == 1 and planes[3].sum() == 0
    assert planes[4].sum() == 31 and planes[5, hand.stock[-1]] == 1.0 and planes[5, hand.stock[0]] == 1 / 31
    assert (planes[0] + planes[1] + planes[2] + planes[4] == 1).all()  # every card is somewhere, once
    assert state[572] == 1 and state[577] == 1 and state[579] == 1.0


@pytest.mark.parametrize("rules", [Rules(), Rules(max_turns=12), Rules(dead_stock=20, allow_discard_taken_card=True)])
def test_batched_state_equals_the_scalar_one(rules: Rules) -> None:
    """The same decks and actions in ``VectorHands`` (without redeals) and in the engine: the same
    state rows at every step, to the end of every hand; ``hand_state(i)`` is the engine's hand."""
    from gin3_env.vector import VectorHands

    n = 24
    rng = np.random.default_rng(7)
    decks = np.array([rng.permutation(52) for _ in range(n)])
    batch = VectorHands(n, rules=rules)
    batch.reset(decks=decks)
    scalar = [HandState.deal(rules, deck=d) for d in decks]
    for _ in range(400):
        got = batch.state()
        assert got.shape == (n, STATE_SIZE) and got.dtype == np.float32
        for i, hand in enumerate(scalar):
            np.testing.assert_array_equal(got[i], encode_state(hand), err_msg=f"hand {i}")
            twin = batch.hand_state(i)
            assert twin.view(0) == hand.view(0) and twin.view(1) == hand.view(1)
        live = [i for i, hand in enumerate(scalar) if not hand.is_over]
        if not live:
            break
        acts = [int(rng.choice(scalar[i].legal_actions())) for i in live]
        for i, a in zip(live, acts, strict=True):
            scalar[i].apply(a)
        batch.apply(np.array(live), np.array(acts))
    assert all(hand.is_over for hand in scalar)


def test_match_state() -> None:
    match = MatchState.start(Rules(target_score=50), rng=np.random.default_rng(1),
                             roles={"box": 2, "captain": 0, "sitter": 1}, scores=[10, 0, 49])
    state = encode_match_state(match)
    assert state.shape == (MATCH_STATE_SIZE,)
    np.testing.assert_array_equal(state[:STATE_SIZE], encode_state(match.hand))
    assert state[582:591].reshape(3, 3).tolist() == [[0, 0, 1], [1, 0, 0], [0, 1, 0]]
    np.testing.assert_allclose(state[591:], [0.2, 0.0, 0.98])


@pytest.mark.parametrize("make", ["env", "match_env"])
def test_pettingzoo_state_checks(make: str) -> None:
    """PettingZoo's own ``state_space``/``state()`` checks, with no warning of theirs."""
    import warnings

    from pettingzoo.test.state_test import test_state, test_state_space

    import gin3_env

    env = getattr(gin3_env, make)(target_score=30) if make == "match_env" else gin3_env.env()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        test_state_space(env)
        test_state(env, 1000)
    assert not [w for w in caught if "tate" in str(w.message)], [str(w.message) for w in caught]
    assert env.state().shape == env.state_space.shape


def test_state_before_reset_is_refused() -> None:
    import gin3_env
    from gin3_env.envs.single_agent import ThreeHandedGinEnv
    from gin3_env.errors import ResetNeededError

    for env in (gin3_env.env(), gin3_env.raw_env(), gin3_env.match_raw_env(), ThreeHandedGinEnv(opponent="random")):
        with pytest.raises(ResetNeededError):
            env.state()


@pytest.mark.parametrize("cls", ["single_agent:ThreeHandedGinEnv", "single_agent_match:ThreeHandedGinMatchEnv"])
def test_gymnasium_envs_state(cls: str) -> None:
    import importlib

    module, name = cls.split(":")
    env = getattr(importlib.import_module(f"gin3_env.envs.{module}"), name)(opponent="random", target_score=40)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    for _ in range(200):
        state = env.state()
        assert state in env.state_space and "state" not in info
        expected = encode_state(env.hand) if name == "ThreeHandedGinEnv" else encode_match_state(env.match)
        np.testing.assert_array_equal(state, expected)
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated or truncated:
            _, info = env.reset()


@functools.cache
def _match_states() -> np.ndarray:
    """The match state at every step of a match played at random (knocking when it may, so hands score)."""
    rng = np.random.default_rng(4)
    match = MatchState.start(Rules(target_score=200), rng=rng)
    rows = []
    while not match.is_over:
        state = encode_match_state(match)
        np.testing.assert_array_equal(state[:STATE_SIZE], encode_state(match.hand))
        rows.append(state)
        legal = match.hand.legal_actions()
        knocks = [a for a in legal if a >= KNOCK_BASE]
        match.apply(int(rng.choice(knocks or legal)))
    return np.array(rows)


@pytest.mark.parametrize(("name", "start", "stop"), MATCH_STATE_LAYOUT, ids=[row[0] for row in MATCH_STATE_LAYOUT])
def test_every_row_of_the_state_layout_is_written(name: str, start: int, stop: int) -> None:
    """Loops over the state table: each row's entries change along a match (so the encoder writes
    every row)."""
    states = _match_states()
    assert states.shape[1] == MATCH_STATE_SIZE
    assert len(np.unique(states[:, start:stop], axis=0)) > 1, (
        f"{name} ({start}:{stop}) never changes along a match: the encoder does not write it")
