"""A label run of a gate: shards of labelled decisions on disk, resumable.

Chunk ``c`` of a run plays the deals ``default_rng([seed, c]).permuted(...)`` (``chunk``
deals, one deck each) through :func:`gin3_training.gates.label_kernels.label_deals` and writes
``labels_{c:05d}.npz`` atomically: ``feats`` (decisions, features), ``D`` (value of the gate's
alternative minus value of the heuristic's choice, the acting player's points), the two values
and the alternative's standard error (knock decisions: ``hold_v``, ``hold_se``, ``knock_v``; draw
and discard decisions: ``alt_v``, ``alt_se``, ``base_v``), ``player``, ``deal`` (the deal's global
number, ``c * chunk + i``), and the run's settings. ``decision`` names a row of the decision table
(:data:`gin3_env.kernels.decisions.DECISIONS`; any row's alternatives are valued the same way):
``"knock"`` (where the heuristic
would knock: knock or hold), ``"draw"`` (each choice between taking the face-up card and not, each
labelled with probability ``rate``) or ``"discard"`` (each plain discard, with probability ``rate``:
the heuristic's second and third best discards against its choice, a row each, with ``rank`` 1 or 2
and ``decision``, the decision's number in the run, grouping a decision's rows). A run that stops
resumes at the first chunk without a shard (and says how many it found);
a shard written with other settings is refused (one error naming the file and the setting).

A chunk runs in batches of deals of about :data:`BATCH_SECONDS` each (the deals are independent, each
seeded by its own number, so the shard is the same), so that a stop asked for (``stop()`` true) is
met within seconds: the deals of the chunk labelled so far go to ``labels_{c:05d}.part.npz``, which
the next run continues from, and :class:`LabelsStopped` is raised. Progress (``progress``) comes
at least every :data:`PROGRESS_SECONDS`, with the deals done and an estimate of the time left in the
run (and, given ``left_after``, in the stages after it).
"""

from __future__ import annotations

import io
import json
import os
import stat
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gin3_env.engine.rules import Rules
from gin3_env.files import HeldFolder, atomic_output, read_npz, relative_parts
from gin3_env.kernels.decisions import DECISIONS
from gin3_env.kernels.decisions import decision as decision_row
from gin3_env.kernels.gates import stack_gates
from gin3_env.kernels.hands import rules_vector
from gin3_env.kernels.heuristic_params import heuristic_config, heuristic_params
from gin3_env.policies.gate_file import GatedModel
from gin3_training.gates.label_kernels import label_deals
from gin3_training.run.checkpoints import MAX_SHARD_BYTES, check_shard_key

__all__ = ["LabelRun", "LabelsStopped", "load_labels", "run_labels"]

BATCH_SECONDS = 2.0  # a batch of a chunk's deals runs about this long: what a stop waits for at most
PROGRESS_SECONDS = 30.0  # the longest silence between two progress lines of a label run


class LabelsStopped(Exception):
    """A label run stopped when asked; its finished shards and the chunk's labelled deals are on disk."""


@dataclass(frozen=True)
class LabelRun:
    """Settings of a label run (stored in each shard; a resumed run must match them)."""

    seed: int = 0
    deals: int = 1000
    chunk: int = 500
    shuffles: int = 64
    gate: str = ""  # the model file of the gated state/continuation policy, "" for the heuristic
    decision: str = "knock"  # the decisions labelled: "knock", "draw" or "discard" (see the module doc)
    rate: float = 1.0  # each decision is labelled with this probability

    def __post_init__(self) -> None:
        for name in ("seed", "deals", "chunk", "shuffles"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < (0 if name == "seed" else 1):
                raise ValueError(f"label run {name} must be an int >= {0 if name == 'seed' else 1}, got {v!r}")
        if self.shuffles < 2:
            raise ValueError(f"label run shuffles must be at least 2, got {self.shuffles}")
        names = sorted(d.name for d in DECISIONS)
        if self.decision not in names:
            raise ValueError(f"label run decision must be one of {names}, got {self.decision!r}")
        if isinstance(self.rate, bool) or not isinstance(self.rate, int | float) or not 0 < self.rate <= 1:
            raise ValueError(f"label run rate must be a number in (0, 1], got {self.rate!r}")

    @property
    def chunks(self) -> int:
        return -(-self.deals // self.chunk)

    def key(self) -> dict[str, Any]:
        key = {"seed": self.seed, "chunk": self.chunk, "shuffles": self.shuffles, "gate": self.gate,
               "features": list(decision_row(self.decision).features)}
        if self.decision != "knock":  # a knock run's key is the one its shards have always had
            key.update(decision=self.decision, rate=float(self.rate))
        return key


def _decks(seed: int, c: int, n: int) -> np.ndarray:
    rng = np.random.default_rng([seed, c])
    base = np.broadcast_to(np.arange(52, dtype=np.int8), (n, 52))
    return np.ascontiguousarray(rng.permuted(base, axis=1))  # C order, as every other caller's decks


def label_chunk(run: LabelRun, c: int, gate: GatedModel | None, rules: Rules | None = None,
                stop: Callable[[], bool] | None = None, partial: Path | None = None,
                tick: Callable[[int], None] | None = None) -> dict[str, np.ndarray]:
    """Label chunk ``c`` of ``run`` (the arrays of its shard), in batches (see the module doc): after each,
    ``tick(deals done in the chunk)``; where ``stop()`` is then true, the deals done so far are saved to
    ``partial`` (which a later call continues from) and :class:`LabelsStopped` is raised."""
    rules = rules or Rules()
    n = min(run.chunk, run.deals - c * run.chunk)
    decks = _decks(run.seed, c, n)
    seeds = np.random.default_rng([run.seed, c, 1]).integers(0, 2**31 - 1, size=n).astype(np.int64)
    fp, ip = heuristic_params(heuristic_config(gate.heuristic if gate is not None else None))
    gates = stack_gates(gate.gates if gate is not None else ())
    what = decision_row(run.decision)
    m = what.per_deal
    raw = {"feats": np.full((n, m, len(what.features)), np.nan), "alt_v": np.zeros((n, m)),
           "alt_se": np.zeros((n, m)), "base_v": np.zeros((n, m)), "rank": np.zeros((n, m), np.int64),
           "player": np.zeros((n, m), np.int64), "ndec": np.zeros(n, np.int64), "team": np.zeros(n, np.float64)}
    done = _resume(partial, run, c, raw) if partial is not None else 0
    batch = 4
    while done < n:
        end = min(n, done + batch)
        t0 = time.perf_counter()
        part = {k: v[done:end] for k, v in raw.items()}
        label_deals(what.code, decks[done:end], seeds[done:end], run.shuffles, float(run.rate), rules_vector(rules),
                    fp, ip, gates, part["feats"], part["alt_v"], part["alt_se"], part["base_v"], part["rank"],
                    part["player"], part["ndec"], part["team"])
        per_deal = (time.perf_counter() - t0) / (end - done)
        done = end
        batch = max(1, min(4 * batch, int(BATCH_SECONDS / max(per_deal, 1e-6))))
        if tick is not None:
            tick(done)
        if done < n and stop is not None and stop() and partial is not None:
            with atomic_output(partial) as tmp, open(tmp, "wb") as f:
                content: dict[str, Any] = {"run": np.array(json.dumps(run.key())), "chunk": c, "done": done, **raw}
                np.savez(f, **content)
            raise LabelsStopped(f"chunk {c + 1}/{run.chunks}: {done} of its {n} deals kept in {partial}")
    ndec = raw["ndec"]
    take = np.arange(m)[None, :] < ndec[:, None]
    deal = np.broadcast_to((c * run.chunk + np.arange(n))[:, None], take.shape)
    a, se, b = what.values
    alt_v, base_v = raw["alt_v"], raw["base_v"]
    out = {
        "feats": raw["feats"][take], a: alt_v[take], se: raw["alt_se"][take], b: base_v[take],
        "D": (alt_v - base_v)[take], "player": raw["player"][take], "deal": deal[take], "team_points": raw["team"],
    }
    if what.max_alternatives > 1:  # a row per alternative: which decision each belongs to
        r = raw["rank"][take]
        out["rank"] = r
        out["decision"] = np.cumsum(r == 1) - 1 + c * run.chunk * m  # unique in the run (m rows a deal at most)
    return out


def _resume(partial: Path, run: LabelRun, c: int, raw: dict[str, np.ndarray]) -> int:
    """The deals of chunk ``c`` a stopped run labelled (read into ``raw``), 0 where there is no such file."""
    if not partial.exists():
        return 0
    check_shard_key(partial, run.key())
    z = read_npz(partial, "label shard", MAX_SHARD_BYTES)  # headers checked before any allocation
    if int(z["chunk"]) != c or any(z[k].shape != v.shape for k, v in raw.items()):
        raise ValueError(f"label shard {partial} is not a part of chunk {c} of this run")
    for k, v in raw.items():
        v[...] = z[k]
    return int(z["done"])


def _shard(folder: Path, c: int) -> Path:
    return folder / f"labels_{c:05d}.npz"


def _part(folder: Path, c: int) -> Path:
    return folder / f"labels_{c:05d}.part.npz"


def run_labels(folder: str | os.PathLike[str], run: LabelRun, gate: GatedModel | None = None,
               progress: Callable[[str], None] | None = None, stop: Callable[[], bool] | None = None,
               left_after: Callable[[float], float] | None = None, held: HeldFolder | None = None) -> list[Path]:
    """Write the missing shards of ``run`` under ``folder``; returns all its shard paths. ``stop`` and the
    progress lines: see the module doc (``left_after(seconds per deal measured here)``: the seconds the
    stages after this run will take). With ``held`` (the folder ``folder`` lies in, held by ``gin3
    train-gate``), the shards are written through its descriptor and ``folder`` must be a real folder
    inside it (a link there, or a shard that is not a regular file, is refused, never followed)."""
    out = Path(folder)
    rel = ""
    if held is not None:
        rel = Path(os.path.abspath(out)).relative_to(held.path).as_posix()
        os.close(held.subfolder(relative_parts(rel), create=True))  # made, or refused where it is a link
    else:
        out.mkdir(parents=True, exist_ok=True)
    say = progress or (lambda s: None)
    sizes = [min(run.chunk, run.deals - c * run.chunk) for c in range(run.chunks)]
    for c in range(run.chunks):  # through the held folder: a shard or part that is a link is never read
        for name in (_shard(out, c).name, _part(out, c).name):
            st = held.lstat(f"{rel}/{name}") if held is not None else None
            if st is not None and not stat.S_ISREG(st.st_mode):
                raise ValueError(f"label shard {out / name} is not a regular file (a symbolic link?); "
                                 "never read through")
    found = [c for c in range(run.chunks) if _shard(out, c).exists()]
    for c in found:
        check_shard_key(_shard(out, c), run.key())
    parts = [c + 1 for c in range(run.chunks) if c not in found and _part(out, c).exists()]
    if found or parts:
        part = f" and a part of chunk {parts[0]}" if parts else ""
        say(f"labels: {len(found)} of {run.chunks} shards{part} found in {out}"
            + (", resuming" if len(found) < run.chunks else ", all done"))
    before = sum(sizes[c] for c in found)  # deals labelled in earlier sessions
    session = {"deals": 0, "seconds": 0.0, "said": time.perf_counter()}
    paths = []
    for c in range(run.chunks):
        path = _shard(out, c)
        paths.append(path)
        if c in found:
            continue
        t0 = time.perf_counter()
        base = session["deals"]

        def tick(done: int, c: int = c, t0: float = t0, base: float = base) -> None:
            session["deals"] = base + done
            now = time.perf_counter()
            if now - session["said"] >= PROGRESS_SECONDS and done < sizes[c]:
                session["said"] = now
                say(f"labels chunk {c + 1}/{run.chunks}: {done}/{sizes[c]} deals; "
                    + _left(run.deals - before - session["deals"], session["deals"], session["seconds"] + now - t0,
                            left_after))

        arrays = label_chunk(run, c, gate, stop=stop, partial=_part(out, c), tick=tick)
        dt = time.perf_counter() - t0
        session["seconds"] += dt
        content: dict[str, Any] = {"run": np.array(json.dumps(run.key())), **arrays}
        if held is not None:
            buffer = io.BytesIO()
            np.savez(buffer, **content)
            held.write(f"{rel}/{path.name}", buffer.getvalue())
        else:
            with atomic_output(path) as tmp, open(tmp, "wb") as f:
                np.savez(f, **content)
        _part(out, c).unlink(missing_ok=True)
        session["said"] = time.perf_counter()
        n = len(arrays["D"])
        if "decision" in arrays:  # a row per alternative
            n = len(np.unique(arrays["decision"]))
        say(f"labels chunk {c + 1}/{run.chunks}: {n} decisions in {dt:.1f}s ({n / dt:.1f} decisions/s, "
            f"{n * run.shuffles * decision_row(run.decision).played_out / dt:.0f} continuations/s); "
            + _left(run.deals - before - session["deals"], session["deals"], session["seconds"], left_after))
        if stop is not None and stop() and c + 1 < run.chunks:
            raise LabelsStopped(f"after chunk {c + 1}/{run.chunks}")
    return paths


def _left(deals_left: float, deals_done: float, seconds: float, left_after: Callable[[float], float] | None) -> str:
    """"about 12 min left in this stage, 40 min in all": the time left at this session's rate."""
    if deals_done <= 0 or seconds <= 0:
        return "time left: not yet measured"
    per_deal = seconds / deals_done
    here = deals_left * per_deal
    text = f"about {duration(here)} left in this stage"
    if left_after is not None:
        text += f", {duration(here + left_after(per_deal))} in all"
    return text


def duration(seconds: float) -> str:
    """``"45 s"``, ``"12 min"``, ``"1 h 05 min"``."""
    if seconds < 90:
        return f"{max(0, round(seconds))} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def load_labels(paths: list[Path]) -> dict[str, np.ndarray]:
    """The shards' decisions concatenated (``team_points`` left out)."""
    parts: dict[str, list[np.ndarray]] = {}
    for p in paths:
        z = read_npz(p, "label shard", MAX_SHARD_BYTES)
        for k in z:
            if k not in ("run", "team_points"):
                parts.setdefault(k, []).append(z[k])
    return {k: np.concatenate(v) for k, v in parts.items()}


def settings(run: LabelRun) -> dict[str, Any]:
    return asdict(run)
