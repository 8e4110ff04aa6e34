"""The rules configuration (§9): defaults, validation, round trips."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from gin3_env.engine.rules import Rules

RULEBOOK_DEFAULTS = {
    "gin_bonus": 25,
    "undercut_bonus": 10,
    "knock_limit": 10,
    "target_score": 100,
    "dead_stock": 2,
    "allow_discard_taken_card": False,
    "max_turns": 200,
}


def test_defaults_match_the_rule_book() -> None:
    assert Rules().to_dict() == RULEBOOK_DEFAULTS
    assert Rules.option_names() == tuple(RULEBOOK_DEFAULTS)


def test_round_trips() -> None:
    rules = Rules(gin_bonus=20, undercut_bonus=25, knock_limit=0, target_score=250, dead_stock=0,
                  allow_discard_taken_card=True, max_turns=50)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert pickle.loads(pickle.dumps(rules)) == rules
    assert copy.deepcopy(rules) == rules
    assert rules.replace(knock_limit=7) == Rules(**{**rules.to_dict(), "knock_limit": 7})
    assert Rules.from_dict({}) == Rules()


def test_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rules().knock_limit = 3  # type: ignore[misc]


def test_numpy_values_are_normalised() -> None:
    rules = Rules(knock_limit=np.int64(5), allow_discard_taken_card=np.bool_(True))
    assert rules.knock_limit == 5 and type(rules.knock_limit) is int
    assert rules.allow_discard_taken_card is True


@pytest.mark.parametrize("build", [lambda: Rules(knock_limt=5), lambda: Rules.from_dict({"knock_limt": 5}),
                                   lambda: Rules().replace(knock_limt=5)])
def test_unknown_option_is_named(build) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="unknown rules option 'knock_limt'"):
        build()


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("gin_bonus", "25"),
        ("gin_bonus", 25.0),
        ("undercut_bonus", None),
        ("knock_limit", True),
        ("target_score", 100.5),
        ("dead_stock", [2]),
        ("max_turns", np.bool_(True)),
        ("allow_discard_taken_card", 1),
        ("allow_discard_taken_card", "yes"),
        ("allow_discard_taken_card", None),
    ],
)
def test_bad_type_is_named(option: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"'{option}' must be an? (int|bool)"):
        Rules(**{option: value})
    with pytest.raises(ValueError, match=option):
        Rules.from_dict({option: value})


@pytest.mark.parametrize(
    ("option", "bad", "good"),
    [
        ("gin_bonus", -1, 0),
        ("undercut_bonus", -5, 0),
        ("knock_limit", -1, 0),
        ("knock_limit", 101, 100),
        ("target_score", 0, 1),
        ("dead_stock", -1, 0),
        ("dead_stock", 31, 30),
        ("max_turns", 0, 1),
    ],
)
def test_out_of_range_is_named(option: str, bad: int, good: int) -> None:
    with pytest.raises(ValueError, match=f"'{option}' must be in .*got {bad}"):
        Rules(**{option: bad})
    assert getattr(Rules(**{option: good}), option) == good


def test_from_dict_needs_a_mapping() -> None:
    with pytest.raises(ValueError, match="mapping"):
        Rules.from_dict([("knock_limit", 5)])  # type: ignore[arg-type]


def test_too_many_positional_values() -> None:
    with pytest.raises(ValueError, match="at most 7"):
        Rules(1, 2, 3, 4, 5, True, 7, 8)  # type: ignore[call-arg]
