"""``net``: a network that acts alone, scoring each legal action from that action's own inputs.

At each decision every legal action is scored by one small network from the state (the observation
and :data:`~gin3_env.kernels.net_features.STATE_FEATURES`) beside the action's own features
(:data:`~gin3_env.kernels.net_features.ACTION_FEATURES`: for a discard or a knock of a card, the
deadwood and outs left without it, its danger, ...), and the best-scored one is played (the lowest
action on a tie). No rule chooses at play time. The network, on standardised inputs ``s`` and ``a``::

    h1 = relu(Ws s + Wa a + b1);  h2 = relu(W2 h1 + b2);  score = w3 . h2 + b3

The state part ``Ws s`` is computed once per row. Play needs numpy and the compiled core only.

The model file is a numpy ``.npz`` read with ``allow_pickle=False`` (data only, nothing executed):
the members of :data:`MEMBERS`, ``meta`` a JSON text with ``format`` (:data:`NET_FORMAT`),
``version``, the ``state_features`` and ``action_features`` names (which must be this package's) and
``provenance``. The file is read by :func:`~gin3_env.files.read_npz`: a regular file only (a FIFO, a
device or a folder is refused unread), at most :data:`FILE_LIMIT` bytes, each member's ``.npy`` header
parsed and its dtype and shape checked before its data is read (a header declaring 2**40 elements is a
number, never an allocation). A member that is not in the list or would inflate past the limit, a meta
nested deeper than :data:`META_DEPTH`, arrays of the wrong shapes, or weights that are not finite are
refused in one line (:class:`~.model_fields.ModelFileError`) naming the file.

A file may also hold an **advantage head** (members ``head_`` + each of :data:`WEIGHTS`, a network
of the same form, ``head_margin`` and ``head_top``; :mod:`gin3_training.improve`): the improved
player. At a discard decision it plays the head's best action among the network's best ``head_top``
(every legal action with 0) instead of the network's choice where the head predicts that action gains
more than ``head_margin`` points over it; elsewhere the network plays. The head is read as data like
the rest, with the same checks.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.actions import DISCARD_BASE, NUM_ACTIONS
from ..engine.rules import Rules
from ..files import InputFileError, atomic_output, parse_json, read_npz
from ..kernels.net_features import ACTION_FEATURES, NUM_ACTION_FEATURES, NUM_STATE_FEATURES, STATE_FEATURES, net_inputs
from ..kernels.threads import use_threads
from ..observation.decoding import check_observation
from ..observation.layout import OBS_SIZE
from .model_fields import MissingModelFileError, ModelFileError

__all__ = ["HEAD_MEMBERS", "MEMBERS", "NET_FORMAT", "ActionNet", "NetPolicy", "load_net"]

NET_FORMAT = "gin3-action-net"
NET_VERSION = 1
FILE_LIMIT = 8 * 1024 * 1024  # bytes of a model file, and of each member inflated
META_DEPTH = 32  # nesting of the meta JSON (its provenance nests a few levels)
STATE_SIZE = OBS_SIZE + NUM_STATE_FEATURES  # the observation, then the state features
WEIGHTS = ("state_mean", "state_scale", "action_mean", "action_scale", "Ws", "Wa", "b1", "W2", "b2", "w3", "b3")
HEAD_MEMBERS = (*(f"head_{w}" for w in WEIGHTS), "head_margin", "head_top")
MEMBERS = ("meta", *WEIGHTS, *HEAD_MEMBERS)
DESCRIPTION = "a network acting alone: it scores each legal action from that action's own features"


@dataclass
class ActionNet:
    """The weights of the action-scoring network (see the module doc) and how it was made."""

    state_mean: np.ndarray
    state_scale: np.ndarray
    action_mean: np.ndarray
    action_scale: np.ndarray
    Ws: np.ndarray
    Wa: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray
    provenance: dict[str, Any] = field(default_factory=dict)
    head: ActionNet | None = None  # the advantage head of an improved player (see the module doc)
    margin: float = 0.0  # the predicted gain over the network's choice the head must clear to switch
    top: int = 0  # the head's candidates: the network's best ``top`` actions by its scores (0: every legal one)

    def __post_init__(self) -> None:
        for name in WEIGHTS:
            setattr(self, name, np.asarray(getattr(self, name), dtype=np.float32))
        H, H2 = self.b1.shape[0] if self.b1.ndim == 1 else -1, self.b2.shape[0] if self.b2.ndim == 1 else -1
        want = {"state_mean": (STATE_SIZE,), "state_scale": (STATE_SIZE,), "action_mean": (NUM_ACTION_FEATURES,),
                "action_scale": (NUM_ACTION_FEATURES,), "Ws": (H, STATE_SIZE), "Wa": (H, NUM_ACTION_FEATURES),
                "b1": (H,), "W2": (H2, H), "b2": (H2,), "w3": (H2,), "b3": ()}
        for name, shape in want.items():
            got = getattr(self, name).shape
            if got != shape or H < 1 or H2 < 1:
                raise ValueError(f"{name} has shape {got}, expected {shape} (hidden sizes {H}, {H2})")
            if not np.isfinite(getattr(self, name)).all():
                raise ValueError(f"{name} holds weights that are not finite numbers")
        if not ((self.state_scale > 0).all() and (self.action_scale > 0).all()):
            raise ValueError("state_scale and action_scale entries must be > 0")
        if not isinstance(self.provenance, dict):
            raise ValueError("provenance must be a JSON object")
        if self.head is not None and (not isinstance(self.head, ActionNet) or self.head.head is not None):
            raise ValueError("head must be an ActionNet without a head of its own")
        if isinstance(self.margin, bool) or not isinstance(self.margin, (int, float, np.number)) \
                or not np.isfinite(self.margin):
            raise ValueError(f"head_margin must be a finite number, got {self.margin!r}")
        self.margin = float(self.margin)
        top = self.top
        if isinstance(top, bool) or not isinstance(top, (int, float, np.number)) or not np.isfinite(top) \
                or not 0 <= top <= NUM_ACTIONS or int(top) != top:
            raise ValueError(f"head_top must be an int in 0..{NUM_ACTIONS}, got {self.top!r}")
        self.top = int(self.top)

    @property
    def hidden(self) -> tuple[int, int]:
        return int(self.b1.shape[0]), int(self.b2.shape[0])

    def without_head(self) -> ActionNet:
        """The network alone, the player its head improves: its own layers and their provenance (an improved
        player's ``provenance["network"]``), no head."""
        own = self.provenance.get("network") if self.head is not None else None
        return ActionNet(**{name: getattr(self, name) for name in WEIGHTS},
                         provenance=dict(own if isinstance(own, dict) else self.provenance))

    def meta(self) -> dict[str, Any]:
        return {"format": NET_FORMAT, "version": NET_VERSION, "state_features": list(STATE_FEATURES),
                "action_features": list(ACTION_FEATURES), "provenance": self.provenance}

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        arrays = {name: getattr(self, name) for name in WEIGHTS}
        if self.head is not None:
            arrays.update({f"head_{name}": getattr(self.head, name) for name in WEIGHTS})
            arrays["head_margin"] = np.float32(self.margin)
            arrays["head_top"] = np.int64(self.top)
        np.savez_compressed(buffer, meta=np.array(json.dumps(self.meta())), **arrays)
        return buffer.getvalue()

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model file atomically (the old file or the whole new one)."""
        with atomic_output(path) as tmp, open(tmp, "wb") as fh:
            fh.write(self.to_bytes())

    def scores(self, state: np.ndarray, actions: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The score of each legal action (``actions`` (N, F), ``rows`` its row) given the rows' ``state``."""
        zs = (state - self.state_mean) / self.state_scale
        za = (actions - self.action_mean) / self.action_scale
        h1 = (zs @ self.Ws.T)[rows] + za @ self.Wa.T + self.b1
        np.maximum(h1, 0.0, out=h1)
        h2 = h1 @ self.W2.T + self.b2
        np.maximum(h2, 0.0, out=h2)
        return np.asarray(h2 @ self.w3 + self.b3, dtype=np.float32)


def net_from_npz(data: Any, where: str = "the file") -> ActionNet:
    """The network of an opened ``.npz`` (a mapping of arrays), or ValueError saying what is wrong."""
    names = set(data.keys()) if hasattr(data, "keys") else set(data.files)
    extra = sorted(names - set(MEMBERS))
    has_head = any(m in names for m in HEAD_MEMBERS)
    missing = [m for m in MEMBERS if m not in names and (has_head or m not in HEAD_MEMBERS)]
    if extra or missing:
        raise ValueError(f"{where} is not an action network: " + (f"unknown members {extra}" if extra
                                                                  else f"it lacks {', '.join(missing)}"))
    text = data["meta"]
    if not isinstance(text, np.ndarray) or text.shape != () or text.dtype.kind != "U":
        raise ValueError(f"{where}'s meta is not one text (dtype {getattr(text, 'dtype', type(text).__name__)})")
    try:
        meta = parse_json(str(text), "its meta", META_DEPTH)
    except InputFileError as exc:
        raise ValueError(f"{where}'s meta is not read: {exc.reason}") from None
    if not isinstance(meta, dict) or meta.get("format") != NET_FORMAT:
        got = meta.get("format") if isinstance(meta, dict) else None
        said = "it names no format" if got is None else f"format {got!r:.60}"
        raise ValueError(f"{where} is not an action network ({said}, expected {NET_FORMAT!r})")
    if meta.get("version") != NET_VERSION:
        raise ValueError(f"{where} has version {meta.get('version')!r}; this package reads {NET_VERSION}")
    for key, names_ in (("state_features", STATE_FEATURES), ("action_features", ACTION_FEATURES)):
        if meta.get(key) != list(names_):
            raise ValueError(f"{where} was fitted on other {key.replace('_', ' ')} than this package computes")
    arrays = {}
    for name in WEIGHTS:
        a = data[name]
        if not isinstance(a, np.ndarray) or a.dtype.kind not in "fiu":
            raise ValueError(f"{where}'s {name} is not an array of numbers (dtype {a.dtype})")
        arrays[name] = a
    prov = meta.get("provenance", {})
    head, margin, top = None, 0.0, 0.0
    if has_head:
        for name in HEAD_MEMBERS:
            if not isinstance(data[name], np.ndarray) or data[name].dtype.kind not in "fiu":
                raise ValueError(f"{where}'s {name} is not an array of numbers (dtype {data[name].dtype})")
        for name in ("head_margin", "head_top"):
            if data[name].shape != ():
                raise ValueError(f"{where}'s {name} has shape {data[name].shape}, expected ()")
        try:
            head = ActionNet(**{w: data[f"head_{w}"] for w in WEIGHTS})
        except ValueError as exc:
            raise ValueError(f"{where}'s advantage head: {exc}") from None
        margin, top = float(data["head_margin"]), float(data["head_top"])
        if not (np.isfinite(top) and top == int(top)):
            raise ValueError(f"{where}'s head_top is not a whole number ({top})")
    return ActionNet(**arrays, provenance=prov if isinstance(prov, dict) else {}, head=head, margin=margin,
                     top=int(top) if has_head else 0)


def load_net(path: str | os.PathLike[str]) -> ActionNet:
    """The network saved at ``path``, or a :class:`ModelFileError` naming the file and the problem: read by
    :func:`~gin3_env.files.read_npz` (a regular file of at most :data:`FILE_LIMIT` bytes, each member's
    header, dtype and shape checked before its data is read), then every member checked here."""
    p = Path(path)
    if not os.path.lexists(p) or (p.is_symlink() and not p.exists()):
        raise MissingModelFileError(p, "does not exist")
    try:
        data = read_npz(p, "model file", FILE_LIMIT, names=MEMBERS)
    except InputFileError as exc:
        raise ModelFileError(p, f"is refused (not an .npz action network): {exc.reason}") from None
    try:
        return net_from_npz(data, "the file")
    except ValueError as exc:
        raise ModelFileError(p, str(exc)) from None


class NetPolicy:
    """A player of an :class:`ActionNet` (see the module doc): ``act`` takes the observation dict,
    :meth:`act_batch` rows of observations and masks. ``rules`` are the game's (None: the rule book's):
    their knock limit is one of the network's inputs."""

    description = DESCRIPTION

    def __init__(self, net: ActionNet, name: str = "net", rules: Rules | None = None) -> None:
        if not isinstance(net, ActionNet):
            raise ValueError(f"net must be an ActionNet, got {type(net).__name__}")
        if rules is not None and not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Rules (gin3_env.Rules), got {type(rules).__name__}")
        self.net = net
        self.name = name
        self.rules = rules if rules is not None else Rules()  # the game's (all options)
        self.knock_limit = int(self.rules.knock_limit)  # the one the network reads

    def inputs(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(state, actions, start, legal)``: the network's inputs (the observation joined to the state)."""
        obs = np.ascontiguousarray(np.asarray(observations, dtype=np.float32)[:, :OBS_SIZE])
        mask = np.ascontiguousarray(masks, dtype=np.int8)
        state, acts, start, legal = net_inputs(obs, mask, self.knock_limit, use_threads(len(obs)))
        return np.concatenate([obs, state], axis=1), acts, start, legal

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        state, acts, start, legal = self.inputs(observations, masks)
        rows = np.repeat(np.arange(len(state)), np.diff(start))
        scores = self.net.scores(state, acts, rows)
        chosen = choose(scores, start, legal)
        if self.net.head is not None:
            advantage = self.net.head.scores(state, acts, rows)
            if self.net.top:
                advantage[ranks(scores, start) >= self.net.top] = -np.inf
            chosen = improve(chosen, advantage, start, legal, self.net.margin)
        return chosen

    def act(self, observation: dict[str, Any]) -> int:
        vector, mask = check_observation(observation)
        return int(self.act_batch(vector[None, :OBS_SIZE], mask[None, :].astype(np.int8))[0])

    def __repr__(self) -> str:
        return f"NetPolicy({self.name!r}, hidden={self.net.hidden}, knock_limit={self.knock_limit})"


def ranks(scores: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Each action's rank in its row by ``scores`` (0 the best; ties to the lower action, as :func:`choose`)."""
    rows = np.repeat(np.arange(len(start) - 1), np.diff(start))
    order = np.lexsort((np.arange(len(scores)), -scores.astype(np.float64), rows))
    rank = np.empty(len(scores), np.int64)
    rank[order] = np.arange(len(scores)) - start[rows[order]]
    return rank


def improve(chosen: np.ndarray, advantage: np.ndarray, start: np.ndarray, legal: np.ndarray,
            margin: float) -> np.ndarray:
    """``chosen`` with each discard decision's action replaced by the best by ``advantage`` (the head's
    predicted advantage of each legal action) where that beats the chosen action's by more than ``margin``."""
    B = len(start) - 1
    dense = np.full((B, NUM_ACTIONS), -np.inf, dtype=np.float32)
    dense[np.repeat(np.arange(B), np.diff(start)), legal] = advantage
    best = dense.argmax(axis=1)
    rows = np.arange(B)
    discard = legal[start[:-1]] >= DISCARD_BASE if len(legal) else np.zeros(B, bool)
    switch = discard & (dense[rows, best] - dense[rows, chosen] > margin)
    return np.where(switch, best, chosen).astype(np.int64)


def choose(scores: np.ndarray, start: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Each row's best-scored legal action (the lowest on a tie)."""
    B = len(start) - 1
    dense = np.full((B, NUM_ACTIONS), -np.inf, dtype=np.float32)
    dense[np.repeat(np.arange(B), np.diff(start)), legal] = scores
    return np.asarray(dense.argmax(axis=1), dtype=np.int64)
