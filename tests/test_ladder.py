"""``gin3 ladder``: every pair of a roster on the same duplicate deals; table, JSON, picture; refusals first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gin3_env import cli
from gin3_env.evaluation import evaluate_hands, ladder
from gin3_env.evaluation.ladder import (
    DEFAULT_ROSTER,
    GIN3_GAME,
    OPENSPIEL_GAME,
    build_parser,
    check_outputs,
    check_roster,
    default_search_hands,
    run_ladder,
)
from gin3_env.policies import load_policy

TINY_SEARCH = "search:samples=4,min_samples=2,time_budget=none"


def _no_play(*args: object, **kwargs: object) -> None:
    raise AssertionError("a pair was played before the refusal")


def test_small_ladder_pairs_share_the_deals_of_gin3_evaluate() -> None:
    result = run_ladder(["random", "heuristic", TINY_SEARCH], hands=4, seed=5, search_hands=2)
    assert [(p.a, p.b) for p in result.pairs] == [("random", "heuristic"), ("random", TINY_SEARCH),
                                                  ("heuristic", TINY_SEARCH)]
    assert [p.deals for p in result.pairs] == [4, 2, 2]  # pairs with search play --search-hands deals
    assert {p.game for p in result.pairs} == {GIN3_GAME}
    # a pair's figure is gin3 evaluate's for the same pair and seed (A with seed S, B with S + 1)
    same = evaluate_hands(load_policy("random", seed=5), load_policy("heuristic"), 4, 5)
    pair = result.pair("heuristic", "random")
    assert pair is not None and pair.report.overall == same.overall
    m = result.matrix()
    assert m[0][0] is None and m[0][1] == same.overall.mean and m[1][0] == -same.overall.mean
    assert [name for name, _, _ in result.standing()][-1] == "random"
    text = result.to_text()
    assert "pairs with search play the first 2 of the deals" in text and "standing" in text


def test_cli_writes_table_json_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "results" / "ladder.json"
    code = cli.main(["ladder", "--players", "random,heuristic", "--hands", "3", "--seed", "1", "--json", str(out),
                     "--no-progress"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "random" in printed and "heuristic" in printed and "95% interval" in printed
    data = json.loads(out.read_text())
    assert data["players"] == ["random", "heuristic"] and data["hands"] == 3 and data["seed"] == 1
    (pair,) = data["pairs"]
    assert pair["a"] == "random" and pair["b"] == "heuristic" and pair["deals"] == 3
    assert pair["low"] <= pair["mean"] <= pair["high"]
    assert data["matrix"][1][0] == pytest.approx(-pair["mean"])
    picture = out.with_suffix(".png")
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["ladder.json", "ladder.png"]  # no temporary left


@pytest.mark.parametrize(
    ("players", "words"),
    [
        ("random,nonsense", "unknown policy 'nonsense'"),
        ("random", "at least two players"),
        ("random,heuristic,random", "names 'random' twice"),
        ("random,,heuristic", "empty name"),
        ("random,search:samples=x", "samples must be an int"),
        ("random,missing.zip", "not found"),
    ],
)
def test_bad_roster_refused_before_any_play(
    players: str, words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(ladder, "play_pair", _no_play)
    out = tmp_path / "ladder.json"
    code = cli.main(["ladder", "--players", players, "--hands", "2", "--json", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and words in err and err.count("\n") == 1
    assert not out.exists() and not out.with_suffix(".png").exists()


def test_bad_outputs_refused_before_any_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(ladder, "play_pair", _no_play)
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    cases = [
        (["--json", str(tmp_path)], "is a folder"),
        (["--json", str(a_file / "ladder.json")], "is a file, not a folder"),
        (["--json", str(tmp_path / "l.json"), "--plot", str(tmp_path / "l.svg")], "NAME.png"),
        (["--hands", "0"], "--hands must be an int >= 1"),
        (["--search-hands", "0"], "--search-hands must be an int >= 1"),
    ]
    for extra, words in cases:
        code = cli.main(["ladder", "--players", "random,heuristic", *extra])
        err = capsys.readouterr().err
        assert code == 2 and words in err, (extra, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_check_outputs_accepts_a_new_folder(tmp_path: Path) -> None:
    check_outputs(str(tmp_path / "new" / "deeper" / "ladder.json"), str(tmp_path / "new" / "ladder.png"))
    assert not (tmp_path / "new").exists()  # checked, not created
    with pytest.raises(ValueError, match="same file"):
        check_outputs(str(tmp_path / "x.png"), str(tmp_path / "x.png"))


def test_default_roster_and_search_share() -> None:
    assert build_parser().parse_args([]).players == ",".join(DEFAULT_ROSTER)
    assert {"random", "heuristic", "gated", "net", "ppo", "search", "openspiel-simple"} == set(DEFAULT_ROSTER)
    assert default_search_hands(1000) == 100 and default_search_hands(5) == 1


def test_top_level_help_lists_ladder(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "ladder" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["ladder", "--help"])
    assert "--search-hands" in capsys.readouterr().out


def test_openspiel_simple_pairs_play_openspiel_gin(tmp_path: Path) -> None:
    pytest.importorskip("pyspiel")
    check_roster(["openspiel-simple", "heuristic"])
    result = run_ladder(["openspiel-simple", "heuristic"], hands=2, seed=3)
    (pair,) = result.pairs
    assert (pair.a, pair.b, pair.game, pair.deals) == ("heuristic", "openspiel-simple", OPENSPIEL_GAME, 2)
    assert result.matrix()[0][1] == -pair.report.overall.mean  # the bot's row is minus the policy's
    assert "OpenSpiel's two-player gin_rummy" in result.to_text()
    ladder.plot_ladder(result, tmp_path / "l.png")
    assert (tmp_path / "l.png").read_bytes()[:4] == b"\x89PNG"


def test_the_ladder_lists_its_pairs_and_keeps_the_time_left(capsys: pytest.CaptureFixture[str]) -> None:
    from gin3_env.evaluation.ladder import cli_main

    assert cli_main(["--players", "random,heuristic,gated", "--hands", "4", "--no-plot"]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[ladder]")]
    assert err[0] == ("[ladder] 3 pairs, 12 deals in all (each played twice): random vs heuristic (4), "
                      "random vs gated (4), heuristic vs gated (4)")
    assert "left" in err[1] and "left" in err[2] and "left" not in err[3]  # the last pair: nothing left
