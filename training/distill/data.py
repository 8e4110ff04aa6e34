"""Decisions for distillation, made on the batched core: states visited by a mix of players, each
labelled with the teacher's action there (by default the gated player, ``gated``).

A shard is ``n`` decisions of :func:`play_shard`: seeded hands where each seat is played by the
teacher, the heuristic or the network being trained (DAgger: the network's own states, the teacher's
labels), every decision of either seat kept with the network's inputs and the teacher's action. It is
an ``.npz`` of ``obs`` (float16, the observation), ``state`` (float16, the state features),
``acts`` (float16, each legal action's features, rows after rows), ``count`` (legal actions per
decision), ``legal`` (the actions), ``label`` (the teacher's action) and ``actor`` (who played it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gin3_env.engine.rules import Rules
from gin3_env.files import parse_npz
from gin3_env.kernels.hands import VectorHands
from gin3_env.kernels.net_features import net_inputs
from gin3_env.observation.layout import OBS_SIZE
from gin3_env.policies.net import ActionNet, choose
from gin3_training.run.run import Run

TEACHER, HEURISTIC, NET = 0, 1, 2
ACTOR_NAMES = ("teacher", "heuristic", "net")
SHARD_KEYS = ("obs", "state", "acts", "count", "legal", "label", "actor")
# the seatings of a shard's hands, (team, box), spread evenly over its envs
TEACHER_SEATINGS = ((TEACHER, TEACHER), (TEACHER, HEURISTIC), (HEURISTIC, TEACHER))
DAGGER_SEATINGS = ((NET, NET), (NET, TEACHER), (TEACHER, NET), (NET, HEURISTIC), (HEURISTIC, NET))


def play_shard(n: int, seed: int, teacher: Any, heuristic: Any, net: ActionNet | None, rules: Rules | None = None,
               num_envs: int = 256) -> dict[str, np.ndarray]:
    """``n`` decisions (at least; whole steps) of hands dealt from ``seed``: with ``net`` None the
    teacher's seatings (:data:`TEACHER_SEATINGS`), else the network's (:data:`DAGGER_SEATINGS`).
    ``teacher`` and ``heuristic`` are batched players (``act(obs, masks)``) built for the game's ``rules``
    (None: the rule book's), which the hands are dealt and the network's inputs made under."""
    seatings = np.array(TEACHER_SEATINGS if net is None else DAGGER_SEATINGS, dtype=np.int64)
    rules = rules if rules is not None else Rules()
    hands = VectorHands(num_envs, seed=seed, rules=rules)
    seat = seatings[np.arange(num_envs) % len(seatings)]
    parts: dict[str, list[np.ndarray]] = {k: [] for k in SHARD_KEYS}
    total = 0
    while total < n:
        obs = np.ascontiguousarray(hands.observe()[:, :OBS_SIZE])
        masks = np.ascontiguousarray(hands.action_mask, dtype=np.int8)
        who = seat[np.arange(num_envs), hands.current_player]
        label = teacher.act(obs, masks)
        state, acts, start, legal = net_inputs(obs, masks, rules.knock_limit)
        actions = label.copy()
        h = who == HEURISTIC
        if h.any():
            actions[h] = heuristic.act(obs[h], masks[h])
        if net is not None and (who == NET).any():
            rows = np.repeat(np.arange(num_envs), np.diff(start))
            full = np.concatenate([obs, state], axis=1)
            mine = choose(net.scores(full, acts, rows), start, legal)
            actions[who == NET] = mine[who == NET]
        hands.step(actions)
        for key, value in (("obs", obs.astype(np.float16)), ("state", state.astype(np.float16)),
                           ("acts", acts.astype(np.float16)), ("count", np.diff(start).astype(np.int16)),
                           ("legal", legal.astype(np.int8)), ("label", label.astype(np.int8)),
                           ("actor", who.astype(np.int8))):
            parts[key].append(value)
        total += num_envs
    return {k: np.concatenate(v) for k, v in parts.items()}


MAX_SHARD_BYTES = 4 << 30  # a shard of the full config is about 60 MB


def save_shard(run: Run, rel: str, shard: dict[str, np.ndarray]) -> None:
    """``shard`` as ``rel`` in the held run folder (whole or not at all, no link followed)."""
    run.write_npz(rel, shard)


def load_shard(run: Run, rel: str) -> dict[str, np.ndarray]:
    """A shard this run wrote, read through the run's checked reader (a regular file, no link, no FIFO) with
    ``allow_pickle=False``; ValueError where it is not one."""
    path = run.path / rel
    raw = run.read(rel, "shard of decisions", MAX_SHARD_BYTES)
    data = parse_npz(raw, f"shard of decisions {path}", MAX_SHARD_BYTES)  # headers checked before allocation
    if sorted(data) != sorted(SHARD_KEYS):
        raise ValueError(f"{path} is not a shard of decisions (members {sorted(data)})")
    shard = {k: data[k] for k in SHARD_KEYS}
    if int(shard["count"].sum()) != len(shard["acts"]) or len(shard["obs"]) != len(shard["count"]):
        raise ValueError(f"{path} is not a whole shard of decisions (its counts do not add up)")
    return shard


class Decisions:
    """Shards joined: the rows of every decision, and each decision's slice of legal actions."""

    def __init__(self, shards: list[dict[str, np.ndarray]]) -> None:
        self.obs = np.concatenate([s["obs"] for s in shards])
        self.state = np.concatenate([s["state"] for s in shards])
        self.acts = np.concatenate([s["acts"] for s in shards])
        self.count = np.concatenate([s["count"] for s in shards]).astype(np.int64)
        self.legal = np.concatenate([s["legal"] for s in shards]).astype(np.int64)
        self.label = np.concatenate([s["label"] for s in shards]).astype(np.int64)
        self.actor = np.concatenate([s["actor"] for s in shards]).astype(np.int64)
        self.start = np.zeros(len(self.count) + 1, np.int64)
        np.cumsum(self.count, out=self.start[1:])

    def __len__(self) -> int:
        return len(self.count)

    def batch(self, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(state, acts, pair_row, legal, label)`` of the decisions ``rows`` (float32 inputs; the
        state is the observation joined to the state features; ``pair_row`` numbers them 0..)."""
        c = self.count[rows]
        first = np.repeat(self.start[rows] - np.cumsum(c) + c, c)
        idx = first + np.arange(int(c.sum()))
        state = np.concatenate([self.obs[rows], self.state[rows]], axis=1).astype(np.float32)
        return (state, self.acts[idx].astype(np.float32), np.repeat(np.arange(len(rows)), c), self.legal[idx],
                self.label[rows])

    def kinds(self) -> np.ndarray:
        """Each decision's kind: 0 a take-or-not choice, 1 a discard with no knock legal, 2 one with a knock legal."""
        from gin3_env.engine.actions import KNOCK_BASE

        last = self.legal[self.start[1:] - 1]
        first = self.legal[self.start[:-1]]
        return np.where(first < 3, 0, np.where(last >= KNOCK_BASE, 2, 1))
