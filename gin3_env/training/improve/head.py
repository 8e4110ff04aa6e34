"""The advantage head: each legal action's value minus its decision's mean, fitted from the observation alone.

The head is a network of the form of :class:`~gin3_env.policies.net.ActionNet` (the state and each
action's :mod:`~gin3_env.kernels.net_features` inputs, two ReLU layers, one output), fitted by least
squares (torch, Adam) to ``values[a] - mean(values)`` over each decision's legal actions. The improved
player (:func:`gin3_env.policies.net.improve`) plays the head's best action where its predicted advantage
over the network's own choice clears a margin. The margin is chosen by cross-validation by deal
(:func:`cross_validate`), before any play test: on each fold's held-out decisions, the gain of switching
is measured with the labels themselves (``values[head's best] - values[net's choice]``), pooled over
folds, for each margin of :data:`MARGINS`; the chosen margin is the one of the largest mean gain per
decision (no switching at all, an infinite margin, where none gains).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...kernels.net_features import net_inputs
from ...observation.layout import OBS_SIZE
from ...policies.net import STATE_SIZE, ActionNet, choose
from ..distill.fit import TorchNet, _standardise

MARGINS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


class Labelled:
    """Labelled decisions with the network's inputs: ``state`` (rows), ``acts``/``legal``/``rows`` (one
    per legal action), ``target`` (value minus the decision's mean), ``values``, ``deal``, ``start``."""

    def __init__(self, shards: dict[str, np.ndarray], knock_limit: int = 10) -> None:
        obs = np.ascontiguousarray(shards["obs"].astype(np.float32)[:, :OBS_SIZE])
        mask = np.ascontiguousarray(shards["mask"], dtype=np.int8)
        state, self.acts, self.start, self.legal = net_inputs(obs, mask, knock_limit)
        self.state = np.concatenate([obs, state], axis=1)
        self.rows = np.repeat(np.arange(len(obs)), np.diff(self.start))
        self.values = shards["values"].astype(np.float64)
        v = self.values[self.rows, self.legal]
        if not np.isfinite(v).all():
            raise ValueError("a legal action of the labels has no value")
        mean = np.bincount(self.rows, v, minlength=len(obs)) / np.diff(self.start)
        self.target = (v - mean[self.rows]).astype(np.float32)
        self.deal = shards["deal"]
        self.played = shards["played"].astype(np.int64)

    def __len__(self) -> int:
        return len(self.start) - 1

    def subset(self, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(state, acts, rows, target)`` of the decisions ``keep`` (rows renumbered 0..)."""
        sel = np.isin(self.rows, keep)
        renum = np.full(len(self), -1, np.int64)
        renum[keep] = np.arange(len(keep))
        return self.state[keep], self.acts[sel], renum[self.rows[sel]], self.target[sel]


def new_head(state: np.ndarray, acts: np.ndarray, hidden: tuple[int, int], seed: int) -> ActionNet:
    rng = np.random.default_rng(seed)
    s_mean, s_scale = _standardise(state)
    a_mean, a_scale = _standardise(acts)
    h1, h2 = hidden
    fa = acts.shape[1]
    return ActionNet(s_mean, s_scale, a_mean, a_scale,
                     rng.normal(0, np.sqrt(2 / (STATE_SIZE + fa)), (h1, STATE_SIZE)),
                     rng.normal(0, np.sqrt(2 / (STATE_SIZE + fa)), (h1, fa)), np.zeros(h1),
                     rng.normal(0, np.sqrt(2 / h1), (h2, h1)), np.zeros(h2), rng.normal(0, 0.1 / np.sqrt(h2), h2),
                     np.float32(0.0))


def fit_head(data: Labelled, keep: np.ndarray, hidden: tuple[int, int] = (64, 32), epochs: float = 30.0,
             lr: float = 1e-3, batch: int = 256, weight_decay: float = 1e-4, seed: int = 0) -> ActionNet:
    """The head fitted to the decisions ``keep`` of ``data`` (least squares on the advantage)."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    state, acts, rows, target = data.subset(keep)
    model = TorchNet(new_head(state, acts, hidden, seed))
    opt = torch.optim.AdamW(list(model.params.values()), lr=lr, weight_decay=weight_decay)
    n = len(state)
    start = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=start[1:])
    steps = max(1, int(epochs * n / batch))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: 1.0 - 0.9 * min(1.0, i / steps))
    for _ in range(steps):
        pick = rng.integers(0, n, batch)
        c = np.diff(start)[pick]
        idx = np.repeat(start[pick] - np.cumsum(c) + c, c) + np.arange(int(c.sum()))
        prow = np.repeat(np.arange(batch), c)
        pred = model.scores(torch.from_numpy(state[pick]), torch.from_numpy(acts[idx]), torch.from_numpy(prow))
        loss = torch.mean((pred - torch.from_numpy(target[idx])) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    return model.to_net({})


def switch_gains(net: ActionNet, head: ActionNet, data: Labelled, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For decisions ``rows``: (the head's predicted gain of its best action over ``net``'s choice,
    the labels' gain of that switch)."""
    state, acts, prow, _ = data.subset(rows)
    sel = np.isin(data.rows, rows)
    legal = data.legal[sel]
    start = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(np.bincount(prow, minlength=len(rows)), out=start[1:])
    mine = choose(net.scores(state, acts, prow), start, legal)
    adv = head.scores(state, acts, prow)
    dense = np.full((len(rows), data.values.shape[1]), -np.inf)
    dense[prow, legal] = adv
    best = dense.argmax(axis=1)
    k = np.arange(len(rows))
    pred = dense[k, best] - dense[k, mine]
    real = data.values[rows, best] - data.values[rows, mine]
    return pred, real


def cross_validate(net: ActionNet, data: Labelled, folds: int = 5, seed: int = 0,
                   **fit_args: Any) -> dict[str, Any]:
    """Folds by deal: each fold's head fitted on the others, its switches valued on the fold's labels;
    the margin of the largest pooled gain per decision (see the module doc)."""
    deals = np.unique(data.deal)
    fold_of = dict(zip(deals.tolist(), np.random.default_rng(seed).permutation(len(deals)) % folds, strict=True))
    fold = np.array([fold_of[d] for d in data.deal.tolist()])
    pred = np.zeros(len(data))
    real = np.zeros(len(data))
    for f in range(folds):
        test = np.flatnonzero(fold == f)
        head = fit_head(data, np.flatnonzero(fold != f), seed=seed + f, **fit_args)
        pred[test], real[test] = switch_gains(net, head, data, test)
    table = []
    for m in MARGINS:
        on = pred > m
        gain = np.where(on, real, 0.0)
        table.append({"margin": m, "switch_share": float(on.mean()), "gain_per_decision": float(gain.mean()),
                      "gain_se": float(gain.std(ddof=1) / np.sqrt(len(gain)))})
    best = max(table, key=lambda r: r["gain_per_decision"])
    margin = best["margin"] if best["gain_per_decision"] > 0 else float("inf")
    mine = data.values[np.arange(len(data)), data.played]
    ceiling = np.nanmax(data.values, axis=1) - mine
    return {"decisions": len(data), "deals": len(deals), "folds": folds, "table": table, "margin": margin,
            "chosen": best, "oracle_gain_per_decision": float(ceiling.mean())}
