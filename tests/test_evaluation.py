"""Evaluation: statistics, the duplicate hand format, matches, reports and the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from gin3_env.engine.hand import HandState
from gin3_env.evaluation import (
    cli_main,
    evaluate_hands,
    evaluate_matches,
    mean_ci,
    wilson_ci,
)
from gin3_env.evaluation import (
    play_deal as play_hand,
)
from gin3_env.policies import HeuristicPolicy, RandomPolicy


class Illegal:
    name = "cheater"

    def act(self, observation: dict) -> int:
        return int(np.flatnonzero(observation["action_mask"] == 0)[0])


# ------------------------------------------------------------------ statistics
def test_pooled_mean_ci_is_the_mean_ci_of_every_value() -> None:
    """Differential: samples pooled from their n, mean and std give mean_ci of all their values together."""
    from gin3_env.evaluation.stats import pooled_mean_ci

    rng = np.random.default_rng(3)
    parts = [rng.normal(m, s, n).tolist() for m, s, n in ((0.5, 9.0, 40), (-1.0, 12.0, 7), (2.0, 3.0, 300))]
    got, want = pooled_mean_ci([mean_ci(p) for p in parts]), mean_ci([v for p in parts for v in p])
    assert got.n == want.n
    assert np.allclose([got.mean, got.low, got.high, got.std], [want.mean, want.low, want.high, want.std])
    assert pooled_mean_ci([mean_ci([4.0])]) == mean_ci([4.0])
    with pytest.raises(ValueError, match="at least one value"):
        pooled_mean_ci([])


def test_mean_ci_known_values() -> None:
    ci = mean_ci([1.0, 2.0, 3.0, 4.0])
    std = math.sqrt(5 / 3)
    assert ci.mean == 2.5 and ci.n == 4 and ci.std == pytest.approx(std)
    assert ci.half_width == pytest.approx(3.182446 * std / 2, rel=1e-5)  # Student t, 3 degrees of freedom
    assert mean_ci([3.0]).half_width == 0.0
    with pytest.raises(ValueError):
        mean_ci([])


def test_small_samples_get_student_t_and_no_stated_interval_below_ten() -> None:
    """Two deals gave "95% CI [-48.96, -20.54]" from a normal interval; the interval is
    Student's t with n - 1 degrees of freedom, and below 10 values the reports state none, in one line."""
    from gin3_env.evaluation.stats import MIN_INTERVAL_N, t95, too_few_note

    assert t95(1) == pytest.approx(12.7062, abs=1e-4) and t95(9) == pytest.approx(2.2622, abs=1e-4)
    assert t95(29) == pytest.approx(2.0452, abs=1e-4) and t95(100_000) == pytest.approx(1.95999, abs=1e-4)
    two = mean_ci([-30.0, -39.5])
    assert two.half_width == pytest.approx(12.7062 * two.std / math.sqrt(2), rel=1e-4)
    assert not two.stated and "no interval" in str(two) and "[" not in str(two)
    ten = mean_ci([float(v) for v in range(MIN_INTERVAL_N)])
    assert ten.stated and str(ten).startswith("+4.50 [")
    note = too_few_note(2)
    assert "\n" not in note and "2 deals" in note and str(MIN_INTERVAL_N) in note


def test_a_report_from_few_deals_states_no_interval() -> None:
    few = evaluate_hands(HeuristicPolicy(), RandomPolicy(1), 3, seed=0)
    text = few.to_text()
    assert "no 95% interval from 3 deals" in text and "(no interval: n < 10)" in text
    assert "[" not in text.split("\n", 2)[2].split("hands won")[0]  # no bracketed interval in the table
    enough = evaluate_hands(HeuristicPolicy(), RandomPolicy(1), 10, seed=0).to_text()
    assert "no 95% interval" not in enough and "no interval" not in enough


def test_wilson_known_values() -> None:
    half = wilson_ci(5, 10)
    assert (half.low, half.high) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    none = wilson_ci(0, 10)
    assert none.low == 0.0 and none.high == pytest.approx(0.2775, abs=1e-4)
    assert wilson_ci(10, 10).high == 1.0
    with pytest.raises(ValueError):
        wilson_ci(11, 10)
    with pytest.raises(ValueError):
        wilson_ci(0, 0)


def test_half_width_shrinks_with_n() -> None:
    rng = np.random.default_rng(0)
    values = rng.normal(0, 10, 4000).tolist()
    widths = [mean_ci(values[:n]).half_width for n in (100, 400, 1600)]
    assert widths[0] > widths[1] > widths[2]
    assert widths[0] / widths[2] == pytest.approx(4, rel=0.2)  # ~ 1 / sqrt(n)
    small = evaluate_hands(HeuristicPolicy(), RandomPolicy(1), 15, seed=3)
    big = evaluate_hands(HeuristicPolicy(), RandomPolicy(1), 60, seed=3)
    assert big.overall.half_width < small.overall.half_width


# ------------------------------------------------------------------ hands
def test_random_vs_random_is_even_within_its_ci() -> None:
    report = evaluate_hands(RandomPolicy(1), RandomPolicy(2), 120, seed=0)
    assert report.overall.low <= 0 <= report.overall.high
    assert sum(report.outcomes.values()) == report.n_hands == 240
    assert sum(report.wins.values()) == 240


def test_duplicate_format_cancels_the_cards() -> None:
    # The same deterministic player on both sides: each deal's two hands mirror each other.
    report = evaluate_hands(HeuristicPolicy(), HeuristicPolicy(), 30, seed=1)
    assert report.overall.mean == 0 and report.overall.half_width == 0
    assert report.as_team.mean == -report.as_box.mean
    assert report.wins["a"] == report.wins["b"]


def test_seat_baseline_compares_each_seat_with_b_in_that_seat() -> None:
    # A == B (deterministic): A's hands are B's own, so A minus B is exactly 0 in each seat,
    # while the raw per-seat means keep the seat's worth.
    same = evaluate_hands(HeuristicPolicy(), HeuristicPolicy(), 25, seed=3, seat_baseline=True)
    assert same.seat_adjusted is not None
    for ci in same.seat_adjusted:
        assert ci.mean == 0 and ci.half_width == 0 and ci.n == 25
    assert same.as_team.mean != 0
    # A stronger than B: better than B in both seats; without the option the figures are absent.
    report = evaluate_hands(HeuristicPolicy(), RandomPolicy(1), 20, seed=3, seat_baseline=True)
    assert report.seat_adjusted is not None and all(ci.low > 10 for ci in report.seat_adjusted)
    assert "heuristic minus random as box" in report.to_text()
    data = report.to_dict()
    assert data["seat_adjusted"]["box"]["mean"] == report.seat_adjusted[1].mean
    plain = evaluate_hands(HeuristicPolicy(), RandomPolicy(1), 2, seed=3)
    assert plain.seat_adjusted is None and plain.to_dict()["seat_adjusted"] is None
    assert "minus" not in plain.to_text()


def test_evaluate_hands_is_seeded() -> None:
    one = evaluate_hands(HeuristicPolicy(), RandomPolicy(4), 20, seed=5)
    two = evaluate_hands(HeuristicPolicy(), RandomPolicy(4), 20, seed=5)
    other = evaluate_hands(HeuristicPolicy(), RandomPolicy(4), 20, seed=6)
    assert one.overall == two.overall
    assert one.overall.mean != other.overall.mean


def test_play_hand_uses_the_given_deck_and_roles() -> None:
    deck = list(np.random.default_rng(9).permutation(52))
    state = play_hand(HeuristicPolicy(), RandomPolicy(0), deck)
    assert state.is_over and list(state.deck) == [int(c) for c in deck]
    assert state.hands[0] | state.hands[1]  # cards were dealt from this deck
    assert HandState.deal(deck=deck).hands == [
        sum(1 << int(c) for c in deck[0:20:2]),
        sum(1 << int(c) for c in deck[1:20:2]),
    ]


def test_illegal_policy_is_named() -> None:
    with pytest.raises(ValueError, match="cheater"):
        evaluate_hands(Illegal(), RandomPolicy(0), 1, seed=0)
    with pytest.raises(ValueError, match="n_hands"):
        evaluate_hands(RandomPolicy(0), RandomPolicy(1), 0)


def test_hands_report_text_and_json() -> None:
    report = evaluate_hands(HeuristicPolicy(), RandomPolicy(2), 10, seed=2, progress=True)
    text = report.to_text()
    assert "heuristic as team" in text and "heuristic as box" in text and "95% CI" in text
    data = report.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["points_per_hand"]["mean"] == report.overall.mean
    assert data["n_hands"] == 20 and data["rules"]["knock_limit"] == 10


# ------------------------------------------------------------------ matches
def test_matches_heuristic_beats_random_and_report_round_trips() -> None:
    report = evaluate_matches(HeuristicPolicy(), RandomPolicy(3), 6, seed=0)
    assert report.win_rate.successes == 6 and report.win_rate.low > 1 / 3
    assert report.a_score.low >= 100 > report.b_score.mean
    assert report.unfinished == 0
    data = report.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert "A match win rate" in report.to_text()


def test_matches_equal_players_seat_cycle() -> None:
    # The same deterministic player in every seat: within a triple the three matches are
    # one and the same match, A sitting in each seat once, so A wins exactly once per triple.
    report = evaluate_matches(HeuristicPolicy(), HeuristicPolicy(), 6, seed=4)
    assert report.win_rate.successes == 2
    with pytest.raises(ValueError, match="n_matches"):
        evaluate_matches(HeuristicPolicy(), HeuristicPolicy(), 0)


# ------------------------------------------------------------------ CLI
def test_cli_writes_json_matching_the_text(tmp_path, capsys) -> None:
    out = tmp_path / "eval.json"  # into an existing folder: a missing one is refused before play
    code = cli_main(["heuristic", "random", "--hands", "8", "--matches", "3", "--seed", "1", "--json", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    data = json.loads(out.read_text())
    hands = data["reports"]["hands"]
    assert data["policy_a"] == "heuristic" and data["seed"] == 1
    assert hands["n_deals"] == 8 and data["reports"]["matches"]["n_matches"] == 3
    assert f"{hands['points_per_hand']['mean']:+.2f}" in text


def test_cli_errors(capsys) -> None:
    assert cli_main(["grandmaster", "random", "--hands", "1", "--matches", "0"]) == 2
    assert "grandmaster" in capsys.readouterr().err
    assert cli_main(["heuristic"]) == 2
    assert cli_main(["heuristic", "random", "--hands", "-1"]) == 2
    assert cli_main(["heuristic", "openspiel-simple", "--seat-baseline"]) == 2
    assert "--seat-baseline needs a policy B" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["heuristic", "random", "--hands", "many"])


def test_cli_rules_option(capsys) -> None:
    assert cli_main(["heuristic", "random", "--hands", "3", "--matches", "0", "--rules", '{"knock_limit": 0}']) == 0
    assert "a_knock 0" in capsys.readouterr().out  # gin only: every win is a gin
    assert cli_main(["heuristic", "random", "--hands", "1", "--rules", '{"bogus": 1}']) == 2


def test_cli_refuses_hands_0_unless_matches_are_asked_for(capsys) -> None:
    """--hands 0 played only the default matches in silence; it is refused like exploit's and
    ladder's 0, unless --matches N asks for only matches in so many words."""
    assert cli_main(["heuristic", "random", "--hands", "0"]) == 2
    err = capsys.readouterr().err
    assert "--hands must be >= 1, got 0" in err and "--matches N" in err and err.count("\n") == 1
    assert cli_main(["heuristic", "random", "--hands", "-3", "--matches", "2"]) == 2
    assert "--hands must be >= 1" in capsys.readouterr().err
    assert cli_main(["heuristic", "random", "--hands", "0", "--matches", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "2 matches" in out and "deals x 2 seats" not in out


def test_cli_openspiel_simple_misspelt_gets_a_did_you_mean(capsys) -> None:
    """B may be openspiel-simple, so a misspelling of it is answered with it."""
    assert cli_main(["heuristic", "openspiel-simpel", "--hands", "2"]) == 2
    err = capsys.readouterr().err
    assert "(did you mean 'openspiel-simple'?)" in err and "openspiel-simple," in err and err.count("\n") == 1


def test_cli_messages_a_new_user_meets(tmp_path, capsys) -> None:
    """--rules that is not JSON names --rules and JSON; nothing to play is refused;
    A and B are named as typed; the undercut counts say who undercut whom; no "-0.00"."""
    assert cli_main(["heuristic", "random", "--rules", "notjson"]) == 2
    err = capsys.readouterr().err
    assert "--rules" in err and "JSON" in err and err.count("\n") == 1
    assert cli_main(["heuristic", "random", "--rules", "[1]"]) == 2
    assert "--rules must be a JSON object" in capsys.readouterr().err
    assert cli_main(["heuristic", "random", "--hands", "0", "--matches", "0"]) == 2
    captured = capsys.readouterr()
    assert "nothing to play" in captured.err and captured.out == ""

    typed = str(tmp_path / "best.zip")
    assert cli_main(["heuristic", "heuristic", "--hands", "2", "--matches", "0", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "-0.00" not in text and "+0.00" in text  # the same player on both sides: exactly 0
    assert "undercut 1 (B knocked, A undercut)" in text and "undercut 1 (A knocked, B undercut)" in text

    import shutil

    from gin3_env.policies.loading import PPO_MODEL

    if PPO_MODEL.is_file():
        shutil.copyfile(PPO_MODEL, typed)
        assert cli_main([typed, "heuristic", "--hands", "1", "--matches", "0", "--no-progress"]) == 0
        text = capsys.readouterr().out
        assert f"{typed} (A) vs heuristic (B)" in text and f"{typed} as team" in text
        assert "best as team" not in text


def test_signed_never_prints_negative_zero() -> None:
    from gin3_env.evaluation.stats import signed

    assert [signed(x) for x in (-0.0, -0.004, 0.004, -0.005001, 1.5)] == ["+0.00", "+0.00", "+0.00", "-0.01", "+1.50"]
    assert signed(-0.04, 1) == "+0.0"


def test_progress_lines_when_not_a_terminal(capsys) -> None:
    """Progress is on by default; off a terminal it is a line every few seconds."""
    from gin3_env.evaluation.util import progress_bar

    assert list(progress_bar(range(5), True, "hands", every=0.0)) == list(range(5))
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 5 and lines[-1].startswith("[hands] 5 of 5 (100%)")
    assert list(progress_bar(range(5), False, "hands", every=0.0)) == list(range(5))
    assert capsys.readouterr().err == ""


def test_the_first_progress_line_comes_soon_then_one_every_few_seconds(capsys) -> None:
    """Off a terminal the first line comes after ``first`` seconds (a long run shows at once that it
    plays, and how fast), the next ones every ``every`` seconds."""
    import time

    from gin3_env.evaluation.util import progress_bar

    def slow(n: int):
        for i in range(n):
            time.sleep(0.02)
            yield i

    assert list(progress_bar(slow(10), True, "hands", total=10, every=60.0, first=0.05)) == list(range(10))
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("[hands] ") and " of 10 " in lines[0], lines


def test_a_total_that_cannot_be_negative_gets_no_negative_interval_end() -> None:
    from gin3_env.evaluation import mean_ci

    skewed = [0.0, 0.0, 0.0, 0.0, 150.0]
    assert mean_ci(skewed).low < 0  # the normal approximation alone
    clipped = mean_ci(skewed, lower=0.0)
    assert clipped.low == 0.0 and clipped.high == mean_ci(skewed).high and clipped.mean == 30.0
    assert mean_ci([100.0, 110.0, 120.0], lower=0.0) == mean_ci([100.0, 110.0, 120.0])


def test_evaluate_lists_its_stages_first(capsys) -> None:
    from gin3_env.evaluation import cli_main

    assert cli_main(["heuristic", "random", "--hands", "4", "--matches", "2", "--seed", "1"]) == 0
    first = capsys.readouterr().err.splitlines()[0]
    assert first == ("[evaluate] stages: 1. 4 deals, each played twice; 2. 2 three-seat matches (each with its "
                     "progress and time left)")
