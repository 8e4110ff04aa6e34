"""The heuristic with learned gates: ``GatedPolicy`` and its model file (JSON data).

The player is :class:`~gin3_env.policies.HeuristicPolicy` at every decision but these: where
the heuristic would knock (with at least ``min_deadwood`` deadwood), the knock gate scores the
decision from the player's own observation and legal mask
(:data:`gin3_env.kernels.gate_kernels.GATE_FEATURES`) and, where the predicted gain of
holding is above the gate's threshold, the player plays the heuristic's best plain discard
instead; and, where the file has one, the draw gate scores each choice between taking the
face-up card and not (:data:`~gin3_env.kernels.gate_kernels.DRAW_FEATURES`; with ``only_take``,
only those where the heuristic would not take it) and plays the other move where its predicted
gain is above its threshold. Each gate is a ridge fit or a
one-hidden-layer network (:func:`gin3_env.kernels.gate_kernels.gate_score`), fitted on labels
computed on the true deal (``gin3 train-gate``, docs/beating_the_heuristic.md).

The model file is JSON: ``format`` (``"gin3-knock-gate"``), ``version``, ``features`` (the
names, which must be this package's), ``mean``, ``scale``, ``W1``, ``b1``, ``w2``, ``b2``,
``threshold``, ``min_deadwood``, ``heuristic`` (the base player's options), ``provenance``
(how it was made) and, optionally, ``draw_gate``: an object of its own ``features``
(:data:`~gin3_env.kernels.gate_kernels.DRAW_FEATURES`), ``mean`` ... ``b2``, ``threshold``,
``only_take`` (true: the draw gate acts only where the heuristic would not take the face-up card,
so it can only add takes) and ``provenance`` (a file without it is the knock gate alone), and,
optionally, ``discard_gate``: an object of its own ``features``
(:data:`~gin3_env.kernels.gate_kernels.DISCARD_FEATURES`), ``mean`` ... ``b2``, ``threshold`` and
``provenance``; where present, at each plain discard the player plays the heuristic's second or
third best discard of the highest predicted gain where that exceeds the threshold. It is
read as data; a file that is missing, not JSON, of another format, or whose arrays do not fit the
features is one :class:`ModelFileError`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.rules import Rules
from ..files import InputFileError, read_json, save_json
from ..kernels.gate_kernels import (
    DISCARD_FEATURES,
    DRAW_FEATURES,
    GATE_FEATURES,
    gated_act_parallel,
    gated_act_serial,
    gates_args,
    no_gate_arrays,
)
from ..kernels.heuristic_params import HeuristicConfig, heuristic_config, heuristic_params
from ..kernels.threads import use_threads
from ..observation.decoding import check_observation
from ..observation.layout import OBS_SIZE
from .model_fields import MissingModelFileError, ModelFileError

__all__ = ["GATE_FORMAT", "DiscardGate", "DrawGate", "GatedPolicy", "KnockGate", "load_gate", "no_gate_arrays"]

GATE_FORMAT = "gin3-knock-gate"
GATE_VERSION = 1
MAX_GATE_BYTES = 8 << 20  # the shipped gate is 93 KB; a file over this is refused unread
MAX_GATE_DEPTH = 32  # its provenance nests a few levels
MAX_MIN_DEADWOOD = 1000  # deadwood is under 100; the kernels read it as a 64-bit int


WEIGHTS = ("mean", "scale", "W1", "b1", "w2")


def _check_scorer(self: Any, F: int) -> None:
    """Make the scorer fields of a gate arrays of the right shapes, or raise ValueError."""
    self.mean = np.asarray(self.mean, dtype=np.float64).reshape(-1)
    self.scale = np.asarray(self.scale, dtype=np.float64).reshape(-1)
    self.w2 = np.asarray(self.w2, dtype=np.float64).reshape(-1)
    self.b1 = np.asarray(self.b1, dtype=np.float64).reshape(-1)
    W1 = np.asarray(self.W1, dtype=np.float64)
    self.W1 = W1.reshape(0, F) if W1.size == 0 else W1
    if self.W1.ndim != 2:
        raise ValueError(f"gate W1 must be a list of rows of {F} numbers (or []), got {self.W1.ndim} dimension(s)")
    if self.mean.shape != (F,) or self.scale.shape != (F,):
        raise ValueError(f"gate mean and scale must have {F} entries, got {self.mean.shape}, {self.scale.shape}")
    H = self.W1.shape[0]
    if self.W1.shape != (H, F) or self.b1.shape != (H,):
        raise ValueError(f"gate W1 must be (H, {F}) and b1 (H,), got {self.W1.shape}, {self.b1.shape}")
    if self.w2.shape != ((H,) if H else (F,)):
        raise ValueError(f"gate w2 must have {H or F} entries, got {self.w2.shape}")
    if not (np.isfinite(self.scale) & (self.scale > 0)).all():
        raise ValueError("gate scale entries must be finite numbers > 0")
    for name in ("b2", "threshold"):
        v = getattr(self, name)
        try:
            ok = not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(float(v))
        except OverflowError:  # an integer past float's range (10**400)
            ok = False
        if not ok:
            raise ValueError(f"gate {name} must be a finite number, got {str(v)[:60]}")
        setattr(self, name, float(v))
    for a in (self.mean, self.W1, self.b1, self.w2):
        if not np.isfinite(a).all():
            raise ValueError("gate weights must be finite numbers")


def _kind(W1: np.ndarray) -> str:
    return f"mlp{W1.shape[0]}" if W1.shape[0] else "ridge"


def _scorer_dict(gate: Any, features: tuple[str, ...]) -> dict[str, Any]:
    return {"kind": _kind(gate.W1), "features": list(features), **{k: getattr(gate, k).tolist() for k in WEIGHTS},
            "b2": gate.b2, "threshold": gate.threshold}


def _scorer_fields(data: dict[str, Any], features: tuple[str, ...], where: str) -> dict[str, Any]:
    """The scorer fields of a gate's JSON object (ValueError naming what is wrong)."""
    if data.get("features") != list(features):
        raise ValueError(f"{where} was fitted on other features than this package computes: "
                         f"{data.get('features')!r:.200}")
    missing = [k for k in (*WEIGHTS, "b2", "threshold") if k not in data]
    if missing:
        raise ValueError(f"{where} lacks {', '.join(missing)}")
    try:
        arrays = {k: np.asarray(data[k], dtype=np.float64) for k in WEIGHTS}
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{where} holds weights that are not arrays of numbers ({exc})") from None
    return {**arrays, "b2": data["b2"], "threshold": data["threshold"]}


@dataclass
class _Scorer:
    """The fields every gate has: its scorer (see the module doc) and its threshold."""

    mean: np.ndarray
    scale: np.ndarray
    W1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float
    threshold: float


@dataclass
class DrawGate(_Scorer):
    """A fitted draw gate: where its score of a take-or-not choice exceeds ``threshold``, the
    other move is played (see the module doc)."""

    only_take: bool = True  # acts only where the heuristic would not take the face-up card
    provenance: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_scorer(self, len(DRAW_FEATURES))
        if not isinstance(self.only_take, bool):
            raise ValueError(f"draw gate only_take must be true or false, got {self.only_take!r:.60}")

    @property
    def kind(self) -> str:
        return _kind(self.W1)

    def arrays(self) -> tuple[Any, ...]:
        """The kernel argument ``(mean, scale, W1, b1, w2, b2, threshold, only_take)``."""
        return self.mean, self.scale, self.W1, self.b1, self.w2, self.b2, self.threshold, int(self.only_take)

    def to_dict(self) -> dict[str, Any]:
        return {**_scorer_dict(self, DRAW_FEATURES), "only_take": self.only_take, "provenance": self.provenance}

    @classmethod
    def from_dict(cls, data: Any, where: str = "draw gate") -> DrawGate:
        if not isinstance(data, dict):
            raise ValueError(f"{where} must be a JSON object, got {type(data).__name__}")
        prov = data.get("provenance", {})
        return cls(**_scorer_fields(data, DRAW_FEATURES, where), only_take=data.get("only_take", True),
                   provenance=prov if isinstance(prov, dict) else {})


@dataclass
class DiscardGate(_Scorer):
    """A fitted discard gate: at a plain discard, the heuristic's second or third best discard of the
    highest score is played where that score exceeds ``threshold`` (see the module doc)."""

    provenance: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_scorer(self, len(DISCARD_FEATURES))

    @property
    def kind(self) -> str:
        return _kind(self.W1)

    def arrays(self) -> tuple[Any, ...]:
        """The kernel argument ``(mean, scale, W1, b1, w2, b2, threshold, 0)``."""
        return self.mean, self.scale, self.W1, self.b1, self.w2, self.b2, self.threshold, 0

    def to_dict(self) -> dict[str, Any]:
        return {**_scorer_dict(self, DISCARD_FEATURES), "provenance": self.provenance}

    @classmethod
    def from_dict(cls, data: Any, where: str = "discard gate") -> DiscardGate:
        if not isinstance(data, dict):
            raise ValueError(f"{where} must be a JSON object, got {type(data).__name__}")
        prov = data.get("provenance", {})
        return cls(**_scorer_fields(data, DISCARD_FEATURES, where), provenance=prov if isinstance(prov, dict) else {})


@dataclass
class KnockGate(_Scorer):
    """A fitted knock gate, with an optional draw gate and an optional discard gate (see the module
    doc for the fields)."""

    min_deadwood: int = 1
    heuristic: HeuristicConfig = field(default_factory=HeuristicConfig)
    provenance: dict[str, Any] = field(default_factory=dict)
    draw: DrawGate | None = None
    discard: DiscardGate | None = None

    def __post_init__(self) -> None:
        _check_scorer(self, len(GATE_FEATURES))
        if (isinstance(self.min_deadwood, bool) or not isinstance(self.min_deadwood, int)
                or not 0 <= self.min_deadwood <= MAX_MIN_DEADWOOD):
            raise ValueError(f"gate min_deadwood must be an int in 0..{MAX_MIN_DEADWOOD}, "
                             f"got {str(self.min_deadwood)[:60]}")
        if self.draw is not None and not isinstance(self.draw, DrawGate):
            raise ValueError(f"gate draw must be a DrawGate or None, got {type(self.draw).__name__}")
        if self.discard is not None and not isinstance(self.discard, DiscardGate):
            raise ValueError(f"gate discard must be a DiscardGate or None, got {type(self.discard).__name__}")

    @property
    def kind(self) -> str:
        return (_kind(self.W1) + (f"+draw-{self.draw.kind}" if self.draw is not None else "")
                + (f"+discard-{self.discard.kind}" if self.discard is not None else ""))

    def arrays(self) -> tuple[Any, ...]:
        """The kernel argument ``(mean, scale, W1, b1, w2, b2, threshold, min_dw)`` of the knock gate."""
        return self.mean, self.scale, self.W1, self.b1, self.w2, self.b2, self.threshold, self.min_deadwood

    def draw_arrays(self) -> tuple[Any, ...]:
        """The kernel argument of the draw gate (:func:`no_gate_arrays` where there is none)."""
        return self.draw.arrays() if self.draw is not None else no_gate_arrays()

    def discard_arrays(self) -> tuple[Any, ...]:
        """The kernel argument of the discard gate (:func:`no_gate_arrays` where there is none)."""
        return self.discard.arrays() if self.discard is not None else no_gate_arrays()

    def to_dict(self) -> dict[str, Any]:
        out = {
            "format": GATE_FORMAT, "version": GATE_VERSION, **_scorer_dict(self, GATE_FEATURES),
            "min_deadwood": self.min_deadwood, "heuristic": self.heuristic.to_dict(), "provenance": self.provenance,
        }
        if self.draw is not None:
            out["draw_gate"] = self.draw.to_dict()
        if self.discard is not None:
            out["discard_gate"] = self.discard.to_dict()
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        save_json(path, self.to_dict())

    @classmethod
    def from_dict(cls, data: Any, where: str = "gate") -> KnockGate:
        if not isinstance(data, dict):
            raise ValueError(f"{where} must be a JSON object, got {type(data).__name__}")
        if data.get("format") != GATE_FORMAT:
            raise ValueError(f"{where} is not a knock gate (format {data.get('format')!r}, expected {GATE_FORMAT!r})")
        if data.get("version") != GATE_VERSION:
            raise ValueError(f"{where} has version {data.get('version')!r}; this package reads {GATE_VERSION}")
        heur = data.get("heuristic", {})
        if not isinstance(heur, dict):
            raise ValueError(f"{where} heuristic must be an object of options")
        fields = _scorer_fields(data, GATE_FEATURES, where)
        draw = DrawGate.from_dict(data["draw_gate"], f"{where}'s draw_gate") if "draw_gate" in data else None
        discard = (DiscardGate.from_dict(data["discard_gate"], f"{where}'s discard_gate")
                   if "discard_gate" in data else None)
        prov = data.get("provenance", {})
        return cls(**fields, min_deadwood=data.get("min_deadwood", 1), heuristic=heuristic_config(**heur),
                   provenance=prov if isinstance(prov, dict) else {}, draw=draw, discard=discard)


def load_gate(path: str | os.PathLike[str]) -> KnockGate:
    """The gate saved at ``path``, or a :class:`ModelFileError` naming the file and the problem: read once,
    a regular file of at most :data:`MAX_GATE_BYTES`, JSON nested at most :data:`MAX_GATE_DEPTH` deep."""
    p = Path(path)
    if not p.is_file():
        raise MissingModelFileError(p, "does not exist")
    try:
        data = read_json(p, "gate", MAX_GATE_BYTES, MAX_GATE_DEPTH)
    except InputFileError as exc:
        raise ModelFileError(p, f"is not a JSON knock gate ({exc.reason})") from None
    try:
        return KnockGate.from_dict(data, "the file")
    except ValueError as exc:  # "model file X is not a knock gate (...)": the file is the subject of the line
        problem = str(exc)
        if problem.startswith("the file "):
            problem = problem[len("the file "):]
        else:
            problem = "is not a usable gate: " + problem.replace("the file's ", "its ", 1)
        raise ModelFileError(p, problem) from None


class GatedPolicy:
    """The heuristic with learnt gates (see the module doc); ``act`` takes the observation dict,
    :meth:`act_batch` rows of observations and masks (the batched form)."""

    def __init__(self, gate: KnockGate, name: str = "gated", rules: Rules | None = None) -> None:
        if not isinstance(gate, KnockGate):
            raise ValueError(f"gate must be a KnockGate, got {type(gate).__name__}")
        self.gate = gate
        self.name = name
        # the game's rules (None: the rule book's at the file's knock limit); the base heuristic plays their knock limit
        self.rules = rules if rules is not None else Rules(knock_limit=gate.heuristic.knock_limit)
        self._fp, self._ip = heuristic_params(replace(gate.heuristic, knock_limit=self.rules.knock_limit))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(np.asarray(observations)[:, :OBS_SIZE], dtype=np.float32)
        mask = np.ascontiguousarray(masks, dtype=np.int8)
        out = np.empty(len(obs), dtype=np.int64)
        kernel = gated_act_parallel if use_threads(len(obs)) else gated_act_serial
        kernel(obs, mask, self._fp, self._ip, *gates_args(self.gate), out)
        return out

    def act(self, observation: dict[str, Any]) -> int:
        vector, mask = check_observation(observation)
        return int(self.act_batch(vector[None, :OBS_SIZE], mask[None, :].astype(np.int8))[0])

    def __repr__(self) -> str:
        draw = f", draw threshold={self.gate.draw.threshold:g}" if self.gate.draw is not None else ""
        disc = f", discard threshold={self.gate.discard.threshold:g}" if self.gate.discard is not None else ""
        return f"GatedPolicy({self.gate.kind}, threshold={self.gate.threshold:g}{draw}{disc})"
