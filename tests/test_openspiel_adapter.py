"""The OpenSpiel bridge: card and action translation, legal play, scores, observations."""

from __future__ import annotations

import json

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from gin3_env.engine.hand import HandState  # noqa: E402
from gin3_env.engine.layoffs import best_layoffs  # noqa: E402
from gin3_env.engine.melds import deadwood  # noqa: E402
from gin3_env.evaluation import evaluate_openspiel_hands, evaluate_openspiel_matches  # noqa: E402
from gin3_env.interop.openspiel import (  # noqa: E402
    OpenSpielAgent,
    chance_order,
    from_openspiel,
    hand_of,
    load_game,
    meld_action,
    play_openspiel_hand,
    split_meld,
    to_openspiel,
)
from gin3_env.observation import action_mask, encode  # noqa: E402
from gin3_env.policies import HeuristicPolicy, RandomPolicy  # noqa: E402

PHASE = pyspiel.gin_rummy.Phase
UTILS = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)


def decks(n: int, seed: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [[int(c) for c in rng.permutation(52)] for _ in range(n)]


def test_card_translation() -> None:
    from gin3_env.engine.cards import card_str

    for card in range(52):
        assert from_openspiel(to_openspiel(card)) == card
        ours, theirs = card_str(card), UTILS.card_string(to_openspiel(card))
        assert ours[0] == theirs[0] and ours[1].lower() == theirs[1]


def test_meld_ids_and_long_runs() -> None:
    run = [0, 1, 2]  # AC 2C 3C
    assert UTILS.int_to_meld[meld_action(run) - 56] == sorted(to_openspiel(c) for c in run)
    assert [len(p) for p in split_meld(range(6))] == [3, 3]
    assert [len(p) for p in split_meld(range(7))] == [4, 3]
    assert [len(p) for p in split_meld(range(10))] == [5, 5]
    assert sum(split_meld(range(13)), ()) == tuple(range(13))


def test_deal_matches_our_engine() -> None:
    game = load_game()
    for deck in decks(3, seed=0):
        state = game.new_initial_state()
        for action in chance_order(deck)[:21]:
            state.apply_action_with_legality_check(action)
        ours = HandState.deal(deck=deck)
        assert hand_of(state, 0) == ours.hands[0] and hand_of(state, 1) == ours.hands[1]
        assert from_openspiel(state.upcard()) == ours.discards[-1]


def _check_final_scores(game, hand) -> None:
    """Replay a hand: returns match, and our side's deadwood is what our engine predicts."""
    state = game.new_initial_state()
    us = hand.our_player
    expected_defence = None
    for action in hand.actions:
        if state.current_phase() == PHASE.LAYOFF and expected_defence is None and hand.knocked[1 - us]:
            melds = [tuple(from_openspiel(c) for c in UTILS.int_to_meld[m]) for m in state.layed_melds()[1 - us]]
            ours = hand_of(state, us)
            knocker_dw = state.deadwood()[1 - us]
            # No layoffs onto gin; else the best layoffs our engine finds.
            expected_defence = best_layoffs(ours, melds).deadwood if knocker_dw else deadwood(ours)
        state.apply_action_with_legality_check(action)
    assert state.is_terminal()
    assert tuple(state.returns()) == hand.returns
    assert hand.returns[0] == -hand.returns[1]
    if hand.knocked[us] and hand.our_knock_deadwood is not None:
        assert state.deadwood()[us] == hand.our_knock_deadwood
    if hand.knocked[1 - us]:
        assert state.deadwood()[us] == expected_defence
    k = 0 if hand.knocked[0] else 1
    if any(hand.knocked):
        gap = state.deadwood()[1 - k] - state.deadwood()[k]
        value = gap + (25 if state.deadwood()[k] == 0 else 0)
        value = value - 10 if value < 0 else value
        assert hand.returns[k] == value


@pytest.mark.parametrize("policy", [HeuristicPolicy(), RandomPolicy(3)], ids=["heuristic", "random"])
def test_full_hands_legal_and_scored_like_openspiel(policy) -> None:
    game = load_game()
    seen = set()
    for deck in decks(12, seed=1):
        for player in (0, 1):
            hand = play_openspiel_hand(game, policy, player, deck)
            _check_final_scores(game, hand)
            seen.add("we knock" if hand.knocked[player] else "they knock" if any(hand.knocked) else "none")
    assert "they knock" in seen


def test_defence_lays_off_optimally() -> None:
    game = load_game()
    defended = 0
    for deck in decks(40, seed=2):
        for player in (0, 1):
            hand = play_openspiel_hand(game, HeuristicPolicy(), player, deck)
            if hand.knocked[1 - player]:
                defended += 1
                _check_final_scores(game, hand)
    assert defended > 10


def test_observations_match_our_engine() -> None:
    """Two adapters in OpenSpiel see what two players in our engine see, decision by decision."""
    game = load_game()
    policy = HeuristicPolicy()
    compared = 0
    for deck in decks(8, seed=3):
        ours: list[tuple[int, bytes, bytes]] = []
        state = HandState.deal(deck=deck)
        while not state.is_over:
            p = state.player
            obs, mask = encode(state.view(p)), action_mask(state.view(p))
            ours.append((p, obs.tobytes(), mask.tobytes()))
            state.apply(policy.act({"observation": obs, "action_mask": mask}))
        agents = [OpenSpielAgent(policy, 0), OpenSpielAgent(policy, 1)]
        theirs: list[tuple[int, bytes, bytes]] = []
        os_state = game.new_initial_state()
        chance = iter(chance_order(deck))
        while not os_state.is_terminal():
            if os_state.is_chance_node():
                action = next(chance)
            else:
                p = os_state.current_player()
                if (
                    os_state.current_phase() in (PHASE.FIRST_UPCARD, PHASE.DRAW, PHASE.DISCARD)
                    and not agents[p].pending
                ):
                    obs = agents[p].observation(os_state)
                    theirs.append((p, obs["observation"].tobytes(), obs["action_mask"].tobytes()))
                action = agents[p].step(os_state)
            for agent in agents:
                agent.observe(os_state, action)
            os_state.apply_action_with_legality_check(action)
        n = len(ours)
        assert theirs[:n] == ours
        compared += n
    assert compared > 100


def test_openspiel_reports() -> None:
    hands = evaluate_openspiel_hands(HeuristicPolicy(), 6, seed=0)
    assert hands.n_hands == 12 and sum(hands.outcomes.values()) == 12
    assert "player 0 (first)" in hands.to_text()
    matches = evaluate_openspiel_matches(HeuristicPolicy(), 2, seed=0)
    assert matches.unfinished == 0 and max(matches.a_score.mean, matches.b_score.mean) >= 100 / 2
    assert matches.to_dict()["even_rate"] == 0.5


def test_cli_against_openspiel(tmp_path, capsys) -> None:
    from gin3_env.evaluation import cli_main

    out = tmp_path / "os.json"
    assert cli_main(["heuristic", "openspiel-simple", "--hands", "3", "--matches", "1", "--json", str(out)]) == 0
    reports = json.loads(out.read_text())["reports"]
    assert set(reports) == {"openspiel_hands", "openspiel_matches"}
    assert "OpenSpiel two-player matches" in capsys.readouterr().out
    assert (
        cli_main(["heuristic", "random", "--hands", "2", "--matches", "0", "--vs-openspiel", "--json", str(out)]) == 0
    )
    assert set(json.loads(out.read_text())["reports"]) == {"hands", "openspiel_hands"}


def test_illegal_policy_is_refused() -> None:
    class Cheater:
        def act(self, observation: dict) -> int:
            return int(np.flatnonzero(observation["action_mask"] == 0)[0])

    with pytest.raises(ValueError, match="illegal"):
        play_openspiel_hand(load_game(), Cheater(), 0, decks(1, seed=4)[0])


@pytest.mark.slow
def test_heuristic_is_not_weaker_than_the_simple_bot() -> None:
    report = evaluate_openspiel_matches(HeuristicPolicy(), 1000, seed=0)
    assert report.win_rate.rate >= 0.5, report.to_text()
