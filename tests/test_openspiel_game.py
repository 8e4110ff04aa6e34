"""The OpenSpiel games ``python_gin3_hand`` and ``python_gin3_match``: OpenSpiel's own checks,
the engine's deal and play inside them, resampling from what a player saw, and IS-MCTS."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from experiments.ismcts_bot import ismcts_bot  # noqa: E402
from gin3_env.engine import BOX, TEAM, HandState, Rules  # noqa: E402
from gin3_env.engine.cards import card_str  # noqa: E402
from gin3_env.evaluation.hands import play_deal  # noqa: E402
from gin3_env.interop.deals import replay_deck, resample_deck  # noqa: E402
from gin3_env.interop.openspiel_game import GAME_NAMES, register  # noqa: E402
from gin3_env.observation.encoding import encode, encode_match, observe  # noqa: E402
from gin3_env.policies import HeuristicPolicy, RandomPolicy  # noqa: E402

# A match short enough for OpenSpiel's random simulations: random play knocks at once when every
# ten cards may knock, and a few hands reach 30 points.
SHORT_MATCH = {"knock_limit": 100, "target_score": 30}


def dealt(game: object, deck: list[int]) -> object:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    for card in deck:
        state.apply_action(card)
    return state


def deck_of(seed: int) -> list[int]:
    return [int(c) for c in np.random.default_rng(seed).permutation(52)]


def play_randomly(state: object, rng: np.random.Generator, stop: int | None = None) -> list[object]:
    """Play random legal moves (and chance) to the end, or ``stop`` decisions; the decision states seen."""
    seen = []
    while not state.is_terminal() and (stop is None or len(seen) < stop):  # type: ignore[attr-defined]
        if state.is_chance_node():  # type: ignore[attr-defined]
            actions, probs = zip(*state.chance_outcomes(), strict=True)  # type: ignore[attr-defined]
            state.apply_action(int(rng.choice(actions, p=probs)))  # type: ignore[attr-defined]
            continue
        seen.append(state.clone())  # type: ignore[attr-defined]
        state.apply_action(int(rng.choice(state.legal_actions())))  # type: ignore[attr-defined]
    return seen


def test_importing_registers_both_games_and_register_is_idempotent() -> None:
    names = set(pyspiel.registered_names())
    assert set(GAME_NAMES) <= names
    assert register() == GAME_NAMES  # a second registration does nothing
    game = pyspiel.load_game("python_gin3_hand")
    assert game.num_players() == 2 and game.num_distinct_actions() == 107
    assert game.max_chance_outcomes() == 52
    assert game.information_state_tensor_shape() == [374] and game.observation_tensor_shape() == [374]
    match = pyspiel.load_game("python_gin3_match")
    assert match.num_players() == 3 and match.observation_tensor_shape() == [380]


def test_openspiel_random_simulation_checks_pass_on_the_hand() -> None:
    pyspiel.random_sim_test(pyspiel.load_game("python_gin3_hand"), num_sims=5, serialize=True, verbose=False)
    gin_only = pyspiel.load_game("python_gin3_hand", {"knock_limit": 0, "max_turns": 30})
    pyspiel.random_sim_test(gin_only, num_sims=3, serialize=False, verbose=False)


def test_openspiel_random_simulation_checks_pass_on_the_match() -> None:
    game = pyspiel.load_game("python_gin3_match", SHORT_MATCH)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    capped = pyspiel.load_game("python_gin3_match", {"max_hands": 2, "max_turns": 20})
    pyspiel.random_sim_test(capped, num_sims=1, serialize=False, verbose=False)


def test_bad_parameters_are_refused_with_their_name() -> None:
    with pytest.raises(ValueError, match="knock_limit"):
        pyspiel.load_game("python_gin3_hand", {"knock_limit": -1})
    with pytest.raises(pyspiel.SpielError, match="knok_limit"):
        pyspiel.load_game("python_gin3_hand", {"knok_limit": 3})
    with pytest.raises(ValueError, match="max_hands"):
        pyspiel.load_game("python_gin3_match", {"max_hands": 0})


def test_the_chance_nodes_deal_the_deck_as_the_engine_does() -> None:
    game = pyspiel.load_game("python_gin3_hand")
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(52)) and sum(p for _, p in outcomes) == pytest.approx(1)
    deck = deck_of(3)
    for card in deck[:30]:
        state.apply_action(card)
    assert sorted(a for a, _ in state.chance_outcomes()) == sorted(deck[30:])
    for card in deck[30:]:
        state.apply_action(card)
    engine = HandState.deal(deck=deck)
    assert state.hand.hands == engine.hands and state.hand.stock == engine.stock
    assert state.hand.discards == [deck[20]] and state.current_player() == TEAM
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_action(0)  # the captain may only take the upcard or pass


def test_a_hand_through_openspiel_is_the_engine_hand_with_zero_sum_returns() -> None:
    from experiments.ismcts import play_bot_deal

    game = pyspiel.load_game("python_gin3_hand")
    h = HeuristicPolicy()
    for seed in range(4):
        deck = deck_of(seed)
        state = play_bot_deal(game, deck, (h, h))
        engine = play_deal(h, h, deck)
        assert state.hand.actions == engine.actions
        assert state.returns() == [float(x) for x in engine.result.returns]
        assert sum(state.returns()) == 0
        assert state.history() == deck + engine.actions


def test_tensors_are_our_encoding_of_the_view_and_zero_while_dealing() -> None:
    game = pyspiel.load_game("python_gin3_hand")
    state = game.new_initial_state()
    for card in deck_of(1)[:25]:
        state.apply_action(card)
    assert not any(state.observation_tensor(0)) and not any(state.information_state_tensor(1))
    state = dealt(game, deck_of(1))
    rng = np.random.default_rng(0)
    for s in play_randomly(state, rng, stop=12):
        for p in (TEAM, BOX):
            expected = encode(s.hand.view(p))
            np.testing.assert_array_equal(np.asarray(s.observation_tensor(p)), expected)
            np.testing.assert_array_equal(np.asarray(s.information_state_tensor(p)), expected)


def test_information_state_strings_are_perfect_recall_and_hide_the_other_hand() -> None:
    game = pyspiel.load_game("python_gin3_hand")
    state = dealt(game, deck_of(8))
    team_tokens = set(state.information_state_string(TEAM).split())
    assert all(card_str(c) not in team_tokens for c in state.hand.hand_cards(BOX))
    assert all(card_str(c) in team_tokens for c in state.hand.hand_cards(TEAM))
    before = state.information_state_string(TEAM)
    state.apply_action(2)  # the captain passes: a move, so the record grows
    after = state.information_state_string(TEAM)
    assert after.startswith(before) and after != before
    assert state.observation_string(TEAM) != state.observation_string(BOX)


def check_resample(state: object, player: int, rng: np.random.Generator) -> object:
    """OpenSpiel's ResampleInfostateTest, plus: the sample has a history of the same length and
    the same legal moves."""
    other = state.resample_from_infostate(player, rng)  # type: ignore[attr-defined]
    assert other.information_state_string(player) == state.information_state_string(player)  # type: ignore[attr-defined]
    assert other.information_state_tensor(player) == state.information_state_tensor(player)  # type: ignore[attr-defined]
    assert other.current_player() == state.current_player()  # type: ignore[attr-defined]
    assert len(other.history()) == len(state.history())  # type: ignore[attr-defined]
    if state.current_player() == player:  # type: ignore[attr-defined]
        assert other.legal_actions() == state.legal_actions()  # type: ignore[attr-defined]
    return other


def test_resample_from_infostate_keeps_what_each_player_saw() -> None:
    game = pyspiel.load_game("python_gin3_hand")
    rng = np.random.default_rng(4)
    varied = 0
    for seed in range(3):
        for s in play_randomly(dealt(game, deck_of(seed)), rng, stop=60):
            for p in (TEAM, BOX):
                other = check_resample(s, p, rng)
                varied += other.hand.hands[1 - p] != s.hand.hands[1 - p]
    assert varied > 50  # the opponent's cards are redrawn (they can coincide only when he hides few)
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)  # OpenSpiel's own sampler works too
    check_resample(dealt(game, deck_of(0)), BOX, sampler)


def test_resample_while_dealing_and_in_the_match() -> None:
    game = pyspiel.load_game("python_gin3_hand")
    state = game.new_initial_state()
    for card in deck_of(2)[:23]:
        state.apply_action(card)
    rng = np.random.default_rng(0)
    other = check_resample(state, TEAM, rng)
    assert other.history()[0:20:2] == state.history()[0:20:2] and other.history()[20] == state.history()[20]
    match = pyspiel.load_game("python_gin3_match", SHORT_MATCH)
    checked = 0
    for s in play_randomly(match.new_initial_state(), rng):
        for seat in range(3):
            check_resample(s, seat, rng)
        checked += 1
    assert checked > 5


def test_resampling_reads_nothing_the_player_did_not_see() -> None:
    """Two real states the team cannot tell apart resample to the same states with the same seed."""
    game = pyspiel.load_game("python_gin3_hand")
    rng = np.random.default_rng(11)
    for s in play_randomly(dealt(game, deck_of(5)), rng, stop=40)[::5]:
        twin_deck = resample_deck(s.hand, TEAM, np.random.default_rng(99))
        assert twin_deck != list(s.hand.deck)
        twin = dealt(game, twin_deck)
        for action in s.hand.actions:
            twin.apply_action(action)
        assert twin.information_state_string(TEAM) == s.information_state_string(TEAM)
        a = s.resample_from_infostate(TEAM, np.random.default_rng(1))
        b = twin.resample_from_infostate(TEAM, np.random.default_rng(1))
        assert a.history() == b.history()


def test_resample_deck_respects_when_the_opponent_could_hold_a_card() -> None:
    """A card the box discards must have reached him by then: never a stock card he draws later."""
    rules = Rules()
    rng = np.random.default_rng(0)
    random_policy = RandomPolicy(seed=3)
    checked = 0
    for seed in range(20):
        state = HandState.deal(rules, deck=deck_of(seed))
        for _ in range(30):
            if state.is_over:
                break
            state.apply(random_policy.act(observe(state.view(state.player))))
        if state.is_over:
            continue
        for _ in range(3):
            deck = resample_deck(state, TEAM, rng)
            assert sorted(deck) == list(range(52))
            assert replay_deck(state, deck).view(TEAM) == state.view(TEAM)  # replays every move legally
            checked += 1
    assert checked > 20
    with pytest.raises(ValueError, match="over"):
        finished = play_deal(HeuristicPolicy(), HeuristicPolicy(), deck_of(1))
        resample_deck(finished, TEAM, rng)


def test_match_rewards_are_the_hand_points_of_the_seats_that_played() -> None:
    game = pyspiel.load_game("python_gin3_match", {"target_score": 40})
    state = game.new_initial_state()
    assert len(state.chance_outcomes()) == 6
    rng = np.random.default_rng(3)
    h = HeuristicPolicy()
    total = np.zeros(3)
    hands = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        seat = state.current_player()
        match = state.match
        assert match.acting_seat == seat
        obs = {"observation": encode_match(match, seat), "action_mask": observe(match.hand.view(match.hand.player))[
            "action_mask"]}
        np.testing.assert_array_equal(np.asarray(state.observation_tensor(seat)), obs["observation"])
        roles = match.hand_roles
        state.apply_action(int(h.act(obs)))
        rewards = np.asarray(state.rewards())
        total += rewards
        if rewards.any():
            hands += 1
            assert rewards[roles.sitter] == 0 and rewards.sum() == 0
    assert hands >= 1 and state.winner() is not None
    assert max(state.scores) >= 40 and state.scores[state.winner()] >= 40
    np.testing.assert_array_equal(total, state.returns())
    assert sum(state.returns()) == 0


def test_the_match_stops_at_max_hands() -> None:
    game = pyspiel.load_game("python_gin3_match", {"max_hands": 1})
    state = game.new_initial_state()
    play_randomly(state, np.random.default_rng(0))
    assert state.is_terminal() and state.hands_played == 1
    assert state.truncated == (state.winner() is None)
    assert state.match.hand.is_over  # the hand that ended the match, not a next deal
    assert len(state.observation_tensor(0)) == 380
    dealing = game.new_initial_state()
    dealing.apply_action(0)  # the roles
    dealing.apply_action(7)  # a first card
    assert dealing.is_chance_node() and dealing.match is None


@pytest.mark.parametrize(("rollout", "simulations"), [("random", 8), ("heuristic", 4)])  # heuristic rollouts: slow
def test_openspiel_ismcts_bot_plays_a_hand(rollout: str, simulations: int) -> None:
    from experiments.ismcts import play_bot_deal

    game = pyspiel.load_game("python_gin3_hand")
    deck = deck_of(2026)
    moves = []
    for _ in range(2):  # seeded: the same moves twice
        bot = ismcts_bot(game, simulations, rollout=rollout, seed=1)
        state = play_bot_deal(game, deck, (bot, HeuristicPolicy()))
        assert state.is_terminal() and sum(state.returns()) == 0
        assert state.returns() == [float(x) for x in state.hand.result.returns]
        moves.append(state.hand.actions)
    assert moves[0] == moves[1]


def test_ismcts_bot_refuses_bad_settings() -> None:
    game = pyspiel.load_game("python_gin3_hand")
    with pytest.raises(ValueError, match="simulations"):
        ismcts_bot(game, 0)
    with pytest.raises(ValueError, match="rollout"):
        ismcts_bot(game, 5, rollout="smart")
    with pytest.raises(ValueError, match="python_gin3_hand"):
        ismcts_bot(pyspiel.load_game("python_gin3_match"), 5)


def test_evaluate_bot_hands_plays_the_duplicate_deals() -> None:
    from experiments.ismcts import evaluate_bot_hands

    report = evaluate_bot_hands(lambda game, player: ismcts_bot(game, 4, seed=player), HeuristicPolicy(), 2,
                                seed=5, bot_name="ismcts")
    d = report.to_dict()
    assert d["n_deals"] == 2 and d["n_hands"] == 4 and d["policy_a"] == "ismcts"
    assert d["wins"]["a"] + d["wins"]["b"] + d["wins"]["none"] == 4
    with pytest.raises(ValueError, match="n_deals"):
        evaluate_bot_hands(lambda game, player: ismcts_bot(game, 4), HeuristicPolicy(), 0)


def test_openspiel_tools_run_on_the_games() -> None:
    """``evaluate_bots`` (which restarts each bot) and the RL environment, whose rewards add up to the returns."""
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import evaluate_bots

    game = pyspiel.load_game("python_gin3_hand", {"max_turns": 20})
    bots = [ismcts_bot(game, 2, seed=0), pyspiel.make_uniform_random_bot(1, 3)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert len(returns) == 2 and sum(returns) == 0
    env = rl_environment.Environment("python_gin3_match", **SHORT_MATCH)
    rng = np.random.default_rng(0)
    step = env.reset()
    total = np.zeros(3)
    while not step.last():
        seat = step.observations["current_player"]
        assert len(step.observations["info_state"][seat]) == 380
        step = env.step([int(rng.choice(step.observations["legal_actions"][seat]))])
        total += np.asarray(step.rewards)
    np.testing.assert_array_equal(total, env.get_state.returns())
    assert total.any() and total.sum() == 0


def test_ismcts_takes_the_gin_it_is_offered() -> None:
    from gin3_env.engine import KNOCK_BASE, TAKE_DISCARD, parse_cards
    from gin3_env.engine.actions import DISCARD_BASE

    team = parse_cards("AC 2C 3C 5H 6H 7H 9S TS JS KD")
    upcard = parse_cards("4C")[0]  # completes A-4 of clubs: take it, knock with the KD, gin
    rest = [c for c in deck_of(0) if c not in team and c != upcard]
    deck = [0] * 52
    deck[0:20:2], deck[1:20:2], deck[20], deck[21:] = team, rest[:10], upcard, rest[10:]
    game = pyspiel.load_game("python_gin3_hand")
    state = dealt(game, deck)
    bot = ismcts_bot(game, 60, rollout="heuristic", seed=0)
    assert bot.step(state) == TAKE_DISCARD
    state.apply_action(TAKE_DISCARD)
    king = parse_cards("KD")[0]
    assert DISCARD_BASE + king in state.legal_actions()
    assert bot.step(state) == KNOCK_BASE + king


CPP_ISMCTS = """
import numpy as np, pyspiel
import gin3_env.interop.openspiel_game
game = pyspiel.load_game("python_gin3_hand")
state = game.new_initial_state()
for card in np.random.default_rng(0).permutation(52):
    state.apply_action(int(card))
bot = pyspiel.ISMCTSBot(0, pyspiel.RandomRolloutEvaluator(1, 0), 10.0, 10, 10,
                        pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
print(bot.step(state))
"""


def test_the_docs_warn_that_the_cpp_ismcts_bot_crashes_on_the_python_game(tmp_path) -> None:
    """OpenSpiel's C++ ISMCTSBot cannot play a game written in Python (it dies with SIGSEGV); the OpenSpiel page
    says so where it shows the package's own ismcts_bot. Should OpenSpiel lift the limit, this fails and the
    sentence goes."""
    import signal
    import subprocess
    import sys
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "docs" / "openspiel.md").read_text(encoding="utf-8")
    block = readme[readme.index("from experiments.ismcts_bot import ismcts_bot"):]
    block = block[: block.index("```")]
    assert "pyspiel.ISMCTSBot segfaults on a Python game" in block
    assert "the C++ bot crashes the interpreter with a segmentation fault" in " ".join(readme.split())
    done = subprocess.run([sys.executable, "-c", CPP_ISMCTS], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == -signal.SIGSEGV, (done.returncode, done.stderr[-2000:])
