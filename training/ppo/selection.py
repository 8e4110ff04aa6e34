"""Choosing ``best.zip`` without fooling oneself.

The evaluations during training (``eval_hands`` deals against the heuristic,
the same deals each time) are rough: with 200 deals the 95% interval is about
±1.4 points per hand, and the highest of several such estimates is biased
upward, so "best +0.61" in the log could meet -1.28 in the final table for the
same model. Therefore:

1. after each in-training evaluation the model is kept as a *candidate*
   (``candidates/step_N.zip``) while its estimate is among the ``select_top``
   highest so far; the model PPO starts from (step 0: the cloned start) is a
   candidate whatever its estimate, so a run never ships a model that scores
   worse than where it began;
2. at the end every candidate is evaluated again on ``select_hands`` fresh deals
   (another seed), and the best of *those* figures becomes ``best.zip``;
3. the final table evaluates ``best.zip`` on a third set of deals, used for
   nothing else, so its figure is an unbiased estimate of the chosen model.

The choice in step 2 is still a maximum over a few estimates, but of few
candidates on many more deals, and the table of step 3 does not depend on it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gin3_env.files import read_regular_file
from gin3_training.run.checkpoints import write_bytes
from gin3_training.run.folder import check_run_folder, in_run_folder

MAX_MODEL_BYTES = 1 << 30  # a candidate snapshot (a few MB)

SELECTION_SEED_OFFSET = 4321  # the in-training deals use seed + 7, the final table seed + 1234


def candidate_path(run_dir: Path, step: int) -> Path:
    """Where the run keeps the model of ``step`` as a candidate: always this name in its own folder."""
    return run_dir / "candidates" / f"step_{step}.zip"


def checked_candidates(state: dict[str, Any], run_dir: Path) -> list[str]:
    """Check the candidates of a resumed training state (read back from a checkpoint: data like any input)
    and keep those that are this run's own files; returns notes naming the ones dropped. A candidate is
    ``{"step", "mean", "path"}`` with ``path`` the run's :func:`candidate_path` of its step: a path
    anywhere else (another run's folder, a file of the user's) is dropped, never evaluated, copied or
    deleted."""
    kept, dropped = [], []
    raw = state.get("candidates", [])
    for c in raw if isinstance(raw, list) else []:
        ok = (isinstance(c, dict) and isinstance(c.get("step"), int) and not isinstance(c["step"], bool)
              and c["step"] >= 0 and isinstance(c.get("mean"), int | float) and not isinstance(c["mean"], bool)
              and math.isfinite(c["mean"]) and isinstance(c.get("path"), str))
        if ok and os.path.abspath(c["path"]) == os.path.abspath(candidate_path(run_dir, c["step"])):
            kept.append({"step": c["step"], "mean": float(c["mean"]), "path": c["path"],
                         **({"pinned": True} if c.get("pinned") is True else {})})
        else:
            dropped.append(repr(c.get("path") if isinstance(c, dict) else c)[:100])
    state["candidates"] = kept
    if not isinstance(raw, list):
        return ["the checkpoint's candidates are not a list: none kept"]
    if dropped:
        return [f"candidate(s) not in this run's folder {run_dir / 'candidates'} dropped (never evaluated, copied "
                f"or deleted): {', '.join(dropped)}"]
    return []


def keep_candidate(state: dict[str, Any], step: int, mean: float, run_dir: Path, top: int,
                   save: Callable[[Path], None], pinned: bool = False) -> bool:
    """Keep the model evaluated at ``step`` if its estimate is among the ``top`` best, or always where
    ``pinned`` (the starting point: a pinned candidate is never dropped and does not count among the
    ``top``); True if kept."""
    candidates = [c for c in state.get("candidates", []) if c["step"] != step]
    kept = [c for c in candidates if c.get("pinned")]
    ranked = sorted((c for c in candidates if not c.get("pinned")), key=lambda c: c["mean"], reverse=True)
    if not pinned and len(ranked) >= top and mean <= ranked[top - 1]["mean"]:
        return False
    path = candidate_path(run_dir, step)
    save(path)  # the folder is made through the run folder's descriptor (checkpoints.write_bytes)
    entry = {"step": step, "mean": mean, "path": str(path), **({"pinned": True} if pinned else {})}
    if pinned:
        kept.append(entry)
    else:
        ranked = sorted([*ranked, entry], key=lambda c: c["mean"], reverse=True)
    with in_run_folder(run_dir) as folder:  # through its descriptor; the name of the step, whatever a state says
        for dropped in ranked[top:]:
            folder.unlink(candidate_path(run_dir, dropped["step"]).relative_to(run_dir).as_posix())
    state["candidates"] = sorted([*kept, *ranked[:top]], key=lambda c: c["mean"], reverse=True)
    return True


def choose_best(state: dict[str, Any], run_dir: Path, hands: int, seed: int,
                evaluate: Callable[[str, int, int], dict[str, float]]) -> dict[str, Any]:
    """Re-evaluate the candidates on fresh deals, copy the best to ``best.zip``; return the record.

    ``evaluate(path, hands, seed)`` returns ``quick_evaluate``'s dict for the model at ``path``.
    With one candidate there is nothing to choose and it is not evaluated again."""
    candidates = sorted(({**c, "path": str(candidate_path(run_dir, c["step"]))} for c in state.get("candidates", [])
                         if candidate_path(run_dir, c["step"]).is_file()), key=lambda c: c["step"])
    if not candidates:
        return {"step": state.get("best_step", 0), "deals": 0, "seed": None, "candidates": []}
    results: list[dict[str, Any]] = []
    if len(candidates) == 1:
        chosen = candidates[0]
    else:
        for c in candidates:
            stats = evaluate(c["path"], hands, seed)
            results.append({"step": c["step"], "in_training_mean": c["mean"], **stats})
        best_step = max(results, key=lambda r: r["mean"])["step"]
        chosen = next(c for c in candidates if c["step"] == best_step)
    check_run_folder(run_dir)
    write_bytes(run_dir / "best.zip", read_regular_file(chosen["path"], "candidate model", MAX_MODEL_BYTES))
    return {"step": chosen["step"], "deals": hands if results else 0, "seed": seed if results else None,
            "candidates": results}


def selection_text(record: dict[str, Any]) -> str:
    """One log line that says what the selection's numbers are."""
    if not record["candidates"]:
        return f"[select] best.zip = the model of step {record['step']:,} (the only candidate)"
    figures = "; ".join(
        f"step {r['step']:,} {r['mean']:+.2f} ± {r['ci95']:.2f} (in training {r['in_training_mean']:+.2f})"
        for r in record["candidates"]
    )
    return (
        f"[select] {len(record['candidates'])} best in-training candidates re-evaluated on {record['deals']:,} "
        f"fresh deals vs heuristic: {figures}; best.zip = step {record['step']:,}"
    )
