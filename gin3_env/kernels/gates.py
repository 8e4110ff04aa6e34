"""The gated player compiled: the heuristic, switched by learnt gates at the decisions of the table.

A gated player is :func:`.heuristic_kernels.act_row` everywhere except at the decisions of the kinds it
has a gate for (:data:`.decisions.DECISIONS`): there each alternative (:func:`.decision_features.alternatives`)
is scored from its features by the gate's scorer and the alternative of the highest score is played
where that score exceeds the gate's threshold and the gate's options allow it (each option's rule reads
one feature: :class:`.decisions.GateOption`). The kinds are tried in the table's order and the first of
which ``a`` is a decision decides (the shipped kinds never overlap: knock, take-or-not, plain discard).

All gates travel as one *stacked* argument (:func:`stack_gates`), a tuple of arrays with one slot per
row of the table, so that every kernel takes the same type whichever gates a player has (one compile):

    (present, sizes, mean, scale, W1, b1, w2, scalars, opt_feature, opt_rule, opt_value)

``present[g]`` is 0 where the player has no gate of kind ``g`` (the heuristic plays there);
``sizes[g] = (F, H)`` (features, hidden units); ``mean[g, :F]``, ``scale[g, :F]``, ``W1[g, :H, :F]``,
``b1[g, :H]``, ``w2[g, :H or F]``; ``scalars[g] = (b2, threshold)``; the options of row ``g`` as the
feature each reads, its rule and its value. The scorer is a one-hidden-layer ReLU network on
standardised features; with no hidden units it is linear (a ridge fit)::

    z = (x - mean) / scale
    y = w2 . relu(W1 z + b1) + b2      (H > 0)
    y = w2 . z + b2                     (H = 0, w2 has one weight per feature)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numba import prange

from .decision_features import alternatives
from .decisions import AT_LEAST, DECISIONS, MAX_ALTERNATIVES, MAX_FEATURES, MAX_OPTIONS, NUM_DECISIONS, ZERO_WHEN_SET
from .heuristic_kernels import act_row
from .jit import njit

__all__ = ["NO_GATES", "gate_score", "gated_act_parallel", "gated_act_row", "gated_act_serial", "stack_gates"]

DEFAULT_KNOCK_LIMIT = 10  # the usual rules' knock limit: what a caller that names no rules plays by


def stack_gates(gates: Iterable[Any] = ()) -> tuple[np.ndarray, ...]:
    """The stacked argument of the gates ``gates`` (objects with ``decision`` (a row's name), ``mean``,
    ``scale``, ``W1``, ``b1``, ``w2``, ``b2``, ``threshold`` and ``options`` (a dict by option name);
    at most one per kind): see the module doc. No gates: the heuristic everywhere."""
    gates = list(gates)
    hidden = max([int(np.shape(g.W1)[0]) for g in gates] + [0])
    G, F, n_opt = NUM_DECISIONS, MAX_FEATURES, MAX_OPTIONS
    present = np.zeros(G, np.int64)
    sizes = np.zeros((G, 2), np.int64)
    mean = np.zeros((G, F))
    scale = np.ones((G, F))
    W1 = np.zeros((G, hidden, F))
    b1 = np.zeros((G, hidden))
    w2 = np.zeros((G, max(hidden, F)))
    scalars = np.zeros((G, 2))
    opt_feature = np.zeros((G, n_opt), np.int64)
    opt_rule = np.full((G, n_opt), -1, np.int64)
    opt_value = np.zeros((G, n_opt))
    names = [d.name for d in DECISIONS]
    for gate in gates:
        if gate.decision not in names:
            raise ValueError(f"a gate of an unknown decision {gate.decision!r}; the decisions are {names}")
        g = names.index(gate.decision)
        if present[g]:
            raise ValueError(f"two gates of the decision {gate.decision!r}")
        row = DECISIONS[g]
        f, h = len(row.features), int(np.shape(gate.W1)[0])
        present[g] = 1
        sizes[g] = f, h
        mean[g, :f] = gate.mean
        scale[g, :f] = gate.scale
        W1[g, :h, :f] = gate.W1
        b1[g, :h] = gate.b1
        w2[g, : h or f] = gate.w2
        scalars[g] = gate.b2, gate.threshold
        for i, option in enumerate(row.options):
            opt_feature[g, i] = row.features.index(option.feature)
            opt_rule[g, i] = option.rule
            opt_value[g, i] = float(gate.options.get(option.name, option.default))
    return present, sizes, mean, scale, W1, b1, w2, scalars, opt_feature, opt_rule, opt_value


NO_GATES = stack_gates()


@njit(cache=True)
def gate_score(x: np.ndarray, gates: tuple, g: int) -> float:
    """The score of the features ``x`` by the gate of slot ``g`` (see the module doc): the predicted gain
    of its alternative over the heuristic's choice, in points."""
    _, sizes, mean, scale, W1, b1, w2, scalars, _, _, _ = gates
    F = sizes[g, 0]
    H = sizes[g, 1]
    z = np.empty(F, np.float64)
    for j in range(F):
        z[j] = (x[j] - mean[g, j]) / scale[g, j]
    y = scalars[g, 0]
    if H == 0:
        for j in range(F):
            y += w2[g, j] * z[j]
        return y
    for h in range(H):
        s = b1[g, h]
        for j in range(F):
            s += W1[g, h, j] * z[j]
        if s > 0.0:
            y += w2[g, h] * s
    return y


@njit(cache=True)
def gate_allows(x: np.ndarray, gates: tuple, g: int) -> bool:
    """Whether the options of the gate of slot ``g`` let it act on the features ``x``."""
    opt_feature, opt_rule, opt_value = gates[8], gates[9], gates[10]
    for i in range(opt_rule.shape[1]):
        rule = opt_rule[g, i]
        v = x[opt_feature[g, i]]
        if rule == AT_LEAST and v < opt_value[g, i]:
            return False
        if rule == ZERO_WHEN_SET and opt_value[g, i] != 0.0 and v != 0.0:
            return False
    return True


@njit(cache=True)
def gated_choice(a: int, obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
                 limit: int) -> int:
    """The gated player's move on row ``k`` where the heuristic plays ``a`` (see the module doc)."""
    present = gates[0]
    x = np.zeros((MAX_ALTERNATIVES, MAX_FEATURES), np.float64)
    alts = np.zeros(MAX_ALTERNATIVES, np.int64)
    for g in range(present.shape[0]):
        if present[g] == 0:
            continue
        n = alternatives(g, obs, mask, k, a, fp, ip, limit, x, alts)
        if n == 0:
            continue
        best = a
        best_y = gates[7][g, 1]
        for i in range(n):
            if gate_allows(x[i], gates, g):
                y = gate_score(x[i], gates, g)
                if y > best_y:
                    best_y = y
                    best = alts[i]
        return best
    return a


@njit(cache=True)
def gated_act_row(obs: np.ndarray, mask: np.ndarray, k: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
                  limit: int) -> int:
    """The gated player on row ``k``: the heuristic (``fp``, ``ip``) switched by ``gates`` (stacked), a hand
    of at most ``limit`` deadwood (the game's knock limit) counted as knockable by the features."""
    return gated_choice(act_row(obs, mask, k, fp, ip), obs, mask, k, fp, ip, gates, limit)


@njit(cache=True)
def gated_act_serial(obs: np.ndarray, mask: np.ndarray, fp: np.ndarray, ip: np.ndarray, gates: tuple, limit: int,
                     out: np.ndarray) -> None:
    for k in range(obs.shape[0]):
        out[k] = gated_act_row(obs, mask, k, fp, ip, gates, limit)


@njit(cache=True, parallel=True)
def gated_act_parallel(obs: np.ndarray, mask: np.ndarray, fp: np.ndarray, ip: np.ndarray, gates: tuple, limit: int,
                       out: np.ndarray) -> None:
    for k in prange(obs.shape[0]):
        out[k] = gated_act_row(obs, mask, k, fp, ip, gates, limit)


@njit(cache=True)
def features_rows(kind: int, obs: np.ndarray, mask: np.ndarray, fp: np.ndarray, ip: np.ndarray, limit: int,
                  out: np.ndarray) -> None:
    """``out[k]`` = the features of row ``k``'s first alternative where the heuristic's move there is a
    decision of ``kind``, else NaN (``out`` as wide as the row's features)."""
    x = np.zeros((MAX_ALTERNATIVES, MAX_FEATURES), np.float64)
    alts = np.zeros(MAX_ALTERNATIVES, np.int64)
    for k in range(obs.shape[0]):
        a = act_row(obs, mask, k, fp, ip)
        n = alternatives(kind, obs, mask, k, a, fp, ip, limit, x, alts)
        for j in range(out.shape[1]):
            out[k, j] = x[0, j] if n > 0 else np.nan
