"""Fitting the action-scoring network (:class:`~gin3_env.policies.net.ActionNet`) to the teacher's
actions by cross-entropy over each decision's legal actions (torch; the result is plain arrays)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gin3_env.engine.actions import NUM_ACTIONS
from gin3_env.policies.net import STATE_SIZE, ActionNet
from gin3_training.distill.data import Decisions

KIND_NAMES = ("draws", "plain discards", "discards with a knock legal")


def _standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sample = x[:: max(1, len(x) // 200_000)].astype(np.float64)
    mean = sample.mean(axis=0)
    scale = sample.std(axis=0)
    scale[scale < 1e-3] = 1.0
    return mean.astype(np.float32), scale.astype(np.float32)


class TorchNet:
    """The network of :class:`ActionNet` in torch, for fitting."""

    def __init__(self, net: ActionNet) -> None:
        import torch

        self.torch = torch
        self.consts = {k: torch.tensor(getattr(net, k)) for k in ("state_mean", "state_scale", "action_mean",
                                                                   "action_scale")}
        self.params = {k: torch.tensor(getattr(net, k), requires_grad=True) for k in ("Ws", "Wa", "b1", "W2", "b2",
                                                                                   "w3", "b3")}
        self.provenance = dict(net.provenance)

    def scores(self, state: Any, acts: Any, rows: Any) -> Any:
        c, p = self.consts, self.params
        zs = (state - c["state_mean"]) / c["state_scale"]
        za = (acts - c["action_mean"]) / c["action_scale"]
        h1 = self.torch.relu((zs @ p["Ws"].T)[rows] + za @ p["Wa"].T + p["b1"])
        h2 = self.torch.relu(h1 @ p["W2"].T + p["b2"])
        return h2 @ p["w3"] + p["b3"]

    def logits(self, state: Any, acts: Any, rows: Any, legal: Any, n: int) -> Any:
        dense = self.torch.full((n, NUM_ACTIONS), -1e9)
        return dense.index_put((rows, legal), self.scores(state, acts, rows))

    def to_net(self, provenance: dict[str, Any] | None = None) -> ActionNet:
        arrays = {k: v.detach().numpy().copy() for k, v in {**self.consts, **self.params}.items()}
        return ActionNet(**arrays, provenance=dict(provenance if provenance is not None else self.provenance))


def new_net(data: Decisions, hidden: tuple[int, int], seed: int) -> ActionNet:
    """A network of the given hidden sizes, initialised (He) and standardised on ``data``."""
    rng = np.random.default_rng(seed)
    h1, h2 = hidden
    state = np.concatenate([data.obs[:: max(1, len(data) // 100_000)], data.state[:: max(1, len(data) // 100_000)]],
                           axis=1)
    s_mean, s_scale = _standardise(state)
    a_mean, a_scale = _standardise(data.acts)
    fa = a_mean.shape[0]
    return ActionNet(
        s_mean, s_scale, a_mean, a_scale,
        rng.normal(0, np.sqrt(2 / (STATE_SIZE + fa)), (h1, STATE_SIZE)),
        rng.normal(0, np.sqrt(2 / (STATE_SIZE + fa)), (h1, fa)), np.zeros(h1),
        rng.normal(0, np.sqrt(2 / h1), (h2, h1)), np.zeros(h2), rng.normal(0, np.sqrt(1 / h2), h2), np.float32(0.0),
    )


def fit(net: ActionNet, data: Decisions, epochs: float, lr: float, batch_size: int, seed: int,
        progress: Callable[[float, float], None] | None = None, threads: int = 1) -> tuple[ActionNet, dict[str, Any]]:
    """``net`` fitted to ``data`` for ``epochs`` passes (Adam, the rate decaying to a tenth); returns the
    fitted network and its agreement with the teacher on a held-out twentieth of ``data`` per kind of
    decision. ``progress(done, loss)`` is called about every second."""
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data))
    held = order[: max(1, len(data) // 20)]
    train = order[len(held):]
    model = TorchNet(net)
    opt = torch.optim.Adam(list(model.params.values()), lr=lr)
    steps = max(1, int(epochs * len(train) / batch_size))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: 1.0 - 0.9 * min(1.0, i / steps))
    loss_avg = float("nan")
    last = time.monotonic()
    for step in range(steps):
        rows = train[rng.integers(0, len(train), batch_size)]
        state, acts, prow, legal, label = data.batch(rows)
        logits = model.logits(torch.from_numpy(state), torch.from_numpy(acts), torch.from_numpy(prow),
                              torch.from_numpy(legal), len(rows))
        loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(label))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        value = float(loss.detach())
        loss_avg = value if loss_avg != loss_avg else 0.98 * loss_avg + 0.02 * value
        if progress is not None and time.monotonic() - last > 1.0:
            last = time.monotonic()
            progress((step + 1) / steps, loss_avg)
    fitted = model.to_net()
    return fitted, {"loss": loss_avg, **agreement(fitted, data, held)}


def agreement(net: ActionNet, data: Decisions, rows: np.ndarray) -> dict[str, float]:
    """The share of ``rows`` where ``net`` plays the teacher's action, over all and per kind of decision."""
    from gin3_env.policies.net import choose

    hits = np.zeros(len(rows), dtype=bool)
    for i in range(0, len(rows), 4096):
        r = rows[i:i + 4096]
        state, acts, prow, legal, label = data.batch(r)
        start = np.zeros(len(r) + 1, np.int64)
        np.cumsum(data.count[r], out=start[1:])
        hits[i:i + len(r)] = choose(net.scores(state, acts, prow), start, legal) == label
    kinds = data.kinds()[rows]
    out = {"agreement": float(hits.mean())}
    for k, name in enumerate(KIND_NAMES):
        if (kinds == k).any():
            out[f"agreement {name}"] = float(hits[kinds == k].mean())
    return out
