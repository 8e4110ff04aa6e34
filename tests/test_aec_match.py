"""The PettingZoo AEC match env: seats, roles, per-hand rewards, infos, options, copies."""

from __future__ import annotations

import copy
import pickle
import re
import warnings
from typing import Any

import numpy as np
import pytest
from conftest import action, stacked_deck
from pettingzoo.test import api_test, seed_test
from test_aec_hand import GIN_TEAM, JUNK_BOX

import gin3_env
from gin3_env.engine.actions import NUM_ACTIONS
from gin3_env.engine.hand import BOX, TEAM
from gin3_env.engine.match import MatchState, Roles
from gin3_env.envs import aec_match
from gin3_env.envs.infos import OUTCOME_CODES, ROLE_CODES, outcome_name
from gin3_env.observation import MATCH_LAYOUT, MATCH_OBS_SIZE, OBS_SIZE, encode
from gin3_env.observation.layout import MATCH_ROLE_OFFSET, MATCH_SCORE_OFFSET

ROLE = slice(MATCH_ROLE_OFFSET, MATCH_SCORE_OFFSET)  # the seat's role one-hot
SCORES = slice(MATCH_SCORE_OFFSET, MATCH_OBS_SIZE)  # the three totals / target

SEATS = ["player_0", "player_1", "player_2"]
INFO_KEYS = (
    "outcome", "knocker", "winner", "points", "knocker_deadwood", "defender_deadwood", "knock_discard",
    "turns", "hand_roles", "seat_points", "scores", "roles", "hands_played", "match_over", "match_winner",
)


def plain(info: dict[str, Any]) -> dict[str, Any]:
    """An info with its arrays as lists (comparable with ``==``)."""
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items()}


def roles_of(codes: np.ndarray) -> dict[str, int]:
    """Each seat's role code (``infos.ROLE_CODES``) as the ``roles`` option's dict."""
    names = {code: name for name, code in ROLE_CODES.items()}
    return {names[int(code)]: seat for seat, code in enumerate(codes)}


GIN_DECK = stacked_deck(GIN_TEAM, JUNK_BOX, "TH")  # the captain takes 10H and goes gin: 97 points
UNDERCUT_DECK = stacked_deck("AC AD AH 4H 5H 6H 4S 7S 2C TD", "AS 2S 3S 7C 7D 7H JD QD KD 9C", "2H")
UNDERCUT_MOVES = [action("pass"), action("take"), action("knock 9C")]  # the team undercuts: 10
GIN_MOVES = [action("take"), action("knock KS")]


def seat_of(name: str) -> int:
    return SEATS.index(name)


# ------------------------------------------------------------------ API
def test_pettingzoo_api_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(gin3_env.match_env(target_score=60), num_cycles=1000)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: gin3_env.match_env(target_score=60), num_cycles=500)


def test_metadata_spaces_and_docstring_table() -> None:
    env = aec_match.raw_env()
    assert env.metadata["name"] == "three_handed_gin_match_v0" and env.metadata["is_parallelizable"] is False
    assert env.possible_agents == SEATS
    for seat in SEATS:
        assert env.observation_space(seat) is env.observation_space(seat)
        assert env.action_space(seat) is env.action_space(seat)
        assert env.observation_space(seat)["observation"].shape == (MATCH_OBS_SIZE,) == (380,)
    doc = aec_match.__doc__ or ""
    rows = []
    for line in doc.split("### Observation Space", 1)[1].split("####", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(r"\d+(:\d+)?", cells[0]):
            lo, _, hi = cells[0].partition(":")
            rows.append((cells[1].strip("`"), int(lo), int(hi) if hi else int(lo) + 1))
    assert tuple(rows) == MATCH_LAYOUT and MATCH_LAYOUT[-1][2] == MATCH_OBS_SIZE
    shape = re.search(r"\| Observation Shape\s*\|\s*\((\d+),\)", doc)
    assert shape is not None and int(shape.group(1)) == MATCH_OBS_SIZE


# --------------------------------------------------------- random matches
def check_observations(env: aec_match.raw_env) -> None:
    match = env.match
    assert match is not None
    roles = env.roles
    assert roles is not None
    hand = match.hand
    target = match.rules.target_score
    for seat, name in enumerate(SEATS):
        obs = env.observe(name)
        side = BOX if seat == roles.box else TEAM
        assert np.array_equal(obs["observation"][:OBS_SIZE], encode(hand.view(side)))
        role = ("box", "captain", "sitter").index(roles.role_of(seat))
        assert obs["observation"][ROLE].tolist() == [float(i == role) for i in range(3)]
        expected = [min(match.scores[(seat + k) % 3] / target, 1.0) for k in range(3)]
        assert np.array_equal(obs["observation"][SCORES], np.array(expected, np.float32))
        acting = not hand.is_over and not match.is_over and roles.seat_of(hand.player) == seat
        mask = hand.legal_mask() if acting else np.zeros(NUM_ACTIONS, np.int8)
        assert np.array_equal(obs["action_mask"], mask)


@pytest.mark.parametrize("seed", range(4))
def test_random_match_bookkeeping(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scale = 0.5
    env = aec_match.raw_env(reward_scale=scale, target_score=40)
    start = [int(x) for x in rng.integers(0, 30, size=3)]  # a short match
    env.reset(seed=seed, options={"scores": start})
    # The same draws of roles and the same deals:
    twin = MatchState.start(env.rules, rng=np.random.default_rng(seed), scores=start)
    assert env.match is not None and twin.roles == env.match.roles
    totals = list(start)
    hands = 0
    while not env.match.is_over:
        if hands == 0 or rng.random() < 0.2:  # every step of the first hand, then a sample
            check_observations(env)
        roles = env.match.roles
        agent = env.agent_selection
        assert seat_of(agent) in (roles.captain, roles.box) and seat_of(agent) != roles.sitter
        assert seat_of(agent) == roles.seat_of(env.match.hand.player)
        a = int(rng.choice(env.match.hand.legal_actions()))
        env.step(a)
        result = twin.apply(a)
        assert env.infos[agent]["outcome"] == 0 or result is not None  # cleared when the seat acts
        assert all(set(env.infos[s]) == set(INFO_KEYS) for s in SEATS)  # one schema on every step
        if result is None:
            assert env.rewards == dict.fromkeys(SEATS, 0.0)
            continue
        hands += 1
        check_observations(env)
        expected = [0.0, 0.0, 0.0]
        expected[roles.captain] = result.returns[TEAM] * scale
        expected[roles.box] = result.returns[BOX] * scale
        assert env.rewards == dict(zip(SEATS, expected, strict=True))
        if result.winner is not None:
            totals[roles.seat_of(result.winner)] += result.points
        assert env.match.scores == totals == twin.scores
        info = env.infos["player_0"]
        assert all(plain(env.infos[s]) == plain(info) for s in SEATS)
        assert outcome_name(info["outcome"]) == result.outcome and info["scores"].tolist() == totals
        assert roles_of(info["hand_roles"]) == roles.to_dict()
        assert roles_of(info["roles"]) == roles.after(result).to_dict() == twin.roles.to_dict()
        assert info["hands_played"] == hands
        if result.winner is not None:
            assert info["winner"] == roles.seat_of(result.winner)
            assert info["seat_points"][info["winner"]] == result.points
    check_observations(env)
    assert twin.is_over and env.match.winner == twin.winner
    assert env.terminations == dict.fromkeys(SEATS, True)
    info = env.infos["player_1"]
    assert info["match_over"] and info["match_winner"] == info["winner"] == env.match.winner
    assert max(info["scores"]) >= 40 and info["scores"][env.match.winner] >= 40
    stepped = []
    while env.agents:
        stepped.append(env.agent_selection)
        env.step(None)
    assert sorted(stepped) == SEATS


# ------------------------------------------------------------ golden
def test_golden_two_hands_with_role_rotation() -> None:
    env = gin3_env.match_env()
    env.reset(
        options={"decks": [UNDERCUT_DECK, GIN_DECK], "roles": {"box": 0, "captain": 1, "sitter": 2}}
    )
    assert env.agent_selection == "player_1"
    assert not env.observe("player_2")["action_mask"].any()
    for a in UNDERCUT_MOVES:
        env.step(a)
    # The box (seat 0) knocked and was undercut: the captain (seat 1) scores 10.
    assert env.rewards == {"player_0": -10.0, "player_1": 10.0, "player_2": 0.0}
    info = env.infos["player_2"]
    assert (info["outcome"], info["knocker"], info["winner"], info["points"]) == (
        OUTCOME_CODES["undercut"],
        0,  # player_0
        1,  # player_1
        10,
    )
    assert info["scores"].tolist() == [0, 10, 0] and info["seat_points"].tolist() == [0, 10, 0]
    # Box lost: seat 1 (captain) goes into the box, seat 2 (sitter) captains, seat 0 sits out.
    assert roles_of(info["roles"]) == {"box": 1, "captain": 2, "sitter": 0}
    assert info["roles"].tolist() == [ROLE_CODES["sitter"], ROLE_CODES["box"], ROLE_CODES["captain"]]
    assert not info["match_over"] and info["match_winner"] == -1
    assert env.agent_selection == "player_2"
    obs = env.observe("player_2")["observation"]
    assert obs[ROLE].tolist() == [0, 1, 0] and obs[SCORES].tolist() == pytest.approx([0, 0, 0.1])
    assert plain(env.last()[4]) == plain(info)  # the captain sees the result before he acts
    for a in GIN_MOVES:
        env.step(a)
    assert env.rewards == {"player_0": 0.0, "player_1": -97.0, "player_2": 97.0}
    assert env._cumulative_rewards["player_1"] == -87.0  # +10, then -97; it has not acted since
    assert env.infos["player_0"]["scores"].tolist() == [0, 10, 97]
    assert roles_of(env.infos["player_0"]["roles"]) == {"box": 2, "captain": 0, "sitter": 1}
    assert env.agent_selection == "player_0" and not any(env.terminations.values())


def test_golden_gin_wins_the_match() -> None:
    env = gin3_env.match_env()
    env.reset(options={"decks": [GIN_DECK], "roles": {"box": 1, "captain": 0, "sitter": 2}, "scores": [90, 0, 99]})
    for a in GIN_MOVES:
        env.step(a)
    assert env.terminations == dict.fromkeys(SEATS, True)
    assert env.rewards == {"player_0": 97.0, "player_1": -97.0, "player_2": 0.0}
    info = env.infos["player_2"]
    assert info["scores"].tolist() == [187, 0, 99] and info["match_over"]
    assert info["match_winner"] == info["winner"] == 0  # player_0
    for seat in SEATS:
        obs = env.observe(seat)
        assert not obs["action_mask"].any()
        assert obs["observation"].max() <= 1.0
    obs = env.observe("player_0")["observation"]
    assert obs[ROLE].tolist() == [0, 1, 0]  # the role it played the last hand in
    assert obs[SCORES].tolist() == pytest.approx([1.0, 0.0, 0.99])  # 187/100 clipped to 1
    assert env.observe("player_2")["observation"][SCORES].tolist() == pytest.approx([0.99, 1.0, 0.0])


# ------------------------------------------------------------ options
def test_options_are_used() -> None:
    env = aec_match.raw_env()
    roles = {"box": 2, "captain": 0, "sitter": 1}
    env.reset(options={"decks": [GIN_DECK], "roles": roles, "scores": [5, 6, 7]})
    assert env.match is not None
    assert env.match.hand.deck == tuple(GIN_DECK) and env.match.roles == Roles(2, 0, 1)
    assert env.match.scores == [5, 6, 7] and env.agent_selection == "player_0"
    env.reset(seed=8)
    drawn = env.match.roles
    env.reset(seed=8)
    assert env.match.roles == drawn


def test_seeded_reset_and_rng_continuation() -> None:
    a, b = aec_match.raw_env(), aec_match.raw_env()
    a.reset(seed=21)
    b.reset(seed=21)
    assert a.match.hand.deck == b.match.hand.deck and a.match.roles == b.match.roles
    a.reset()
    b.reset()
    assert a.match.hand.deck == b.match.hand.deck
    a.reset(seed=22)
    assert a.match.hand.deck != b.match.hand.deck


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"decks": GIN_DECK}, r"options\['decks'\]\[0\]"),
        ({"decks": [GIN_DECK, GIN_DECK[:50]]}, r"options\['decks'\]\[1\].*52 cards"),
        ({"decks": "AC 2C"}, "list of decks"),
        ({"roles": {"box": 0, "captain": 1}}, "roles must be a dict with keys"),
        ({"roles": {"box": 0, "captain": 0, "sitter": 2}}, "one role each"),
        ({"roles": {"box": 0, "captain": "1", "sitter": 2}}, "seat 0..2"),
        ({"scores": [1, 2]}, "three ints"),
        ({"scores": [1, -2, 3]}, "three ints"),
        ({"scores": 5}, "three ints"),
        ({"scores": [100, 0, 0]}, "already reach the target"),
        ({"seats": 3}, "unknown reset option"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    env = aec_match.env()
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)


def test_bad_constructor_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="not both"):
        aec_match.raw_env(rules=gin3_env.Rules(), target_score=50)
    with pytest.raises(TypeError, match="unexpected keyword argument 'seats' for three_handed_gin_match_v0"):
        aec_match.raw_env(seats=3)


# ------------------------------------------------------------ copies
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_mid_match_copy_continues_identically(how: str) -> None:
    env = gin3_env.match_env(target_score=50, reward_scale=0.1)
    env.reset(seed=4)
    rng = np.random.default_rng(1)
    for _ in range(150):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))
    clone = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    assert clone.unwrapped.rules.target_score == 50 and clone.unwrapped.reward_scale == 0.1

    def finish(e: Any, seed: int) -> list[Any]:
        r = np.random.default_rng(seed)
        trace = []
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            trace.append((agent, reward, term, obs["observation"].tobytes(), sorted(plain(info).items())))
            e.step(None if term or trunc else int(r.choice(np.flatnonzero(obs["action_mask"]))))
        return trace

    assert finish(env, 3) == finish(clone, 3)


def test_render_shows_seats_and_scores() -> None:
    env = gin3_env.match_env(render_mode="ansi")
    env.reset(options={"decks": [GIN_DECK], "roles": {"box": 1, "captain": 0, "sitter": 2}, "scores": [3, 4, 5]})
    text = env.render()
    assert isinstance(text, str)
    assert "Scores:" in text and "player_0 (captain) 3" in text and "player_2 (sitter) 5" in text
