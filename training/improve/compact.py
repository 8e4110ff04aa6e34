"""Compact label files: per labelled decision only what the inputs cannot be recomputed from.

A round's labels are committed, so that a round spans sessions and machines and is never redone. A file
``labels_RR_IIII.npz`` (compressed, no pickles) holds shard ``IIII`` of round ``RR``:

- ``run`` (JSON: the :class:`~.labels.ActionLabels` settings), ``round``, ``shard``, ``deck_seed`` (int64: the
  generator the shard's hands were dealt from, ``VectorHands(seed=deck_seed)``);
- per *hand* with a labelled decision: ``hand_deal`` (int32: the deal's index, deck ``d`` being row ``d`` of
  ``default_rng(deck_seed).permuted`` of ``0..51`` in blocks, :mod:`gin3_env.kernels.hands`), ``hand_start``
  (int32, ``H + 1`` offsets) and ``moves`` (int8: the hand's moves from its deal, up to the last labelled
  decision's own move);
- per *decision*: ``hand`` (int32, its hand's row), ``pos`` (int16: the moves played before it), ``cand``
  (int8 ``(N, C)``: the valued actions, ``-1`` past them), ``value`` and ``se`` (float16 ``(N, C)``: the acting
  player's mean points after each candidate over ``K`` shared reshuffles, and its standard error);
- ``deck_check`` (optional): the CRC-32 of the hands' decks, so that a numpy that deals otherwise is named, not
  replayed into other hands.

The move the state player made is ``moves[hand_start[hand] + pos]``; the acting player, the observation, the
legal mask and the whole hand (both real hands and the real stock) are rebuilt by :func:`replay`, which deals
each deck and plays its moves on the batched core. About 25 bytes per decision (three candidates).

:func:`read_labels` reads one file the way input files are read (:func:`gin3_env.files.read_regular_file`: a
regular file, a size cap, no pickles) and checks every member; :func:`load_labels` joins files into the
arrays :class:`~.head.Labelled` takes (those of :func:`.labels.load_shards`).
"""

from __future__ import annotations

import io
import json
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from gin3_env.engine.actions import NUM_ACTIONS
from gin3_env.engine.cards import NUM_CARDS
from gin3_env.engine.rules import Rules
from gin3_env.files import InputFileError, read_regular_file
from gin3_env.kernels import hand_kernels as hk
from gin3_env.kernels.hands import rules_vector

__all__ = ["LABEL_KEYS", "MAX_LABEL_BYTES", "compact", "deck_check", "decks_of", "label_path", "load_labels",
           "read_labels", "replay", "run_labels", "to_shard", "write_labels"]

LABEL_KEYS = ("run", "round", "shard", "deck_seed", "hand_deal", "hand_start", "moves", "hand", "pos", "cand",
              "value", "se")
OPTIONAL_KEYS = ("deck_check",)  # CRC-32 of the hands' decks: numpy's generator dealing them the same way
MAX_LABEL_BYTES = 64 << 20


def label_path(folder: Path, round_: int, i: int) -> Path:
    return Path(folder) / f"labels_{round_:02d}_{i:04d}.npz"


def compact(shard: dict[str, np.ndarray], round_: int, i: int) -> dict[str, np.ndarray]:
    """The compact form of a shard made by :func:`.labels.label_shard` with ``record=True``."""
    n = len(shard["played"])
    deals = np.asarray(shard["hand_deal"], np.int64)
    uniq, hand = np.unique(deals, return_inverse=True)
    nm = np.asarray(shard["nmoves"], np.int64)
    hand_moves: list[np.ndarray] = []
    for h in range(len(uniq)):
        rows = np.flatnonzero(hand == h)
        last = rows[np.argmax(nm[rows])]
        seq = shard["moves"][last, : nm[last]].astype(np.int8)
        for r in rows:  # every decision of the hand lies on the same line of play
            if not np.array_equal(shard["moves"][r, : nm[r]], seq[: nm[r]]):
                raise ValueError(f"decisions of deal {uniq[h]} are not on one line of play")
        hand_moves.append(np.r_[seq, np.int8(shard["played"][last])].astype(np.int8))
    values = np.asarray(shard["values"], np.float64)
    valued = np.isfinite(values)
    C = max(1, int(valued.sum(axis=1).max())) if n else 1
    cand = np.full((n, C), -1, np.int8)
    value = np.zeros((n, C), np.float16)
    se = np.zeros((n, C), np.float16)
    for row in range(n):
        acts = np.flatnonzero(valued[row])
        cand[row, : len(acts)] = acts
        value[row, : len(acts)] = values[row, acts]
        se[row, : len(acts)] = shard["se"][row, acts]
    lengths = np.array([len(m) for m in hand_moves], np.int64)
    return {"run": np.asarray(shard["run"]), "round": np.array(round_, np.int64), "shard": np.array(i, np.int64),
            "deck_seed": np.array(shard["deck_seed"], np.int64), "hand_deal": uniq.astype(np.int32),
            "hand_start": np.r_[0, np.cumsum(lengths)].astype(np.int32),
            "moves": np.concatenate(hand_moves) if hand_moves else np.zeros(0, np.int8),
            "hand": hand.astype(np.int32), "pos": nm.astype(np.int16), "cand": cand, "value": value, "se": se,
            "deck_check": np.array(deck_check(int(shard["deck_seed"]), uniq), np.int64)}


def deck_check(deck_seed: int, deals: np.ndarray) -> int:
    """CRC-32 of the decks ``deals`` dealt from ``deck_seed`` (:func:`decks_of`)."""
    return zlib.crc32(decks_of(deck_seed, deals).tobytes())


def write_labels(path: Path, labels: dict[str, np.ndarray]) -> None:
    """``labels`` as ``path`` (compressed, no pickles), written whole or not at all."""
    from gin3_training.run.checkpoints import write_bytes

    buffer = io.BytesIO()
    np.savez_compressed(buffer, allow_pickle=False, **labels)
    write_bytes(Path(path), buffer.getvalue())


def _bad(path: Path, why: str) -> InputFileError:
    return InputFileError(f"label file {path}", why)


def read_labels(path: str | Path, max_bytes: int = MAX_LABEL_BYTES) -> dict[str, np.ndarray]:
    """One compact label file, checked: its members, their types and shapes, every index in range."""
    path = Path(path)
    data = read_regular_file(path, "label file", max_bytes)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            extra = set(z.files) - set(LABEL_KEYS)
            if not set(LABEL_KEYS) <= set(z.files) or not extra <= set(OPTIONAL_KEYS):
                raise _bad(path, f"not a compact label file (members {sorted(z.files)})")
            out = {k: z[k] for k in z.files}
    except (ValueError, OSError, EOFError) as exc:
        if isinstance(exc, InputFileError):
            raise
        raise _bad(path, f"cannot read it as .npz ({exc})") from None
    kinds = {"hand_deal": "i", "hand_start": "i", "moves": "i", "hand": "i", "pos": "i", "cand": "i",
             "value": "f", "se": "f", "deck_seed": "i", "round": "i", "shard": "i", "deck_check": "i"}
    for k, kind in kinds.items():
        if k not in out:
            continue
        if out[k].dtype.kind != kind:
            raise _bad(path, f"member {k} has dtype {out[k].dtype}")
    try:
        json.loads(str(out["run"]))
    except ValueError:
        raise _bad(path, "member run is not JSON") from None
    n, H = len(out["hand"]), len(out["hand_deal"])
    start, moves = out["hand_start"].astype(np.int64), out["moves"]
    if out["hand_start"].shape != (H + 1,) or start[0] != 0 or (np.diff(start) < 1).any() or start[-1] != len(moves):
        raise _bad(path, "hand_start does not cut moves into hands")
    if moves.size and (moves.min() < 0 or moves.max() >= NUM_ACTIONS):
        raise _bad(path, "a move out of range")
    if out["pos"].shape != (n,) or out["cand"].ndim != 2 or len(out["cand"]) != n:
        raise _bad(path, "per-decision members of different lengths")
    if out["value"].shape != out["cand"].shape or out["se"].shape != out["cand"].shape:
        raise _bad(path, "value and se are not the shape of cand")
    if n and (out["hand"].min() < 0 or out["hand"].max() >= H):
        raise _bad(path, "a decision's hand out of range")
    hand = out["hand"].astype(np.int64)
    if n and ((out["pos"] < 0).any() or (out["pos"] >= np.diff(start)[hand]).any()):
        raise _bad(path, "a decision's position past its hand's moves")
    if n and (out["cand"].min() < -1 or out["cand"].max() >= NUM_ACTIONS or (out["cand"][:, 0] < 0).any()):
        raise _bad(path, "a candidate out of range")
    if (out["hand_deal"] < 0).any():
        raise _bad(path, "a negative deal index")
    return out


def decks_of(deck_seed: int, deals: np.ndarray) -> np.ndarray:
    """The decks ``deals`` (indices) of ``VectorHands(seed=deck_seed)``, int8 ``(len(deals), 52)``."""
    deals = np.asarray(deals, np.int64)
    if not len(deals):
        return np.zeros((0, NUM_CARDS), np.int8)
    base = np.broadcast_to(np.arange(NUM_CARDS, dtype=np.int8), (int(deals.max()) + 1, NUM_CARDS))
    return np.ascontiguousarray(np.random.default_rng(int(deck_seed)).permuted(base, axis=1)[deals])


def replay(labels: dict[str, np.ndarray], rules: Rules | None = None) -> dict[str, np.ndarray]:
    """Each decision's hand rebuilt by dealing its deck and playing its moves: ``S``, ``M``, ``deck``, ``pile``,
    ``mask`` (the batched core's arrays), ``obs`` (float32, the acting player's), ``played`` and ``player``.
    A move that is not legal where it is replayed is a ``ValueError`` (labels of other rules or a bad file)."""
    R = rules_vector(rules or Rules())
    n = len(labels["hand"])
    hand = labels["hand"].astype(np.int64)
    start = labels["hand_start"].astype(np.int64)[hand]
    pos = labels["pos"].astype(np.int64)
    moves = labels["moves"].astype(np.int64)
    S = np.zeros((n, hk.NUM_COLS), np.int64)
    M = np.zeros((n, hk.NUM_MASKS), np.int64)
    deck = np.zeros((n, NUM_CARDS), np.int8)
    pile = np.zeros((n, NUM_CARDS), np.int8)
    mask = np.zeros((n, NUM_ACTIONS), np.int8)
    S[:, hk.KNOCKER : hk.KNOCK_CARD + 1] = -1
    rows = np.arange(n, dtype=np.int64)
    decks = decks_of(int(labels["deck_seed"]), labels["hand_deal"])
    if "deck_check" in labels and zlib.crc32(decks.tobytes()) != int(labels["deck_check"]):
        raise ValueError("the decks dealt here are not the ones the labels were made on (numpy's generator "
                         f"{np.__version__} deals otherwise)")
    hk.deal_rows(rows, decks[hand], S, M, deck, pile, mask, R)
    rewards = np.zeros((n, 2), np.float32)
    ended = np.zeros(n, np.int64)
    for t in range(int(pos.max()) if n else 0):
        go = np.flatnonzero(pos > t)
        act = moves[start[go] + t]
        if not mask[go, act].all():
            raise ValueError(f"a replayed move is not legal (move {t} of a hand)")
        hk.apply_rows(go, act, S, M, deck, pile, mask, R, rewards[: len(go)], ended[: len(go)])
    obs = np.zeros((n, hk.OBS_SIZE), np.float32)
    hk.observe_rows(rows, np.full(n, -1, np.int64), S, M, pile, R, obs)
    played = moves[start + pos]
    cand = labels["cand"].astype(np.int64)
    if n and not (mask[rows, played].all() and all(mask[rows[c >= 0], c[c >= 0]].all() for c in cand.T)):
        raise ValueError("a decision's move or candidate is not legal where it is replayed")
    return {"S": S, "M": M, "deck": deck, "pile": pile, "mask": mask, "obs": obs, "played": played,
            "player": S[:, hk.PLAYER].copy()}


def to_shard(labels: dict[str, np.ndarray], rules: Rules | None = None) -> dict[str, np.ndarray]:
    """The decisions of ``labels`` in the arrays of :func:`.labels.load_shards` (``obs``, ``mask``, ``values``,
    ``se``, ``played``, ``player``, ``deal``), the inputs replayed."""
    from gin3_training.improve.labels import deal_id

    st = replay(labels, rules)
    n = len(labels["hand"])
    values = np.full((n, NUM_ACTIONS), np.nan, np.float32)
    se = np.full((n, NUM_ACTIONS), np.nan, np.float32)
    cand = labels["cand"].astype(np.int64)
    for j in range(cand.shape[1]):
        ok = np.flatnonzero(cand[:, j] >= 0)
        values[ok, cand[ok, j]] = labels["value"][ok, j]
        se[ok, cand[ok, j]] = labels["se"][ok, j]
    deal = deal_id(labels["hand_deal"].astype(np.int64)[labels["hand"]], int(labels["round"]), int(labels["shard"]))
    return {"obs": st["obs"].astype(np.float16), "mask": st["mask"], "values": values, "se": se,
            "played": st["played"].astype(np.int8), "player": st["player"].astype(np.int8), "deal": deal}


def load_labels(paths: list[Path], rules: Rules | None = None) -> dict[str, Any]:
    """The decisions of the compact files ``paths`` joined (see :func:`to_shard`)."""
    parts = [to_shard(read_labels(p), rules) for p in paths]
    if not parts:
        raise ValueError("no label files")
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def run_labels(folder: str | Path, run: Any, progress: Any = None, threads: bool = False,
               kernel: Any = None, stop_after: float = 0.0, only: range | None = None) -> list[Path]:
    """Write the missing compact files of ``run`` (an :class:`~.labels.ActionLabels`, one file per
    ``run.shard_size`` decisions) under ``folder``; a file found with other settings is refused (one line naming
    it and the setting). Returns the files there. ``stop_after`` > 0: stop (between files) once that many
    wall-clock seconds have passed, the files written kept (a later call resumes)."""
    import time

    from gin3_training.improve.labels import _batch_player, continuation_args, key_now, label_shard

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    say = progress or (lambda s: None)
    paths = [label_path(out, run.round, i) for i in range(run.shards)]
    want = run.key()
    found = [p for p in paths if p.exists()]
    for p in found:
        have = json.loads(str(read_labels(p)["run"]))
        now = key_now(have)
        for k, v in want.items():
            if now.get(k) != v:
                raise ValueError(f"{p} was written with {k}={have.get(k)!r}, this run has {k}={v!r}")
    todo = [i for i, p in enumerate(paths) if not p.exists() and (only is None or i in only)]
    say(f"round {run.round} labels: {len(found)} of {run.shards} files found in {out}")
    if not todo:
        return found
    player, other = _batch_player(run.state_player), _batch_player(run.continuation)
    cont = continuation_args(run.continuation)
    t_start = time.monotonic()
    done, cpu = 0, 0.0
    for i in todo:
        if stop_after and time.monotonic() - t_start > stop_after:
            say(f"round {run.round} labels: stopped after {stop_after:.0f}s; resume to write the rest")
            break
        c0 = time.process_time()
        shard = label_shard(run, i, player, other, cont, threads=threads, record=True, kernel=kernel)
        write_labels(paths[i], compact(shard, run.round, i))
        n = len(shard["played"])
        dt = time.process_time() - c0
        done, cpu = done + n, cpu + dt
        left = sum(min(run.shard_size, run.decisions - j * run.shard_size) for j in todo) - done
        say(f"round {run.round} labels, file {i + 1}/{run.shards}: {n} decisions in {dt:.0f} CPU-s "
            f"({n / max(dt, 1e-9):.2f} per CPU-s); {left} decisions left, about {left * cpu / done / 3600:.2f} "
            "CPU-hours")
    return [p for p in paths if p.exists()]
