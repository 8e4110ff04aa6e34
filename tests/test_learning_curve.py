"""The learning-curve plot: intervals, the step-0 point, the final held-out figure, and a caption."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gin3_training.ppo.plots import curve_caption, plot_learning_curve

pytest.importorskip("matplotlib")


def point(step: int, mean: float, **extra: Any) -> dict[str, Any]:
    return {"step": step, "mean": mean, "ci95": 1.4, "team_mean": mean + 1, "box_mean": mean - 1, "deals": 200,
            "seed": 7, **extra}


HISTORY = [point(0, -0.9, start="cloned"), point(25_000, 0.31), point(50_000, 0.21)]
FINAL = {
    "best_step": 25_000,
    "selection": {"step": 25_000, "deals": 500, "seed": 4321,
                  "candidates": [{**point(25_000, -0.87), "deals": 500, "seed": 4321, "in_training_mean": 0.31}]},
    "vs": {"heuristic": {**point(25_000, -1.62), "ci95": 0.86, "deals": 500, "seed": 1234}},
}


def test_caption_says_which_deals_each_figure_used() -> None:
    text = curve_caption(HISTORY, FINAL)
    assert "the same 200 deals (seed 7) at every point" in text
    assert "re-evaluated on 500 deals (seed 4321)" in text
    assert "best.zip on 500 deals (seed 1234) used for nothing else" in text
    assert curve_caption(HISTORY).count("\n") == 0  # no final table yet: the curve alone


def test_plot_draws_every_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.axes

    calls: list[tuple[Any, ...]] = []
    real = matplotlib.axes.Axes.errorbar

    def spy(self: Any, x: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append((list(x), list(y), kwargs.get("label")))
        return real(self, x, y, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "errorbar", spy)
    path = plot_learning_curve(HISTORY, tmp_path / "curve.png", final=FINAL)
    assert path is not None and path.stat().st_size > 10_000
    assert not list(tmp_path.glob("*.partial*"))
    labels = {label: (x, y) for x, y, label in calls}
    assert labels["in training, both roles (95% CI)"] == ([0, 25_000, 50_000], [-0.9, 0.31, 0.21])
    assert labels["best.zip, final held-out deals"] == ([25_000], [-1.62])
    assert labels["candidates re-evaluated"] == ([25_000], [-0.87])
    assert plot_learning_curve([], tmp_path / "none.png") is None
