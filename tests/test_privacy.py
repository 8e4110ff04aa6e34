"""An agent's observation never depends on what it may not know.

For random mid-hand states: swap one of the opponent's hidden cards (held, not
known to be held) with a card still in the stock, rebuild the state through the
engine from the swapped deck and the same actions, and compare observations.
The same for two stock cards (the stock order is hidden from both). The
opponent's own observation must change (the swap is real); the agent's must not.

The privileged state (``env.state()``, :mod:`gin3_env.observation.state`) is the
opposite: it holds both hands and the stock order, so it changes with every such
swap. It is for centralised critics and diagnosis only: never part of an
observation, and no policy, no observation encoder and no game loop imports it.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gin3_env.engine.cards import cards_of
from gin3_env.engine.hand import BOX, TEAM
from gin3_env.envs import aec_hand, aec_match
from gin3_env.observation.layout import MATCH_ROLE_OFFSET, MATCH_SCORE_OFFSET, OBS_SIZE

AGENTS = ("team_0", "box_0")


def swapped(deck: tuple[int, ...] | list[int], a: int, b: int) -> list[int]:
    out = list(deck)
    i, j = out.index(a), out.index(b)
    out[i], out[j] = out[j], out[i]
    return out


def same_obs(x: dict[str, np.ndarray], y: dict[str, np.ndarray]) -> bool:
    return np.array_equal(x["observation"], y["observation"]) and np.array_equal(
        x["action_mask"], y["action_mask"]
    )


def random_mid_hand(seed: int) -> aec_hand.raw_env | None:
    rng = np.random.default_rng(seed)
    env = aec_hand.raw_env()
    env.reset(seed=seed)
    for _ in range(int(rng.integers(0, 90))):
        assert env.hand is not None
        if env.hand.is_over:
            return None
        env.step(int(rng.choice(env.hand.legal_actions())))
    return None if env.hand is None or env.hand.is_over else env


@pytest.mark.parametrize("seed", range(40))
def test_hidden_cards_and_stock_order_do_not_leak_in_the_hand_env(seed: int) -> None:
    env = random_mid_hand(seed)
    if env is None:
        pytest.skip("the random hand ended early")
    hand = env.hand
    assert hand is not None
    log = env.replay_log()
    rng = np.random.default_rng(1000 + seed)
    for viewer in (TEAM, BOX):
        opp = 1 - viewer
        hidden = cards_of(hand.hands[opp] & ~hand.known[opp])
        assert hidden, "a player always holds cards nobody saw him take"
        for _ in range(3):
            h, s = int(rng.choice(hidden)), int(rng.choice(hand.stock))
            other = aec_hand.replay({**log, "deck": swapped(log["deck"], h, s)})
            assert other.hand is not None and other.hand.hands[opp] >> s & 1
            assert same_obs(env.observe(AGENTS[viewer]), other.observe(AGENTS[viewer]))
            assert not same_obs(env.observe(AGENTS[opp]), other.observe(AGENTS[opp]))
    if len(hand.stock) >= 2:
        a, b = (int(c) for c in rng.choice(hand.stock, size=2, replace=False))
        other = aec_hand.replay({**log, "deck": swapped(log["deck"], a, b)})
        for agent in AGENTS:
            assert same_obs(env.observe(agent), other.observe(agent))


def _play_match(decks: list[list[int]], roles: dict[str, int], actions: list[int]) -> aec_match.raw_env:
    env = aec_match.raw_env()
    env.reset(options={"decks": decks, "roles": roles})
    for a in actions:
        env.step(a)
    return env


@pytest.mark.parametrize("seed", range(12))
def test_match_seats_see_only_their_side(seed: int) -> None:
    """The box's hidden cards are hidden from the captain and the sitter; the team's from the box.
    The sitter sees the captain's view of the hand (it advises him) with its own role."""
    rng = np.random.default_rng(seed)
    roles = {"box": seed % 3, "captain": (seed + 1) % 3, "sitter": (seed + 2) % 3}
    env = aec_match.raw_env()
    env.reset(seed=seed, options={"roles": roles})
    assert env.match is not None
    deck = list(env.match.hand.deck)
    actions: list[int] = []
    for _ in range(int(rng.integers(0, 60))):
        hand = env.match.hand
        if hand.is_over or len(env.match.history) > 0:
            break
        a = int(rng.choice(hand.legal_actions()))
        actions.append(a)
        env.step(a)
    if env.match.history:
        pytest.skip("the first hand ended early")
    hand = env.match.hand
    seats = {name: f"player_{seat}" for name, seat in roles.items()}
    captain, sitter = env.observe(seats["captain"]), env.observe(seats["sitter"])
    assert np.array_equal(captain["observation"][:OBS_SIZE], sitter["observation"][:OBS_SIZE])
    assert not sitter["action_mask"].any()
    assert captain["observation"][MATCH_ROLE_OFFSET:MATCH_SCORE_OFFSET].tolist() == [0, 1, 0]
    assert sitter["observation"][MATCH_ROLE_OFFSET:MATCH_SCORE_OFFSET].tolist() == [0, 0, 1]

    def check(hidden_side: int, watchers: tuple[str, ...], owner: str) -> None:
        hidden = cards_of(hand.hands[hidden_side] & ~hand.known[hidden_side])
        h, s = int(rng.choice(hidden)), int(rng.choice(hand.stock))
        other = _play_match([swapped(deck, h, s)], roles, actions)
        for seat in watchers:
            assert same_obs(env.observe(seat), other.observe(seat)), seat
        assert not same_obs(env.observe(owner), other.observe(owner))

    check(BOX, (seats["captain"], seats["sitter"]), seats["box"])
    check(TEAM, (seats["box"],), seats["captain"])


def test_observation_reads_no_hidden_state_directly() -> None:
    """A state whose hidden parts are scrambled in place (the opponent's unknown cards and the
    stock exchanged wholesale) gives the same observation: nothing else is read."""
    env = random_mid_hand(3)
    assert env is not None and env.hand is not None
    hand = env.hand
    before: dict[str, Any] = {agent: env.observe(agent) for agent in AGENTS}
    viewer = hand.player
    opp = 1 - viewer
    hidden = cards_of(hand.hands[opp] & ~hand.known[opp])
    k = min(len(hidden), len(hand.stock))
    out, into = hidden[:k], hand.stock[:k]
    for c_out, c_in in zip(out, into, strict=True):
        hand.hands[opp] = (hand.hands[opp] & ~(1 << c_out)) | (1 << c_in)
    hand.stock[:k] = out
    hand.stock.reverse()
    assert same_obs(before[AGENTS[viewer]], env.observe(AGENTS[viewer]))


@pytest.mark.parametrize("seed", range(12))
def test_the_privileged_state_sees_what_no_observation_does(seed: int) -> None:
    """A hidden card swapped with a stock card, or two stock cards swapped: the observations
    of the agent that cannot see it stay the same, the state changes (and stays in its space)."""
    env = random_mid_hand(seed)
    if env is None:
        pytest.skip("the random hand ended early")
    hand = env.hand
    assert hand is not None
    log = env.replay_log()
    rng = np.random.default_rng(2000 + seed)
    state = env.state()
    assert state in env.state_space
    for viewer in (TEAM, BOX):
        opp = 1 - viewer
        h, s = int(rng.choice(cards_of(hand.hands[opp] & ~hand.known[opp]))), int(rng.choice(hand.stock))
        other = aec_hand.replay({**log, "deck": swapped(log["deck"], h, s)})
        assert same_obs(env.observe(AGENTS[viewer]), other.observe(AGENTS[viewer]))
        assert not np.array_equal(state, other.state()) and other.state() in other.state_space
    if len(hand.stock) >= 2:
        a, b = (int(c) for c in rng.choice(hand.stock, size=2, replace=False))
        other = aec_hand.replay({**log, "deck": swapped(log["deck"], a, b)})
        assert all(same_obs(env.observe(agent), other.observe(agent)) for agent in AGENTS)
        assert not np.array_equal(state, other.state())


def test_the_match_state_sees_the_boxs_hidden_cards() -> None:
    roles = {"box": 0, "captain": 1, "sitter": 2}
    env = _play_match([list(range(52))], roles, [2, 2, 0])  # both pass, the captain draws
    assert env.hand is not None and env.state() in env.state_space
    hidden = cards_of(env.hand.hands[BOX] & ~env.hand.known[BOX])
    other = _play_match([swapped(list(range(52)), hidden[0], env.hand.stock[0])], roles, [2, 2, 0])
    for seat in ("player_1", "player_2"):
        assert same_obs(env.observe(seat), other.observe(seat))
    assert not np.array_equal(env.state(), other.state())


def _imports_the_state(path: Path, node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name == "gin3_env.observation.state" for alias in node.names)
    if not isinstance(node, ast.ImportFrom):
        return False
    module = node.module or ""
    return (
        module.endswith("observation.state")
        or (module.endswith("observation") and any(alias.name == "state" for alias in node.names))
        or (node.level == 1 and module == "state" and path.parent.name == "observation")
    )


def test_no_policy_observation_encoder_or_game_loop_imports_the_state() -> None:
    package = Path(__file__).resolve().parent.parent / "gin3_env"
    readers = sorted(
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if any(_imports_the_state(path, node) for node in ast.walk(ast.parse(path.read_text())))
    )
    assert "envs/aec_hand.py" in readers  # the scan sees the envs' imports
    forbidden = [r for r in readers if r.split("/")[0] in ("policies", "observation", "play", "evaluation")]
    assert not forbidden, f"the privileged state is read by {forbidden}"
