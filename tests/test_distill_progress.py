"""The time-left estimate of a distillation run: no figure until the work is measured."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from gin3_training.distill.config import DistillConfig
from gin3_training.distill.run import Progress


def test_no_time_left_is_stated_until_enough_work_is_measured(capsys: pytest.CaptureFixture[str]) -> None:
    """Fits of 1 to 2 minutes started with estimates of 12.7 and 99.6 minutes (a rate from the first half
    second, or a guess); the line says "estimating" until a rate rests on a sample of several seconds."""
    cfg = DistillConfig(teacher_decisions=200_000, dagger_rounds=1, dagger_decisions=100_000)
    prog = Progress(cfg, 0)
    assert prog.left(0, 150_000, 1.0) is None  # nothing measured: no figure
    prog.say("round 0: shard 1/4", prog.left(0, 150_000, 1.0), force=True)
    assert "estimating time left" in capsys.readouterr().out
    prog.measured("gen", 2_000, 0.6)  # half a second of start-up is not a rate
    assert prog.left(0, 150_000, 1.0) is None
    prog.measured("gen", 50_000, 12.5)
    assert prog.left(0, 150_000, 1.0) is None  # the fit's rate is still unknown
    prog.measured("fit", 40_000, 0.7)
    assert prog.left(0, 0, 0.99) is None
    prog.measured("fit", 400_000, 20.0)
    left = prog.left(0, 150_000, 1.0)
    assert left is not None
    gen, fit = 4_000.0, 20_000.0  # the measured rates
    e, evals = cfg.epochs, 8.0 * (cfg.final_eval_hands + cfg.choice_deals * 2) / 1000
    expected = 150_000 / gen + e * 200_000 / fit + 100_000 / gen + e * 300_000 / fit + evals
    assert left == pytest.approx(expected)
    prog.say("round 0: shard 2/4", left, force=True)
    assert f"about {left / 60:.1f} min left" in capsys.readouterr().out
    # the last round's final step needs no rate: the final evaluation's estimate stands alone
    assert Progress(cfg, 1).left(1, 0, 0.0) == pytest.approx(8.0 * (cfg.final_eval_hands + cfg.choice_deals) / 1000)
