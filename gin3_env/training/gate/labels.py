"""A label run of the knock gate: shards of labelled decisions on disk, resumable.

Chunk ``c`` of a run plays the deals ``default_rng([seed, c]).permuted(...)`` (``chunk``
deals, one deck each) through :func:`gin3_env.kernels.knock_labels.label_deals` and writes
``labels_{c:05d}.npz`` atomically: ``feats`` (decisions, features), ``D`` (value of holding
minus value of knocking, the acting player's points), ``hold_v``, ``hold_se``, ``knock_v``,
``player``, ``deal`` (the deal's global number, ``c * chunk + i``), and the run's settings. A
run that stops resumes at the first chunk without a shard; a shard written with other
settings is refused (one error naming the file and the setting).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...engine.rules import Rules
from ...files import atomic_output
from ...kernels.gate_kernels import GATE_FEATURES, NUM_GATE_FEATURES
from ...kernels.hands import rules_vector
from ...kernels.heuristic_params import heuristic_config, heuristic_params
from ...kernels.knock_labels import label_deals
from ...policies.gated import KnockGate, no_gate_arrays

__all__ = ["LabelRun", "load_labels", "run_labels"]

MAX_DECISIONS = 8  # knock decisions labelled per deal at most


@dataclass(frozen=True)
class LabelRun:
    """Settings of a label run (stored in each shard; a resumed run must match them)."""

    seed: int = 0
    deals: int = 1000
    chunk: int = 500
    shuffles: int = 64
    gate: str = ""  # the model file of the gated state/continuation policy, "" for the heuristic

    def __post_init__(self) -> None:
        for name in ("seed", "deals", "chunk", "shuffles"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < (0 if name == "seed" else 1):
                raise ValueError(f"label run {name} must be an int >= {0 if name == 'seed' else 1}, got {v!r}")
        if self.shuffles < 2:
            raise ValueError(f"label run shuffles must be at least 2, got {self.shuffles}")

    @property
    def chunks(self) -> int:
        return -(-self.deals // self.chunk)

    def key(self) -> dict[str, Any]:
        return {"seed": self.seed, "chunk": self.chunk, "shuffles": self.shuffles, "gate": self.gate,
                "features": list(GATE_FEATURES)}


def _decks(seed: int, c: int, n: int) -> np.ndarray:
    rng = np.random.default_rng([seed, c])
    base = np.broadcast_to(np.arange(52, dtype=np.int8), (n, 52))
    return rng.permuted(base, axis=1)


def label_chunk(run: LabelRun, c: int, gate: KnockGate | None, rules: Rules | None = None) -> dict[str, np.ndarray]:
    """Label chunk ``c`` of ``run`` (the arrays of its shard)."""
    rules = rules or Rules()
    n = min(run.chunk, run.deals - c * run.chunk)
    decks = _decks(run.seed, c, n)
    seeds = np.random.default_rng([run.seed, c, 1]).integers(0, 2**31 - 1, size=n).astype(np.int64)
    fp, ip = heuristic_params(heuristic_config(gate.heuristic if gate is not None else None))
    arrays = gate.arrays() if gate is not None else no_gate_arrays()
    feats = np.full((n, MAX_DECISIONS, NUM_GATE_FEATURES), np.nan)
    hold_v = np.zeros((n, MAX_DECISIONS))
    hold_se = np.zeros((n, MAX_DECISIONS))
    knock_v = np.zeros((n, MAX_DECISIONS))
    player = np.zeros((n, MAX_DECISIONS), np.int64)
    ndec = np.zeros(n, np.int64)
    team = np.zeros(n, np.float64)
    label_deals(decks, seeds, run.shuffles, rules_vector(rules), fp, ip, *arrays, feats, hold_v, hold_se, knock_v,
                player, ndec, team)
    take = np.arange(MAX_DECISIONS)[None, :] < ndec[:, None]
    deal = np.broadcast_to((c * run.chunk + np.arange(n))[:, None], take.shape)
    return {
        "feats": feats[take], "hold_v": hold_v[take], "hold_se": hold_se[take], "knock_v": knock_v[take],
        "D": (hold_v - knock_v)[take], "player": player[take], "deal": deal[take], "team_points": team,
    }


def _shard(folder: Path, c: int) -> Path:
    return folder / f"labels_{c:05d}.npz"


def _check_shard(path: Path, run: LabelRun) -> None:
    try:
        with np.load(path, allow_pickle=False) as z:
            key = json.loads(str(z["run"]))
    except Exception as exc:
        raise ValueError(f"label shard {path} cannot be read: {exc}") from None
    for name, value in run.key().items():
        if key.get(name) != value:
            raise ValueError(f"label shard {path} was written with {name}={key.get(name)!r}, this run has {value!r}")


def run_labels(folder: str | os.PathLike[str], run: LabelRun, gate: KnockGate | None = None,
               progress: Callable[[str], None] | None = None) -> list[Path]:
    """Write the missing shards of ``run`` under ``folder``; returns all its shard paths."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    say = progress or (lambda s: None)
    paths = []
    for c in range(run.chunks):
        path = _shard(out, c)
        paths.append(path)
        if path.exists():
            _check_shard(path, run)
            continue
        t0 = time.perf_counter()
        arrays = label_chunk(run, c, gate)
        dt = time.perf_counter() - t0
        content: dict[str, Any] = {"run": np.array(json.dumps(run.key())), **arrays}
        with atomic_output(path) as tmp, open(tmp, "wb") as f:
            np.savez(f, **content)
        n = len(arrays["D"])
        say(f"labels chunk {c + 1}/{run.chunks}: {n} decisions in {dt:.1f}s ({n / dt:.1f} decisions/s, "
            f"{n * run.shuffles / dt:.0f} continuations/s)")
    return paths


def load_labels(paths: list[Path]) -> dict[str, np.ndarray]:
    """The shards' decisions concatenated (``team_points`` left out)."""
    parts: dict[str, list[np.ndarray]] = {}
    for p in paths:
        with np.load(p, allow_pickle=False) as z:
            for k in ("feats", "D", "hold_v", "hold_se", "knock_v", "player", "deal"):
                parts.setdefault(k, []).append(z[k])
    return {k: np.concatenate(v) for k, v in parts.items()}


def settings(run: LabelRun) -> dict[str, Any]:
    return asdict(run)
