"""Learning-curve plot: points per hand against the heuristic over training steps."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def plot_learning_curve(history: list[dict[str, Any]], path: Path) -> Path | None:
    """Write a PNG of the evaluation history (mean with its 95% CI band, per role dashed).

    Returns the path, or None when there is nothing to plot."""
    if not history:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [h["step"] for h in history]
    mean = [h["mean"] for h in history]
    lo = [h["mean"] - h["ci95"] for h in history]
    hi = [h["mean"] + h["ci95"] for h in history]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    ax.fill_between(steps, lo, hi, alpha=0.25, color="tab:blue", label="95% CI")
    ax.plot(steps, mean, marker="o", color="tab:blue", label="both roles")
    ax.plot(steps, [h["team_mean"] for h in history], ls="--", color="tab:green", label="as team")
    ax.plot(steps, [h["box_mean"] for h in history], ls="--", color="tab:red", label="as box")
    ax.axhline(0.0, color="grey", lw=1)
    ax.set_xlabel("training steps")
    ax.set_ylabel("points per hand vs heuristic")
    ax.set_title("gin3 MaskablePPO: evaluation against the heuristic")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path = Path(path)
    tmp = path.with_name(path.stem + ".partial.png")
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, path)
    return path
