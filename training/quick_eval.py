"""The quick evaluation used during training, and the learning curve's step-0 point."""

from __future__ import annotations

from typing import Any

from gin3_env.engine.rules import Rules


def quick_evaluate(policy: Any, opponent: str, n_deals: int, seed: int, rules: Rules | None = None) -> dict[str, float]:
    """Mean points per hand of ``policy`` against ``opponent`` over ``n_deals`` duplicate
    deals (each played in both roles), with the 95% CI half-width, the deals and their seed; played on
    the batched core (a random opponent too), as the rest of a training run, where ``policy`` has a
    batched form (an SB3 model does; an RLlib checkpoint's player is played on the scalar loop). The game
    is ``rules``' (None: the rule book's), the opponent loaded for them."""
    from gin3_env.evaluation import evaluate_hands
    from gin3_env.evaluation.batched_hands import batched_form
    from gin3_env.policies import load_policy

    # reproducible: a random opponent seeded
    other = load_policy(opponent, seed=seed) if opponent == "random" else load_policy(opponent, rules=rules)
    batched = True if batched_form(policy) is not None else None
    report = evaluate_hands(policy, other, n_hands=n_deals, seed=seed, rules=rules, batched=batched)
    return {
        "mean": report.overall.mean,
        "ci95": report.overall.half_width,
        "team_mean": report.as_team.mean,
        "box_mean": report.as_box.mean,
        "deals": report.n_deals,
        "seed": seed,
    }


def step_zero_point(model: Any, cfg: Any, *, seed: int) -> dict[str, Any]:
    """The learning curve's first point: the model before PPO (cloned from the heuristic when
    ``cfg.bc_samples`` > 0, else as initialised) on the in-training deals (``cfg.eval_hands``,
    ``seed``), so the curve shows where PPO started from."""
    import time

    from gin3_env.policies import SB3Policy

    policy = SB3Policy(model, metadata={"features": cfg.features})
    stats = quick_evaluate(policy, "heuristic", cfg.eval_hands, seed)
    label = "cloned" if cfg.bc_samples > 0 else "initial"
    print(
        f"[eval] step         0 ({label} model): {stats['mean']:+.2f} ± {stats['ci95']:.2f} points/hand vs "
        f"heuristic on the {cfg.eval_hands:,} in-training deals",
        flush=True,
    )
    return {"step": 0, "time": time.time(), **stats, "start": label}
