"""The distillation run's curve: strength against the heuristic after each round, against the decisions
distilled so far and the CPU-minutes spent (``curve.png`` in the run folder)."""

from __future__ import annotations

from typing import Any


def plot_curve(rounds: list[dict[str, Any]], title: str = "net distilled from gated",
               minutes: str = "cpu_minutes") -> bytes:
    """Each round's pair mean against the heuristic (95% interval) on the choice deals, by decisions
    gathered (bottom axis), each point labelled with the minutes spent up to it (the rounds' ``minutes``
    key: ``cpu_minutes`` or ``wall_minutes``). Returns the PNG's bytes (the run writes them through its held folder)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["decisions"] for r in rounds]
    y = [r["choice"]["pair_mean"][0] for r in rounds]
    lo = [r["choice"]["pair_mean"][0] - r["choice"]["pair_mean"][1] for r in rounds]
    hi = [r["choice"]["pair_mean"][2] - r["choice"]["pair_mean"][0] for r in rounds]
    spent = 0.0
    unit = "CPU-min" if minutes == "cpu_minutes" else "min"
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=4, label="net against the heuristic (choice deals)")
    for r, xi, yi in zip(rounds, x, y, strict=True):
        spent += r.get(minutes, 0.0)
        ax.annotate(f"round {r['round']}\n{spent:.0f} {unit}", (xi, yi), textcoords="offset points", xytext=(6, -24),
                    fontsize=8)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("decisions distilled (teacher's, then DAgger on the network's own states)")
    ax.set_ylabel("points per hand vs heuristic")
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()
