"""Learning-curve plot: points per hand against the heuristic over training steps.

Three kinds of figure, each on its own deals, and the plot says which:

- the curve: every in-training evaluation (and the step-0 point, the model before PPO),
  each with its 95% interval, all on the *same* few deals (``eval_hands``), a rough
  estimate whose highest points are biased upward (see :mod:`.selection`);
- the re-evaluated candidates: the highest points played again on fresh deals;
- the final figure: ``best.zip`` on deals used for nothing else, the one to quote.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gin3_training.run.checkpoints import write_bytes

__all__ = ["curve_caption", "plot_learning_curve"]


def _deals(record: Mapping[str, Any]) -> str:
    seed = f" (seed {record['seed']})" if record.get("seed") is not None else ""
    return f"{int(record['deals']):,} deals{seed}"


def curve_caption(history: list[dict[str, Any]], final: Mapping[str, Any] | None = None) -> str:
    """What each figure of the plot was measured on (the deals and their seed)."""
    lines = [f"Curve: the same {_deals(history[0])} at every point (95% intervals); a rough estimate."]
    selection = (final or {}).get("selection") or {}
    if selection.get("candidates"):
        lines.append(f"Candidates re-evaluated on {_deals(selection)} (other deals) to choose best.zip.")
    vs = (final or {}).get("vs", {}).get("heuristic")
    if vs is not None:
        lines.append(f"Final: best.zip on {_deals(vs)} used for nothing else: the figure to quote.")
    return "\n".join(lines)


def plot_learning_curve(
    history: list[dict[str, Any]], path: Path, final: Mapping[str, Any] | None = None
) -> Path | None:
    """Write a PNG of the evaluation history: each point with its 95% interval (the step-0 point
    marked), per role dashed, and, given the run's ``final`` summary (``final_eval.json``: the
    selection and the final table), the re-evaluated candidates and the final held-out figure as
    their own markers; a caption says which deals each used. Returns the path, or None when there
    is nothing to plot."""
    if not history:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [h["step"] for h in history]
    mean = [h["mean"] for h in history]
    fig, ax = plt.subplots(figsize=(7.5, 5), dpi=110)
    ax.errorbar(steps, mean, yerr=[h["ci95"] for h in history], marker="o", ms=4, capsize=3,
                color="tab:blue", label="in training, both roles (95% CI)")
    ax.plot(steps, [h["team_mean"] for h in history], ls="--", color="tab:green", label="as team")
    ax.plot(steps, [h["box_mean"] for h in history], ls="--", color="tab:red", label="as box")
    for h in history:
        if h.get("start"):
            ax.plot([h["step"]], [h["mean"]], marker="s", ms=9, ls="none", mfc="none", mec="black",
                    label=f"step 0 ({h['start']} model)")
    final = final or {}
    candidates = (final.get("selection") or {}).get("candidates") or []
    if candidates:
        ax.errorbar([c["step"] for c in candidates], [c["mean"] for c in candidates],
                    yerr=[c["ci95"] for c in candidates], marker="D", ms=6, ls="none", capsize=3,
                    color="tab:purple", label="candidates re-evaluated")
    vs = final.get("vs", {}).get("heuristic")
    if vs is not None:
        ax.errorbar([final.get("best_step", steps[-1])], [vs["mean"]], yerr=[vs["ci95"]], marker="*", ms=14,
                    ls="none", capsize=4, color="tab:orange", mec="black", label="best.zip, final held-out deals")
    ax.axhline(0.0, color="grey", lw=1)
    ax.set_xlabel("training steps")
    ax.set_ylabel("points per hand vs heuristic")
    ax.set_title("gin3 MaskablePPO: evaluation against the heuristic")
    ax.legend(loc="best", fontsize=7)
    ax.grid(alpha=0.3)
    fig.text(0.01, 0.01, curve_caption(history, final), fontsize=7, va="bottom", ha="left")
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    path = Path(path)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    write_bytes(path, buffer.getvalue())  # through the run folder's descriptor, atomically
    return path
