"""The quick evaluation used during training."""

from __future__ import annotations

from typing import Any


def quick_evaluate(policy: Any, opponent: str, n_deals: int, seed: int) -> dict[str, float]:
    """Mean points per hand of ``policy`` against ``opponent`` over ``n_deals`` duplicate
    deals (each played in both roles), with the 95% CI half-width; played on the batched core
    (a random opponent too), as the rest of a training run."""
    from ..evaluation import evaluate_hands
    from ..policies import load_policy

    other = load_policy(opponent, seed=seed) if opponent == "random" else load_policy(opponent)  # reproducible
    report = evaluate_hands(policy, other, n_hands=n_deals, seed=seed, batched=True)
    return {
        "mean": report.overall.mean,
        "ci95": report.overall.half_width,
        "team_mean": report.as_team.mean,
        "box_mean": report.as_box.mean,
        "deals": report.n_deals,
    }
