"""The PettingZoo AEC hand env: API conformance, golden hands, the engine behind it, settings."""

from __future__ import annotations

import copy
import json
import pickle
import re
import warnings
from typing import Any

import numpy as np
import pytest
from conftest import action, stacked_deck
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers

import gin3_env
from gin3_env.engine.actions import NUM_ACTIONS, TAKE_DISCARD, knock_action
from gin3_env.engine.cards import card_str, parse_card
from gin3_env.engine.hand import HandState
from gin3_env.engine.phases import Phase
from gin3_env.engine.rules import Rules
from gin3_env.envs import aec_hand
from gin3_env.envs.infos import OUTCOME_CODES, outcome_name
from gin3_env.observation import LAYOUT, OBS_SIZE, encode

AGENTS = ["team_0", "box_0"]
# Captain: three melds and K of spades; taking the upcard 10H makes 7-8-9-10H: gin on the first turn.
GIN_TEAM = "AC 2C 3C 4D 5D 6D 7H 8H 9H KS"
# The box: ten cards with no meld (distinct ranks, no three in a row in a suit):
# K+Q+J+9+8+7+6+5+4+3 = 10+10+10+9+8+7+6+5+4+3 = 72.
JUNK_BOX = "KC QD JH 9S 8C 7D 6S 5C 4H 3S"


def play_random(env: Any, rng: np.random.Generator) -> list[int]:
    """Play one hand with random legal actions; return the actions."""
    actions = []
    for _agent in env.agent_iter():
        obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        a = int(rng.choice(legal))
        actions.append(a)
        env.step(a)
    return actions


def run_actions(env: Any, actions: list[int]) -> None:
    for a in actions:
        env.step(a)


# ------------------------------------------------------------------ API
def test_pettingzoo_api_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(gin3_env.env(), num_cycles=1000)


def test_pettingzoo_seed_test() -> None:
    seed_test(gin3_env.env, num_cycles=1000)


def test_wrappers_are_pettingzoos_classic_stack() -> None:
    env = gin3_env.env()
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert isinstance(env.env, wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(env.env.env, wrappers.TerminateIllegalWrapper)
    assert isinstance(env.unwrapped, aec_hand.raw_env)
    assert str(env) == "three_handed_gin_v0"
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection
    env.reset(seed=0)
    assert env.agent_selection == "team_0"
    assert env.terminations is env.unwrapped.terminations


def test_metadata_agents_and_spaces() -> None:
    env = aec_hand.raw_env()
    assert env.metadata["name"] == "three_handed_gin_v0"
    assert env.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    assert env.metadata["is_parallelizable"] is False
    assert env.possible_agents == AGENTS
    for agent in AGENTS:
        space = env.observation_space(agent)
        assert space is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert space["observation"].shape == (OBS_SIZE,) == (374,)
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (NUM_ACTIONS,) and space["action_mask"].dtype == np.int8
        assert env.action_space(agent).n == NUM_ACTIONS
    act = env.action_space("team_0")
    for x in (0, 106, np.int64(5), np.int32(3)):
        assert act.contains(x)
    for x in (-1, 107, 2**70, 1.0, "3", np.float32(2.0), None):
        assert not act.contains(x)


# -------------------------------------------------------------- docstring
def _table_rows(doc: str, heading: str) -> list[list[str]]:
    section = doc.split(heading, 1)[1]
    rows = []
    for line in section.splitlines()[1:]:
        if line.startswith("###"):
            break
        if line.startswith("|") and not set(line) <= set("|- "):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_docstring_observation_table_matches_layout_and_spaces() -> None:
    doc = aec_hand.__doc__
    assert doc is not None
    rows = _table_rows(doc, "### Observation Space")[1:]  # skip the header row
    documented = []
    for index, name, meaning in rows[: len(LAYOUT)]:
        lo, _, hi = index.partition(":")
        documented.append((name.strip("`"), int(lo), int(hi) if hi else int(lo) + 1))
        assert meaning
    assert tuple(documented) == LAYOUT
    assert LAYOUT[-1][2] == OBS_SIZE
    shape = re.search(r"\| Observation Shape\s*\|\s*\((\d+),\)", doc)
    assert shape is not None
    assert int(shape.group(1)) == aec_hand.raw_env().observation_space("team_0")["observation"].shape[0]
    assert "`agents= ['team_0', 'box_0']`" in doc
    assert f"Discrete({NUM_ACTIONS})" in doc


def test_docstring_action_table_covers_every_action() -> None:
    rows = _table_rows(aec_hand.__doc__ or "", "### Action Space")[1:]
    assert [r[0] for r in rows] == ["0", "1", "2", "3 + c", "55 + c"]  # 3 + 52 + 52 = 107 ids


# ----------------------------------------------------------- golden hands
def test_golden_gin_on_the_first_turn() -> None:
    deck = stacked_deck(GIN_TEAM, JUNK_BOX, "TH")
    env = gin3_env.env(reward_scale=1.0)
    env.reset(options={"deck": deck})
    obs, reward, term, trunc, info = env.last()
    assert env.agent_selection == "team_0" and reward == 0 and not term and not trunc
    assert info["outcome"] == 0 and info["winner"] == -1 and info["turns"] == 0  # one schema from reset on
    assert obs["action_mask"].nonzero()[0].tolist() == [1, 2]  # take the upcard or pass
    env.step(TAKE_DISCARD)
    assert env.agent_selection == "team_0"
    mask = env.observe("team_0")["action_mask"]
    assert mask[knock_action(parse_card("KS"))] == 1
    assert mask[3 + parse_card("TH")] == 0  # the card just taken may not be discarded
    env.step(knock_action(parse_card("KS")))
    # 25 (gin bonus) + 72 (box deadwood; no layoffs on gin) = 97
    assert env.rewards == {"team_0": 97.0, "box_0": -97.0}
    assert env.terminations == {"team_0": True, "box_0": True}
    assert env.truncations == {"team_0": False, "box_0": False}
    info = env.infos["box_0"]
    assert info == env.infos["team_0"]
    assert info["outcome"] == OUTCOME_CODES["gin"] and info["knocker"] == 0 and info["winner"] == 0  # team_0
    assert info["points"] == 97 and info["knocker_deadwood"] == 0 and info["defender_deadwood"] == 72
    assert info["knock_discard"] == parse_card("KS") and info["turns"] == 1
    result = env.unwrapped.result  # the text: the outcome's name, the spreads
    assert result is not None and result.outcome == "gin" and result.points == 97
    assert result.spreads is not None
    melds = sorted(" ".join(card_str(c) for c in meld) for meld in result.spreads[0].melds)
    assert melds == ["4D 5D 6D", "7H 8H 9H TH", "AC 2C 3C"]
    assert result.spreads[1].deadwood == 72 and result.spreads[1].layoffs == ()
    # Both finished agents step once with None, the last mover's opponent first.
    assert env.agent_selection == "box_0"
    _, reward, term, _, _ = env.last()
    assert reward == -97.0 and term
    env.step(None)
    assert env.agent_selection == "team_0" and env.last()[1] == 97.0
    env.step(None)
    assert env.agents == []


def test_golden_undercut_with_layoffs() -> None:
    # The box takes the upcard 2H and knocks, discarding 9C: A-2-3S, 7C 7D 7H, J-Q-KD + 2H: K = 2.
    # The captain lays off 4S (run), 7S (set), TD (run): D = 2 (2C). K >= D: undercut, 10 + 0.
    captain = "AC AD AH 4H 5H 6H 4S 7S 2C TD"
    box = "AS 2S 3S 7C 7D 7H JD QD KD 9C"
    env = gin3_env.env(reward_scale=0.5)
    env.reset(options={"deck": stacked_deck(captain, box, "2H")})
    run_actions(env, [action("pass"), action("take"), action("knock 9C")])
    assert env.rewards == {"team_0": 5.0, "box_0": -5.0}  # 10 points x 0.5
    info = env.infos["team_0"]
    assert (info["outcome"], info["knocker"], info["winner"]) == (OUTCOME_CODES["undercut"], 1, 0)  # box_0, team_0
    assert info["points"] == 10
    assert (info["knocker_deadwood"], info["defender_deadwood"]) == (2, 2)
    result = env.unwrapped.result
    assert result is not None and result.spreads is not None
    laid = sorted(card_str(card) for card, _ in result.spreads[0].layoffs)
    assert laid == ["4S", "7S", "TD"]


def test_golden_dead_hand_and_truncation() -> None:
    deck = stacked_deck(GIN_TEAM, JUNK_BOX, "TH", "QS")
    env = gin3_env.env(dead_stock=30)  # dead as soon as a discard leaves 30 in the stock
    env.reset(options={"deck": deck})
    run_actions(env, [action("pass"), action("pass"), action("draw"), action("QS")])
    assert env.terminations == {"team_0": True, "box_0": True}
    assert env.rewards == {"team_0": 0.0, "box_0": 0.0}
    assert env.infos["box_0"]["outcome"] == OUTCOME_CODES["dead"] and env.infos["box_0"]["winner"] == -1

    env = gin3_env.env(max_turns=1)
    env.reset(options={"deck": deck})
    run_actions(env, [action("pass"), action("pass"), action("draw"), action("QS")])
    assert env.truncations == {"team_0": True, "box_0": True}
    assert env.terminations == {"team_0": False, "box_0": False}
    assert env.rewards == {"team_0": 0.0, "box_0": 0.0}
    assert env.infos["team_0"]["outcome"] == OUTCOME_CODES["truncated"]


def test_illegal_action_wrapped_and_raw() -> None:
    deck = stacked_deck(GIN_TEAM, JUNK_BOX, "TH")
    env = gin3_env.env()
    env.reset(options={"deck": deck})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(0)  # draw from the stock: not legal during the opening offer
    assert env.rewards["team_0"] == -1 and env.rewards["box_0"] == 0
    assert all(env.terminations.values())

    raw = aec_hand.raw_env()
    raw.reset(options={"deck": deck})
    before = raw.replay_log()
    with pytest.raises(ValueError, match="illegal action 0"):
        raw.step(0)
    with pytest.raises(ValueError, match="not None"):
        raw.step(None)
    assert raw.replay_log() == before and raw.agent_selection == "team_0"


# ------------------------------------------------------- engine behind it
@pytest.mark.parametrize("seed", range(12))
def test_random_play_matches_the_engine(seed: int) -> None:
    """Random play through the env and the same deck and actions straight through the
    engine: same observations, masks (zeros for the agent not to act), end and rewards."""
    rng = np.random.default_rng(seed)
    rules = Rules(knock_limit=int(rng.integers(0, 11)), max_turns=int(rng.integers(20, 200)))
    env = aec_hand.raw_env(rules=rules, reward_scale=0.25)
    env.reset(seed=seed)
    state = HandState.deal(rules, deck=env.hand.deck)
    while not state.is_over:
        acting = env.agent_selection
        p = AGENTS.index(acting)
        assert state.player == p
        for q, agent in enumerate(AGENTS):
            obs = env.observe(agent)
            assert np.array_equal(obs["observation"], encode(state.view(q)))
            expected = state.legal_mask() if q == p else np.zeros(NUM_ACTIONS, np.int8)
            assert np.array_equal(obs["action_mask"], expected) and obs["action_mask"].dtype == np.int8
        a = int(rng.choice(state.legal_actions()))
        env.step(a)
        state.apply(a)
        if not state.is_over:
            assert env.rewards == {"team_0": 0.0, "box_0": 0.0} and not any(env.terminations.values())
    result = state.result
    assert result is not None and env.result == result
    assert env.rewards == {agent: result.returns[p] * 0.25 for p, agent in enumerate(AGENTS)}
    assert env.terminations["team_0"] == (result.outcome != "truncated")
    assert env.truncations["team_0"] == (result.outcome == "truncated")
    assert outcome_name(env.infos["team_0"]["outcome"]) == result.outcome
    for agent in AGENTS:
        assert not env.observe(agent)["action_mask"].any()


# ------------------------------------------------------------ replay log
def test_replay_log_reproduces_the_hand() -> None:
    rng = np.random.default_rng(7)
    for seed in range(5):
        env = aec_hand.raw_env(knock_limit=5)
        env.reset(seed=seed)
        play_random_raw(env, rng)
        log = json.loads(json.dumps(env.replay_log()))
        again = aec_hand.replay(log)
        assert again.result == env.result and again.rules == env.rules
        assert again.rewards == env.rewards and again.infos == env.infos
        for agent in AGENTS:
            assert np.array_equal(again.observe(agent)["observation"], env.observe(agent)["observation"])


def play_random_raw(env: aec_hand.raw_env, rng: np.random.Generator) -> None:
    while env.hand is not None and not env.hand.is_over:
        env.step(int(rng.choice(env.hand.legal_actions())))


def test_replay_refuses_bad_logs() -> None:
    env = aec_hand.raw_env()
    env.reset(options={"deck": stacked_deck(GIN_TEAM, JUNK_BOX, "TH")})
    env.step(TAKE_DISCARD)
    log = env.replay_log()
    with pytest.raises(ValueError, match="'deck' and 'actions'"):
        aec_hand.replay({"actions": []})
    with pytest.raises(ValueError, match="action #1"):
        aec_hand.replay({**log, "actions": [TAKE_DISCARD, 3 + parse_card("TH")]})
    with pytest.raises(ValueError, match="already over"):
        aec_hand.replay({**log, "actions": [TAKE_DISCARD, knock_action(parse_card("KS")), 0]})
    with pytest.raises(ValueError, match="unknown rules option"):
        aec_hand.replay({**log, "rules": {"bonus": 3}})


# ------------------------------------------------------- settings, seeds
def test_seeded_resets_and_rng_continuation() -> None:
    a, b = aec_hand.raw_env(), aec_hand.raw_env()
    a.reset(seed=11)
    first = a.hand.deck
    a.reset()
    second = a.hand.deck
    assert first != second
    a.reset(seed=11)
    assert a.hand.deck == first
    b.reset(seed=11)
    b.reset()
    assert b.hand.deck == second


def test_settings_survive_reset_pickle_and_deepcopy() -> None:
    env = gin3_env.env(render_mode="ansi", reward_scale=0.1, knock_limit=0, max_turns=50)
    env.reset(seed=3)
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        clone.reset(seed=4)
        raw = clone.unwrapped
        assert raw.rules == Rules(knock_limit=0, max_turns=50)
        assert raw.reward_scale == 0.1 and raw.render_mode == "ansi"
    raw = aec_hand.raw_env(rules=Rules(gin_bonus=20))
    raw.reset(seed=1)
    assert raw.rules.gin_bonus == 20


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_mid_hand_copy_continues_identically(how: str) -> None:
    env = gin3_env.env(reward_scale=2.0)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(17):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))
    clone = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    assert clone.unwrapped is not env.unwrapped
    rest_a = play_random(env, np.random.default_rng(9))
    rest_b = play_random(clone, np.random.default_rng(9))
    assert rest_a == rest_b
    assert clone.unwrapped.result == env.unwrapped.result
    assert clone.unwrapped.replay_log() == env.unwrapped.replay_log()
    # The generator travelled too: the next unseeded deals agree.
    env.reset()
    clone.reset()
    assert env.unwrapped.hand.deck == clone.unwrapped.hand.deck


# --------------------------------------------------------------- refusals
def test_bad_decks_and_options_are_refused() -> None:
    env = gin3_env.env()
    deck = list(range(52))
    with pytest.raises(ValueError, match="repeats card"):
        env.reset(options={"deck": [0, *deck[:-1]]})
    with pytest.raises(ValueError, match="all 52 cards"):
        env.reset(options={"deck": deck[:51]})
    with pytest.raises(ValueError, match="not a card"):
        env.reset(options={"deck": [*deck[:-1], 52]})
    with pytest.raises(ValueError, match="sequence of 52"):
        env.reset(options={"deck": 7})
    with pytest.raises(ValueError, match=r"unknown reset option.*'dekc'"):
        env.reset(options={"dekc": deck})
    with pytest.raises(ValueError, match="must be a dict"):
        env.reset(options=[("deck", deck)])
    env.reset(options={"deck": deck})
    assert env.unwrapped.hand.deck == tuple(deck)


def test_bad_constructor_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="not both"):
        aec_hand.raw_env(rules=Rules(), knock_limit=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_cycles' for three_handed_gin_v0; it takes"):
        aec_hand.raw_env(max_cycles=100)
    with pytest.raises(TypeError, match=r"'knock_limt' for three_handed_gin_v0 \(did you mean 'knock_limit'\?\)"):
        aec_hand.env(knock_limt=5)
    with pytest.raises(ValueError, match="unknown rules option 'knock_limt'"):  # in a rules dict: a rules option
        aec_hand.raw_env(rules={"knock_limt": 5})
    with pytest.raises(ValueError, match="knock_limit"):
        aec_hand.raw_env(knock_limit=-1)
    with pytest.raises(ValueError, match="render_mode"):
        aec_hand.raw_env(render_mode="rgb_array_list")
    with pytest.raises(ValueError, match="reward_scale"):
        aec_hand.raw_env(reward_scale=0)
    with pytest.raises(ValueError, match="reward_scale"):
        aec_hand.raw_env(reward_scale=float("nan"))
    with pytest.raises(ValueError, match="rules must be"):
        aec_hand.raw_env(rules="default")
    with pytest.raises(RuntimeError, match="reset"):
        aec_hand.raw_env().observe("team_0")
    env = aec_hand.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent 'player_0'; the agents are team_0, box_0"):
        env.observe("player_0")
    with pytest.raises(ValueError, match="unknown agent"):
        env.action_space("team_1")
    with pytest.raises(ValueError, match="unknown agent"):
        env.observation_space(0)


# ------------------------------------------------------------------ render
def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    deck = stacked_deck(GIN_TEAM, JUNK_BOX, "TH")
    env = gin3_env.env(render_mode="ansi")
    env.reset(options={"deck": deck})
    text = env.render()
    assert isinstance(text, str) and "T♥" in text and "K♠" in text and "Q♦" in text  # both hands
    human = gin3_env.env(render_mode="human")
    human.reset(options={"deck": deck})
    human.step(TAKE_DISCARD)
    out = capsys.readouterr().out
    assert out.count("T♥") >= 2 and human.render() is None
    quiet = gin3_env.env()
    quiet.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None


def test_observation_phase_and_scalars_follow_the_hand() -> None:
    env = aec_hand.raw_env()
    env.reset(options={"deck": stacked_deck(GIN_TEAM, JUNK_BOX, "TH")})
    team = env.observe("team_0")["observation"]
    box = env.observe("box_0")["observation"]
    assert team[364 + Phase.OFFER_TEAM] == 1 and box[364 + Phase.OFFER_TEAM] == 1
    assert team[369] == 1 and box[370] == 1
    assert team[52 + parse_card("TH")] == 1 and team[371] == 1.0  # top discard, full stock
    assert box[372] == pytest.approx(0.72)  # the box's deadwood / 100
