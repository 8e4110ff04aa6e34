"""A random opponent plays batched when asked (training's evaluations), the scalar loop by default."""

from __future__ import annotations

import pytest

from gin3_env.evaluation import evaluate_hands
from gin3_env.policies import HeuristicPolicy, RandomPolicy


def test_random_plays_batched_when_asked_reproducibly() -> None:
    first = evaluate_hands(HeuristicPolicy(), RandomPolicy(seed=4), 120, seed=9, batched=True)
    again = evaluate_hands(HeuristicPolicy(), RandomPolicy(seed=4), 120, seed=9, batched=True)
    other = evaluate_hands(HeuristicPolicy(), RandomPolicy(seed=5), 120, seed=9, batched=True)
    assert first.overall.mean == again.overall.mean and first.as_box.mean == again.as_box.mean
    assert first.overall.mean != other.overall.mean
    assert first.n_deals == 120 and first.overall.mean > 20  # the heuristic crushes random play


def test_random_keeps_the_scalar_loop_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    from gin3_env.evaluation import batched_hands

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the batched loop was used")

    monkeypatch.setattr(batched_hands, "evaluate_hands_batched", refuse)
    auto = evaluate_hands(HeuristicPolicy(), RandomPolicy(seed=4), 60, seed=9)
    scalar = evaluate_hands(HeuristicPolicy(), RandomPolicy(seed=4), 60, seed=9, batched=False)
    assert auto.overall.mean == scalar.overall.mean


def test_training_evaluations_never_use_the_scalar_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    from gin3_env.evaluation import hands
    from gin3_training.quick_eval import quick_evaluate

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the scalar loop was used")

    monkeypatch.setattr(hands, "play_deal", refuse)
    vs_random = quick_evaluate(HeuristicPolicy(), "random", 40, seed=3)
    assert vs_random == quick_evaluate(HeuristicPolicy(), "random", 40, seed=3)  # seeded by the evaluation's seed
    assert vs_random["deals"] == 40 and vs_random["mean"] > 10
    vs_heuristic = quick_evaluate(HeuristicPolicy(), "heuristic", 40, seed=3)
    assert vs_heuristic["deals"] == 40
