"""One player registry (``gin3_env.policies.registry``): a new player is one row and its module.

A dummy row, added by monkeypatching :data:`PLAYER_ROWS`, reaches every place that turns a spec into a
player: ``load_policy`` (built for the game's rules), ``check_policy_spec``, ``policy_spec_files``, the list
every ``--help`` prints (``gin3 evaluate --help``'s), the refusal of an unknown name, ``gin3 ladder``'s default
roster (with a ``ladder`` place), and both batched-form
lookups (``gin3_env.vector.as_batch`` and the belief's ``opponent_model``). The docs' player list is not
generated: ``tests/test_players_described.py`` holds the README and the docs to the rows' sentences.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from gin3_env import Rules
from gin3_env.evaluation.cli import build_parser
from gin3_env.policies import check_policy_spec, load_policy, policy_spec_files, policy_spec_help
from gin3_env.policies.loading import unknown_policy
from gin3_env.policies.opponent_model import opponent_model
from gin3_env.policies.registry import (
    BATCHED_FORMS,
    KNOCK_LIMIT,
    PLAYER_ROWS,
    PlayerRow,
    find_row,
    model_path,
    player_sentences,
    shipped_names,
    takes_seed,
)
from gin3_env.vector import as_batch

SENTENCE = "the first legal move, always (a registry test's player)"


class FirstLegal:
    """The dummy player: the lowest legal action, one row or many; built for the rules it is given."""

    name = "first"

    def __init__(self, rules: Rules | None) -> None:
        self.rules = rules if rules is not None else Rules()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.argmax(np.asarray(masks) != 0, axis=1).astype(np.int64)


@pytest.fixture
def dummy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Adds the row ``first`` (and returns the specs its check was asked about)."""
    checked: list[str] = []
    row = PlayerRow(
        "first", SENTENCE, KNOCK_LIMIT, "the game's knock_limit, which it ignores",
        lambda spec, rules, kwargs: FirstLegal(rules), checked.append, lambda spec: ["first.json"],
        batched="rows",
    )
    monkeypatch.setitem(PLAYER_ROWS, "first", row)
    return checked


def test_a_new_row_reaches_the_loader_the_check_and_the_files(dummy: list[str]) -> None:
    five = Rules(knock_limit=5)
    player = load_policy("first", rules=five)
    assert isinstance(player, FirstLegal) and player.rules == five
    check_policy_spec("first")
    assert dummy == ["first"]
    assert policy_spec_files("first") == ["first.json"]
    assert "first" in shipped_names() and player_sentences()["first"] == SENTENCE
    assert "'first'" in str(unknown_policy("firts"))


def test_a_new_row_is_listed_in_every_help(dummy: list[str]) -> None:
    assert f"first: {SENTENCE}" in policy_spec_help()
    text = re.sub(r"\s+", " ", build_parser().format_help())  # gin3 evaluate --help
    assert f"first: {SENTENCE}" in text


def test_a_new_row_with_a_ladder_place_joins_the_ladders_roster(dummy: list[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from gin3_env.evaluation import ladder

    assert "first" not in ladder.default_roster()
    monkeypatch.setitem(PLAYER_ROWS, "first", replace(PLAYER_ROWS["first"], ladder=0))
    roster = ladder.default_roster()
    assert roster.index("first") < roster.index("heuristic") and roster[-1] == "openspiel-simple"
    assert ",".join(roster) == ladder.build_parser().parse_args([]).players


def test_a_new_row_has_its_batched_form(dummy: list[str]) -> None:
    masks = np.zeros((3, 107), np.int8)
    masks[0, 5] = masks[1, 9] = masks[1, 20] = masks[2, 0] = 1
    obs = np.zeros((3, 400), np.float32)
    batch = as_batch("first", rules=Rules(knock_limit=5))
    assert batch is not None and batch.rules == Rules(knock_limit=5)
    assert batch.act(obs, masks).tolist() == [5, 9, 0]
    model = opponent_model("first")
    assert model.name == "first" and model.act(obs, masks).tolist() == [5, 9, 0]


def test_a_row_without_a_batched_form_has_none(dummy: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PLAYER_ROWS, "first", replace(PLAYER_ROWS["first"], batched=None))
    assert as_batch("first") is None
    with pytest.raises(ValueError, match="has no batched form"):
        opponent_model("first")


def test_every_spec_finds_its_row() -> None:
    for name in shipped_names():
        row = find_row(name)
        assert row is not None and row.name == name
    assert find_row("search:samples=4").name == "search"  # type: ignore[union-attr]
    assert find_row("search:rollout_policy=g.json").name == "search"  # type: ignore[union-attr]
    assert find_row("rllib:run/checkpoint").name == "rllib:"  # type: ignore[union-attr]
    for suffix in (".json", ".npz", ".zip"):
        assert find_row(f"some/model{suffix}").name == suffix  # type: ignore[union-attr]
    assert find_row("some/folder/model").name == ".zip"  # type: ignore[union-attr]  # any other path: a saved model
    assert find_row("nothing") is None
    assert takes_seed("random") and takes_seed("search:samples=4") and not takes_seed("gated")


def test_the_rows_are_well_formed() -> None:
    for row in PLAYER_ROWS.values():
        assert row.description and row.rules_note, row.name
        assert row.batched is None or row.batched in BATCHED_FORMS
        assert all(option in Rules.option_names() for option in row.reads)
        if row.model_file is not None:
            assert model_path(row.name) == row.model_file
            assert row.model_file.is_file() or row.name == "ppo", row.model_file
    with pytest.raises(ValueError, match="reads unknown rules options"):
        replace(PLAYER_ROWS["random"], reads=("knock",))


def test_the_shipped_players_batched_forms_are_their_rows() -> None:
    """Each built-in row's batched form is what as_batch makes of it (the model rows need torch: left out)."""
    kinds: dict[str, Any] = {"random": "RandomBatch", "heuristic": "HeuristicBatch", "gated": "GatedBatch",
                             "net": "NetBatch"}
    for name, kind in kinds.items():
        assert type(as_batch(name)).__name__ == kind, name
    assert PLAYER_ROWS["search"].batched == "blueprint"


def test_trained_is_an_alias_of_the_strongest_learnt_player() -> None:
    """``trained`` is the row of :data:`~gin3_env.policies.registry.STRONGEST` under its own name: the same loader,
    model file and batched form, the same moves; out of the ladder (it would play itself), listed after it."""
    from gin3_env.kernels.hands import VectorHands
    from gin3_env.policies.registry import STRONGEST, ladder_players

    alias, strongest = PLAYER_ROWS["trained"], PLAYER_ROWS[STRONGEST]
    assert alias.alias_of == STRONGEST and strongest.alias_of is None and STRONGEST != "trained"
    assert (alias.load, alias.model_file, alias.batched) == (strongest.load, strongest.model_file, strongest.batched)
    assert "trained" not in ladder_players() and STRONGEST in ladder_players()
    names = list(PLAYER_ROWS)
    assert names.index("trained") == names.index(STRONGEST) + 1
    player, same = load_policy("trained"), load_policy(STRONGEST)
    assert player.name == "trained" and same.name == STRONGEST
    hands = VectorHands(16, seed=5)
    for _ in range(8):
        obs, masks = hands.observe(), hands.action_mask
        moves = player.act_batch(obs, masks)
        assert (moves == same.act_batch(obs, masks)).all()
        hands.step(moves)
