"""Every shipped player follows the rules of the game it is loaded for, or refuses them in one line.

``load_policy(spec, rules=...)`` is the one way the rules reach a player (docs/design.md, "The rules reach
every player"): each shipped player is loaded under knock limits 0, 5 and 10 and each other ``Rules``
option at a value other than the rule book's, says the rules it was built for (or reads none), plays
legal moves in a game of those rules, and, where a rule changes its play, plays as the player built
directly for that rule and otherwise than the one built for the rule book's.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from gin3_env import Rules
from gin3_env.engine.actions import TAKE_DISCARD
from gin3_env.evaluation.batched_hands import play_deals
from gin3_env.evaluation.hands import evaluate_hands, play_deal
from gin3_env.game.policy import check_plays_rules, rules_of
from gin3_env.policies import HeuristicPolicy, load_policy
from gin3_env.policies.loading import GATE_MODEL, NET_MODEL, PPO_MODEL, importable
from gin3_env.policies.registry import PLAYER_ROWS, shipped_names
from gin3_env.vector import HeuristicBatch

SEARCH = "search:samples=4,min_samples=4,time_budget=none"
# the registry's shipped players, search with options
SHIPPED = tuple(SEARCH if name == "search" else name for name in shipped_names())
RULE_SETS = [
    Rules(knock_limit=0), Rules(knock_limit=5), Rules(knock_limit=10),
    Rules(gin_bonus=40), Rules(undercut_bonus=3), Rules(target_score=30), Rules(dead_stock=6),
    Rules(allow_discard_taken_card=True), Rules(max_turns=12),
]
RULE_IDS = ["knock0", "knock5", "knock10", "gin40", "undercut3", "target30", "dead6", "discard_taken", "turns12"]


def _load(spec: str, rules: Rules | None, seed: int = 3) -> Any:
    if spec == "ppo" and not (importable("torch") and PPO_MODEL.is_file()):
        pytest.skip("ppo needs torch and the shipped model")
    seeded = spec == "random" or spec.startswith("search")
    return load_policy(spec, rules=rules, seed=seed) if seeded else load_policy(spec, rules=rules)


def _decks(n: int, seed: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [[int(c) for c in rng.permutation(52)] for _ in range(n)]


class Recorder:
    """The batched heuristic at the game's knock limit, keeping every row it is shown."""

    def __init__(self, rules: Rules) -> None:
        self.player = HeuristicBatch(knock_limit=rules.knock_limit)
        self.seen: list[tuple[np.ndarray, np.ndarray]] = []

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.seen.append((np.array(observations), np.array(masks, dtype=np.int8)))
        return self.player.act(observations, masks)


@functools.cache
def _observations(knock_limit: int, deals: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """The draw decisions (take the face-up card or not: where the knock limit can change a move) of ``deals``
    hands the heuristic plays at ``knock_limit`` on the batched core: observations and masks."""
    rules = Rules(knock_limit=knock_limit)
    recorder = Recorder(rules)
    play_deals(recorder, recorder, np.array(_decks(deals, 11)), 1, rules)
    obs = np.concatenate([o for o, _ in recorder.seen])
    masks = np.concatenate([m for _, m in recorder.seen])
    draws = masks[:, TAKE_DISCARD] == 1
    return obs[draws], masks[draws]


def _actions(policy: Any, seen: tuple[np.ndarray, np.ndarray]) -> list[int]:
    obs, masks = seen
    if callable(getattr(policy, "act_batch", None)):
        return [int(a) for a in policy.act_batch(obs, masks)]
    return [int(policy.act({"observation": o, "action_mask": m})) for o, m in zip(obs, masks, strict=True)]


def test_every_shipped_player_says_how_it_takes_the_rules() -> None:
    assert set(shipped_names()) == {"random", "heuristic", "search", "gated", "net", "trained", "ppo"}
    assert all(row.rules_note for row in PLAYER_ROWS.values())


def _cases() -> list[Any]:
    """Every shipped player under every rule set; the search (a second a hand) under the options other than the
    knock limit only in the slow run."""
    cases = []
    for spec in SHIPPED:
        for rules, name in zip(RULE_SETS, RULE_IDS, strict=True):
            slow = spec.startswith("search") and not name.startswith("knock")
            cases.append(pytest.param(spec, rules, id=f"{spec.split(':')[0]}-{name}",
                                       marks=[pytest.mark.slow] if slow else []))
    return cases


@pytest.mark.parametrize(("spec", "rules"), _cases())
def test_each_player_is_built_for_the_game_and_plays_it_legally(spec: str, rules: Rules) -> None:
    player = _load(spec, rules)
    own = rules_of(player)
    if spec in ("random", "ppo"):  # they read no rule: the mask and the observation are the game's
        assert own is None
    elif spec == "heuristic":  # the one rule it reads
        assert own is not None and own.knock_limit == rules.knock_limit == player.config.knock_limit
    else:  # all of them
        assert own == rules
    check_plays_rules(player, rules)
    other = HeuristicPolicy(knock_limit=rules.knock_limit)
    for deck in _decks(1 if spec.startswith("search") else 2, 7):  # an illegal move raises in the engine
        for team, box in ((player, other), (other, player)):
            state = play_deal(team, box, deck, rules)
            assert state.result is not None and state.rules == rules


@pytest.mark.parametrize("spec", ["heuristic", "gated", "net"])
def test_a_player_loaded_for_a_knock_limit_plays_as_one_built_for_it_and_not_as_the_rule_books(spec: str) -> None:
    """Gin only (knock limit 0) against the rule book's 10, on the draw decisions of 200 hands: the heuristic
    (and so the trained player's base) takes the face-up card when that lets it knock at once."""
    from gin3_env.policies.gate_file import load_gated as load_gate
    from gin3_env.policies.gated import GatedPolicy
    from gin3_env.policies.net import NetPolicy, load_net

    zero = Rules(knock_limit=0)
    direct = {
        "heuristic": lambda r: HeuristicPolicy(knock_limit=r.knock_limit),
        "gated": lambda r: GatedPolicy(load_gate(GATE_MODEL), name="gated", rules=r),
        "net": lambda r: NetPolicy(load_net(NET_MODEL), name="net", rules=r),
    }[spec]
    seen = _observations(0)
    if spec == "heuristic":  # one by one (slow): the first 300 decisions and those where its twin's moves differ
        obs, masks = seen
        differ = HeuristicBatch(knock_limit=0).act(obs, masks) != HeuristicBatch().act(obs, masks)
        rows = np.union1d(np.arange(300), np.flatnonzero(differ))
        seen = (obs[rows], masks[rows])
    loaded = _actions(_load(spec, zero), seen)
    assert loaded == _actions(direct(zero), seen)
    assert loaded != _actions(direct(Rules()), seen)  # somewhere the knock limit changes its move
    assert _actions(_load(spec, None), seen) == _actions(_load(spec, Rules()), seen)  # the rule book's by default


def test_the_rule_books_rules_change_no_move() -> None:
    seen = _observations(10)
    for spec in ("heuristic", "gated", "net"):
        assert _actions(_load(spec, Rules()), seen) == _actions(load_policy(spec), seen), spec


@pytest.mark.parametrize("gate", [None, "gated"])
def test_the_search_plays_its_playouts_and_default_move_under_the_rules(gate: str | None) -> None:
    rules = Rules(knock_limit=5, gin_bonus=40)
    spec = SEARCH + (f",rollout_policy={gate}" if gate else "")
    search = _load(spec, rules)
    assert search.rules == rules and search.rollouts.rules == rules
    assert search.rollouts.policy.knock_limit == 5 and search.heuristic.knock_limit == 5
    assert search.blueprint_model().heuristic is None or search.blueprint_model().heuristic.knock_limit == 5
    if gate:
        assert search.gated.rules == rules


def test_a_player_built_for_other_rules_is_refused_in_one_line() -> None:
    five = Rules(knock_limit=5)
    with pytest.raises(ValueError, match=r"^the player 'heuristic' was built for other rules than the game's: "
                                         r"knock_limit 10 \(the game's: 5\)") as caught:
        evaluate_hands(HeuristicPolicy(), load_policy("random", seed=1), 2, rules=five)
    assert "\n" not in str(caught.value)
    trained = load_policy("gated")
    with pytest.raises(ValueError, match=r"the player 'gated' .*gin_bonus 25 \(the game's: 40\)"):
        load_policy(trained, rules=Rules(gin_bonus=40))
    assert load_policy(load_policy("gated", rules=five), rules=five).rules == five  # built for them: kept
    with pytest.raises(ValueError, match="knock_limit=7 but the game's rules have knock_limit 5"):
        load_policy("heuristic", rules=five, knock_limit=7)
    with pytest.raises(ValueError, match="rules must be a Rules"):
        load_policy("heuristic", rules={"knock_limit": 5})


def test_the_envs_load_their_opponents_for_their_rules() -> None:
    from gin3_env.envs.single_agent import ThreeHandedGinEnv
    from gin3_env.vector.learner import LearnerHands

    env = ThreeHandedGinEnv(opponent="gated", knock_limit=5)
    assert env.opponent.rules == env.rules == Rules(knock_limit=5)
    with pytest.raises(ValueError, match="the player 'heuristic' was built for other rules"):
        ThreeHandedGinEnv(opponent=HeuristicPolicy(), knock_limit=5)
    hands = LearnerHands(2, opponent=["heuristic", "net"], knock_limit=0)
    assert [p.knock_limit if hasattr(p, "knock_limit") else p.rules.knock_limit for p in hands.pool] == [0, 0]


def test_gin3_evaluate_ladder_and_play_load_every_player_for_the_rules(tmp_path: Any) -> None:
    import json

    from gin3_env.evaluation.cli import _load as evaluate_load
    from gin3_env.evaluation.cli import cli_main
    from gin3_env.evaluation.ladder import play_pair
    from gin3_env.play.commands import load_opponent

    five = Rules(knock_limit=5)
    for spec in ("heuristic", "gated", "net"):
        assert rules_of(evaluate_load(spec, 0, five)).knock_limit == 5
        assert rules_of(load_opponent(spec, 0, five)).knock_limit == 5
    out = tmp_path / "r.json"
    assert cli_main(["gated", "heuristic", "--hands", "2", "--matches", "0", "--no-progress",
                     "--rules", '{"knock_limit": 5}', "--json", str(out)]) == 0
    assert json.loads(out.read_text())["reports"]["hands"]["rules"]["knock_limit"] == 5
    pair = play_pair("gated", "net", 2, 0, rules=five)
    assert pair.report.rules["knock_limit"] == 5
    with pytest.raises(ValueError, match="--rules does not apply"):
        play_pair("heuristic", "openspiel-simple", 2, 0, rules=five)
