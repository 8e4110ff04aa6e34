"""The advantage head: each legal action's value minus its decision's mean, fitted from the observation alone.

The head is a network of the form of :class:`~gin3_env.policies.net.ActionNet` (the state and each
action's :mod:`~gin3_env.kernels.net_features` inputs, two ReLU layers, one output), fitted by least
squares (torch, AdamW) to ``values[a] - mean(values)`` over each decision's candidate actions: the ``top``
best by the network's own scores (every legal action with ``top`` 0). The improved player
(:func:`gin3_env.policies.net.improve`) plays the head's best candidate where its predicted advantage over
the network's own choice clears a margin. The candidates and the margin are chosen by cross-validation by
deal (:func:`cross_validate`), before any play test: on each fold's held-out decisions, the gain of
switching is measured with the labels themselves (``values[head's best] - values[net's choice]``), pooled
over folds, for each ``top`` of :data:`TOPS` and margin of :data:`MARGINS`; the chosen pair is the one of
the largest mean gain per decision (no switching at all, an infinite margin, where none gains).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np

from gin3_env.engine.rules import Rules
from gin3_env.kernels.net_features import net_inputs
from gin3_env.observation.layout import OBS_SIZE
from gin3_env.policies.net import STATE_SIZE, ActionNet, ranks
from gin3_training.distill.fit import TorchNet, _standardise

MARGINS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
LAMS = (100.0, 1000.0, 10000.0)  # ridges on net's last hidden layer (0 would fit a network of its own)
DECISION_CHUNK = 32768  # decisions per forward pass over every label (about 360,000 actions: under 1 GB at a time)
TOPS = (2, 3, 4, 0)  # the head's candidates: net's best two, three, four actions by its scores, or every one
# The heads a run can fit: the settings cross-validated (tops, lams) and how each is fitted (fit_head's arguments).
# "ridge": a ridge on net's last hidden layer; "tuned": net's own layers tuned from a zero output, a few passes at a
# low rate (the one of the two whose held-out switches the true deal confirmed, on two rounds' labels).
HEADS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "ridge": ({"tops": TOPS, "lams": LAMS}, {}),
    "tuned": ({"tops": (2, 3), "lams": (0.0,)}, {"tune": True, "epochs": 8.0, "lr": 3e-4}),
}


class Labelled:
    """Labelled decisions with the network's inputs: ``state`` (rows), ``acts``/``legal``/``rows``/``rank``
    (one per legal action; ``rank`` 0 is ``net``'s choice, 1 its second best by its scores, ...),
    ``values``, ``deal``, ``start``."""

    def __init__(self, shards: dict[str, np.ndarray], net: ActionNet, rules: Rules | None = None) -> None:
        obs = np.ascontiguousarray(shards["obs"].astype(np.float32)[:, :OBS_SIZE])
        mask = np.ascontiguousarray(shards["mask"], dtype=np.int8)
        state, self.acts, self.start, self.legal = net_inputs(obs, mask, (rules or Rules()).knock_limit)
        self.state = np.concatenate([obs, state], axis=1)
        self.rows = np.repeat(np.arange(len(obs)), np.diff(self.start))
        self.values = shards["values"].astype(np.float64)
        v = self.values[self.rows, self.legal]
        self.valued = np.isfinite(v)  # every legal action, or the labels' candidates only
        self.v = v
        self.rank = ranks(by_decisions(net.scores, self.state, self.acts, self.start), self.start)
        if not self.valued[self.rank == 0].all():
            raise ValueError("the network's own choice has no value in some labelled decision")
        self.net = net
        self.deal = shards["deal"]
        self.played = shards["played"].astype(np.int64)

    def __len__(self) -> int:
        return len(self.start) - 1

    @cached_property
    def h2(self) -> np.ndarray:
        """The network's last hidden layer for each legal action (the ridge head's inputs; made when first asked:
        128 float64 per action, several GB for a few hundred thousand decisions)."""
        return by_decisions(lambda s, a, r: last_hidden(self.net, s, a, r), self.state, self.acts, self.start)

    def subset(self, keep: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(state, acts, rows, target, legal)`` of the decisions ``keep`` (rows renumbered 0..), their
        actions of ``rank < top`` (every action with ``top`` 0), the target each value minus the mean of
        those."""
        sel = self.candidates(keep, top)
        renum = np.full(len(self), -1, np.int64)
        renum[keep] = np.arange(len(keep))
        rows = renum[self.rows[sel]]
        v = self.v[sel]
        mean = np.bincount(rows, v, minlength=len(keep)) / np.maximum(1, np.bincount(rows, minlength=len(keep)))
        return self.state[keep], self.acts[sel], rows, (v - mean[rows]).astype(np.float32), self.legal[sel]


    def candidates(self, keep: np.ndarray, top: int) -> np.ndarray:
        """Whether each legal action is a candidate of a decision of ``keep``."""
        return np.isin(self.rows, keep) & ((self.rank < top) if top else True) & self.valued

    def covers(self, top: int) -> bool:
        """Whether every candidate of ``top`` (every legal action with 0) has a value."""
        return bool(self.valued[(self.rank < top) if top else slice(None)].all())


def by_decisions(fn: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray], state: np.ndarray,
                 acts: np.ndarray, start: np.ndarray, chunk: int = DECISION_CHUNK) -> np.ndarray:
    """``fn(state, acts, rows)`` (one output row per action, ``rows`` each action's decision) over ``chunk``
    decisions at a time, concatenated: the same result, with the forward pass's memory bounded by the chunk."""
    n = len(start) - 1
    rows = np.repeat(np.arange(n), np.diff(start))
    parts = [fn(state[d:e], acts[start[d]:start[e]], rows[start[d]:start[e]] - d)
             for d, e in ((d, min(d + chunk, n)) for d in range(0, n, chunk))]
    return np.concatenate(parts) if parts else fn(state[:0], acts[:0], rows[:0])


def last_hidden(net: ActionNet, state: np.ndarray, acts: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The network's last hidden layer for each action (what its score is a linear function of)."""
    zs = (state - net.state_mean) / net.state_scale
    za = (acts - net.action_mean) / net.action_scale
    h1 = np.maximum((zs @ net.Ws.T)[rows] + za @ net.Wa.T + net.b1, 0.0)
    return np.asarray(np.maximum(h1 @ net.W2.T + net.b2, 0.0), dtype=np.float64)


def ridge_head(data: Labelled, keep: np.ndarray, top: int, lam: float) -> ActionNet:
    """The head that reuses the network's layers and replaces its last weights by a ridge fit of the
    advantage on the last hidden layer, each decision's candidates centred on their mean."""
    sel = data.candidates(keep, top)
    _, _, rows, target, _ = data.subset(keep, top)
    X = data.h2[sel]  # rows run 0, 0, 1, ... (every decision has a candidate: the network's choice)
    first = np.r_[0, np.flatnonzero(np.diff(rows)) + 1]
    X = X - (np.add.reduceat(X, first, axis=0) / np.diff(np.r_[first, len(rows)])[:, None])[rows]
    w = np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ target.astype(np.float64))
    net = data.net
    return ActionNet(net.state_mean, net.state_scale, net.action_mean, net.action_scale, net.Ws, net.Wa, net.b1,
                     net.W2, net.b2, w, np.float32(0.0))


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


def tuned_head(net: ActionNet) -> ActionNet:
    """A head that starts as ``net``'s own layers with a zero output: fitting it tunes every layer of ``net``."""
    return ActionNet(net.state_mean, net.state_scale, net.action_mean, net.action_scale, net.Ws, net.Wa, net.b1,
                     net.W2, net.b2, np.zeros_like(net.w3), np.float32(0.0))


def fit_head(data: Labelled, keep: np.ndarray, top: int = 0, lam: float = 0.0, hidden: tuple[int, int] = (64, 32),
             epochs: float = 30.0, lr: float = 1e-3, batch: int = 256, weight_decay: float = 1e-4,
             seed: int = 0, tune: bool = False) -> ActionNet:
    """The head fitted to the decisions ``keep`` of ``data`` (least squares on the advantage): with ``lam``
    > 0 the ridge head on the network's last hidden layer (:func:`ridge_head`), else a network: with ``tune``
    ``net``'s own layers tuned from a zero output (:func:`tuned_head`), without it one of its own."""
    if lam > 0:
        return ridge_head(data, keep, top, lam)
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    state, acts, rows, target, _ = data.subset(keep, top)
    model = TorchNet(tuned_head(data.net) if tune else new_head(state, acts, hidden, seed))
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


def switch_gains(head: ActionNet, data: Labelled, rows: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """For decisions ``rows``: (the head's predicted gain of its best action of ``rank < top`` over
    ``net``'s choice, the labels' gain of that switch)."""
    state, acts, prow, _, legal = data.subset(rows, top)
    adv = head.scores(state, acts, prow)
    dense = np.full((len(rows), data.values.shape[1]), -np.inf)
    dense[prow, legal] = adv
    best = dense.argmax(axis=1)
    k = np.arange(len(rows))
    mine = data.legal[data.rank == 0][rows]
    pred = dense[k, best] - dense[k, mine]
    real = data.values[rows, best] - data.values[rows, mine]
    return pred, real


def cross_validate(data: Labelled, folds: int = 5, seed: int = 0, tops: tuple[int, ...] = TOPS,
                   lams: tuple[float, ...] = LAMS, **fit_args: Any) -> dict[str, Any]:
    """Folds by deal: each fold's head fitted on the others, its switches valued on the fold's labels; the
    candidates (``top``) and the margin of the largest pooled gain per decision (see the module doc)."""
    deals = np.unique(data.deal)
    fold_of = dict(zip(deals.tolist(), np.random.default_rng(seed).permutation(len(deals)) % folds, strict=True))
    fold = np.array([fold_of[d] for d in data.deal.tolist()])
    table = []
    for top in [t for t in tops if data.covers(t)]:
        for lam in lams:
            pred = np.zeros(len(data))
            real = np.zeros(len(data))
            for f in range(folds):
                test = np.flatnonzero(fold == f)
                head = fit_head(data, np.flatnonzero(fold != f), top, lam, seed=seed + f, **fit_args)
                pred[test], real[test] = switch_gains(head, data, test, top)
            for m in MARGINS:
                on = pred > m
                gain = np.where(on, real, 0.0)
                se = float(gain.std(ddof=1) / np.sqrt(len(gain)))
                table.append({"top": top, "lam": lam, "margin": m, "switch_share": float(on.mean()),
                              "gain_per_decision": float(gain.mean()), "gain_se": se})
    best = max(table, key=lambda r: r["gain_per_decision"])
    margin = best["margin"] if best["gain_per_decision"] > 0 else float("inf")
    mine = data.values[np.arange(len(data)), data.legal[data.rank == 0]]
    return {"decisions": len(data), "deals": len(deals), "folds": folds, "table": table, "margin": margin,
            "top": best["top"], "lam": best["lam"], "chosen": best,
            "net_minus_mean_per_decision": float(np.mean(mine - np.nanmean(data.values, axis=1))),
            "oracle_gain_per_decision": float(np.mean(np.nanmax(data.values, axis=1) - mine))}
