"""Fitting a gate: ridge and a small MLP on the labels, k-fold by deal, the threshold by
cross-validated gain.

:func:`fit_gate` fits the gate of any decision of the table (:data:`gin3_env.kernels.decisions.DECISIONS`)
on its labels (:mod:`.labels`). Both models predict ``D`` (value of the alternative minus value of the
heuristic's choice, points) from the decision's features, on the rows the gate's options let it act on
(each option's rule, read from one feature: the knock gate's ``min_deadwood``, the draw gate's
``only_take``; the same rule the player applies). Out-of-fold predictions (folds by deal, so a deal's
decisions never sit on both sides) give each model's cross-validated gain at each threshold ``t``: the
mean of ``D`` over the decisions where the prediction exceeds ``t`` (switching there, the heuristic's
choice elsewhere), per labelled decision; where a decision has several alternatives (the discard's), each
decision switches to its row of the highest prediction. The threshold and the model kind with the highest
gain are chosen here, from the labels alone, and the gate refitted on all labels; nothing about play
enters the choice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gin3_env.kernels.decisions import AT_LEAST, ZERO_WHEN_SET, decision
from gin3_env.policies.gate_file import Gate
from gin3_env.policies.gate_file import gate_options as checked_options

__all__ = ["FitReport", "fit_gate"]

THRESHOLDS = np.round(np.arange(-1.0, 4.01, 0.1), 2)


def _standardise(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-9] = 1.0
    return mean, scale


def fit_ridge(X: np.ndarray, y: np.ndarray, lam: float = 1.0) -> dict[str, Any]:
    mean, scale = _standardise(X)
    Z = (X - mean) / scale
    b = float(y.mean())
    A = Z.T @ Z + lam * np.eye(Z.shape[1])
    w = np.linalg.solve(A, Z.T @ (y - b))
    F = X.shape[1]
    return {"mean": mean, "scale": scale, "W1": np.zeros((0, F)), "b1": np.zeros(0), "w2": w, "b2": b}


def fit_mlp(X: np.ndarray, y: np.ndarray, hidden: int = 32, epochs: int = 30, lr: float = 3e-3,
            weight_decay: float = 1e-4, batch: int = 256, seed: int = 0) -> dict[str, Any]:
    """A one-hidden-layer ReLU network by Adam on the squared error (numpy)."""
    rng = np.random.default_rng(seed)
    mean, scale = _standardise(X)
    Z = (X - mean) / scale
    n, F = Z.shape
    ym = float(y.mean())
    params = {
        "W1": rng.normal(0, np.sqrt(2.0 / F), (hidden, F)), "b1": np.zeros(hidden),
        "w2": rng.normal(0, np.sqrt(1.0 / hidden), hidden), "b2": np.array(ym),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    t = 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for s in range(0, n, batch):
            idx = order[s : s + batch]
            z, target = Z[idx], y[idx]
            pre = z @ params["W1"].T + params["b1"]
            h = np.maximum(pre, 0.0)
            out = h @ params["w2"] + params["b2"]
            g = 2.0 * (out - target) / len(idx)
            grads = {"w2": h.T @ g, "b2": np.array(g.sum())}
            gh = np.outer(g, params["w2"]) * (pre > 0)
            grads["W1"] = gh.T @ z
            grads["b1"] = gh.sum(axis=0)
            t += 1
            for k in params:
                gk = grads[k] + (weight_decay * params[k] if k in ("W1", "w2") else 0.0)
                m[k] = 0.9 * m[k] + 0.1 * gk
                v2[k] = 0.999 * v2[k] + 0.001 * gk * gk
                mh = m[k] / (1 - 0.9**t)
                vh = v2[k] / (1 - 0.999**t)
                params[k] = params[k] - lr * mh / (np.sqrt(vh) + 1e-8)
    return {"mean": mean, "scale": scale, "W1": params["W1"], "b1": params["b1"], "w2": params["w2"],
            "b2": float(params["b2"])}


def predict(model: dict[str, Any], X: np.ndarray) -> np.ndarray:
    Z = (X - model["mean"]) / model["scale"]
    if model["W1"].shape[0] == 0:
        return Z @ model["w2"] + model["b2"]
    return np.maximum(Z @ model["W1"].T + model["b1"], 0.0) @ model["w2"] + model["b2"]


@dataclass
class FitReport:
    """What the fit measured (cross-validated, per labelled decision)."""

    decisions: int
    deals: int
    mean_D: float
    oracle_gain: float  # mean max(D, 0): a gate that knew the deal
    scorers: dict[str, dict[str, Any]]  # per scorer: best threshold, its gain, switch ("hold") rate, r
    chosen: str

    def to_dict(self) -> dict[str, Any]:
        return {"decisions": self.decisions, "deals": self.deals, "mean_D": self.mean_D,
                "oracle_gain": self.oracle_gain, "scorers": self.scorers, "chosen": self.chosen}


FITTERS: dict[str, Callable[..., dict[str, Any]]] = {"ridge": fit_ridge, "mlp": fit_mlp}


def _fit(scorer: str, X: np.ndarray, y: np.ndarray, options: dict[str, Any]) -> dict[str, Any]:
    if scorer == "ridge":
        return fit_ridge(X, y, lam=float(options.get("ridge_lambda", 1.0)))
    return fit_mlp(X, y, hidden=int(options.get("hidden", 32)), epochs=int(options.get("epochs", 30)),
                   seed=int(options.get("seed", 0)))


def best_per_group(pred: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Indices of the row of the highest ``pred`` in each group (rows of one group adjacent or not)."""
    order = np.lexsort((-pred, group))
    first = np.ones(len(order), bool)
    first[1:] = group[order][1:] != group[order][:-1]
    return order[first]


def cv_gain(D: np.ndarray, pred: np.ndarray, deal: np.ndarray, folds: int,
            group: np.ndarray | None = None) -> tuple[float, float, float, float]:
    """(best threshold, gain per decision, its standard error over deals, hold rate) of out-of-fold
    ``pred``. With ``group`` (a decision's rows, one per alternative), each decision switches to its
    row of the highest prediction where that exceeds the threshold."""
    if group is not None:
        best = best_per_group(pred, group)
        D, pred = D[best], pred[best]
    gains = np.array([(D * (pred > t)).mean() for t in THRESHOLDS])
    k = int(np.argmax(gains))
    t = float(THRESHOLDS[k])
    per = D * (pred > t)
    return t, float(gains[k]), float(per.std() / np.sqrt(len(per))), float((pred > t).mean())


def _fit_scorer(X: np.ndarray, D: np.ndarray, deal: np.ndarray, scorers: tuple[str, ...], folds: int,
                options: dict[str, Any], say: Callable[[str], None], what: str,
                group: np.ndarray | None = None) -> tuple[dict[str, Any], FitReport]:
    """The scorer with the best cross-validated gain, refitted on all of ``X``, and the report."""
    if len(D) < 10 * folds:
        raise ValueError(f"only {len(D)} labelled decisions: too few to fit a gate with {folds} folds")
    fold = (deal * 2654435761 % 2**32) % folds
    results: dict[str, dict[str, Any]] = {}
    for scorer in scorers:
        if scorer not in FITTERS:
            raise ValueError(f"unknown gate scorer {scorer!r}; choose from {sorted(FITTERS)}")
        pred = np.zeros(len(D))
        for f in range(folds):
            tr, te = fold != f, fold == f
            pred[te] = predict(_fit(scorer, X[tr], D[tr], options), X[te])
            say(f"{what} {scorer}: fold {f + 1}/{folds}")
        t, gain, se, rate = cv_gain(D, pred, deal, folds, group)
        r = float(np.corrcoef(pred, D)[0, 1])
        results[scorer] = {"threshold": t, "cv_gain": gain, "cv_gain_se": se, "hold_rate": rate, "r": r}
        say(f"{what} {scorer}: cv gain {gain:+.3f} +- {1.96 * se:.3f} per decision at threshold {t:+.1f}, "
            f"switches {100 * rate:.1f}%, r = {r:.3f}")
    chosen = max(results, key=lambda k: results[k]["cv_gain"])
    model = _fit(chosen, X, D, options)
    if group is None:
        n, oracle = len(D), float(np.maximum(D, 0).mean())
    else:  # per decision: the best of its alternatives, or none
        best = best_per_group(D, group)
        n, oracle = len(best), float(np.maximum(D[best], 0).mean())
    report = FitReport(decisions=n, deals=len(np.unique(deal)), mean_D=float(D.mean()),
                       oracle_gain=oracle, scorers=results, chosen=chosen)
    return {**model, "threshold": results[chosen]["threshold"]}, report


def _finite(labels: dict[str, np.ndarray]) -> np.ndarray:
    return np.isfinite(labels["D"]) & np.isfinite(labels["feats"]).all(axis=1)


def allowed_rows(X: np.ndarray, name: str, gate_options: dict[str, Any]) -> np.ndarray:
    """The rows of features ``X`` (of the decision ``name``) a gate with ``gate_options`` may act on: each
    option's rule (:class:`~gin3_env.kernels.decisions.GateOption`), as the player applies it."""
    row = decision(name)
    keep = np.ones(len(X), bool)
    for o in row.options:
        value = gate_options[o.name]
        column = X[:, row.features.index(o.feature)]
        if o.rule == AT_LEAST:
            keep &= column >= value
        elif o.rule == ZERO_WHEN_SET and value:
            keep &= column == 0
    return keep


def fit_gate(labels: dict[str, np.ndarray], decision_name: str = "knock",
             scorers: tuple[str, ...] = ("ridge", "mlp"),
             folds: int = 5, options: dict[str, Any] | None = None, progress: Callable[[str], None] | None = None,
             gate_options: dict[str, Any] | None = None) -> tuple[Gate, FitReport]:
    """The gate of the decision ``decision_name`` of the scorer (of ``scorers``) with the best cross-validated gain,
    refitted on all its labels (the rows its ``gate_options`` let it act on; where a decision has several
    alternatives, ``labels["decision"]`` groups them and the report's ``decisions`` and ``oracle_gain`` are per
    decision, ``mean_D`` per row). ``options``: the fit's (``ridge_lambda``, ``hidden``, ``epochs``, ``seed``)."""
    row = decision(decision_name)
    options = dict(options or {})
    chosen = checked_options(decision_name, dict(gate_options or {}))
    X, D, deal = labels["feats"], labels["D"], labels["deal"]
    keep = _finite(labels) & allowed_rows(X, decision_name, chosen)
    group = labels["decision"][keep] if row.max_alternatives > 1 and "decision" in labels else None
    model, report = _fit_scorer(X[keep], D[keep], deal[keep], scorers, folds, options, progress or (lambda s: None),
                                f"{decision_name} gate", group=group)
    gate = Gate(decision_name, **model, options=chosen, provenance={"fit": report.to_dict(), "options": options})
    return gate, report
