"""The gated player's model file (JSON data): its gates, one per kind of decision, and its heuristic.

A :class:`Gate` is one fitted decision switch: its ``decision`` (a row of
:data:`gin3_env.kernels.decisions.DECISIONS`: ``"knock"``, ``"draw"``, ``"discard"``), its scorer
(``mean``, ``scale``, ``W1``, ``b1``, ``w2``, ``b2``: a ridge fit or a one-hidden-layer network,
:mod:`gin3_env.kernels.gates`), its ``threshold`` and its ``options`` (the row's
:class:`~gin3_env.kernels.decisions.GateOption`\\ s by name: the knock's ``min_deadwood``, the draw's
``only_take``). A :class:`GatedModel` is what the gated player plays by: its gates (at most one per
decision, in the table's order), the heuristic's settings they switch (``heuristic``) and how it was made
(``provenance``).

The file (:data:`GATES_FORMAT`, ``"gin3-gates"``, version 1)::

    {"format": "gin3-gates", "version": 1, "player": "the heuristic with learnt gates",
     "heuristic": {...the heuristic's options...},
     "gates": [{"decision": "knock", "scorer": "mlp32", "features": [...], "mean": [...], "scale": [...],
                "W1": [[...]], "b1": [...], "w2": [...], "b2": 0.1, "threshold": 0.5,
                "options": {"min_deadwood": 1}, "provenance": {...}}, ...],
     "provenance": {...}}

Each gate's ``features`` must be the names this package computes for its decision. A file that is
missing, not JSON, of another format, or whose arrays do not fit its features is one
:class:`~.model_fields.ModelFileError` naming the file and the problem.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..files import InputFileError, read_json, save_json
from ..kernels.decisions import AT_LEAST, DECISIONS, decision
from ..kernels.heuristic_params import HeuristicConfig, heuristic_config
from .model_fields import MissingModelFileError, ModelFileError

__all__ = ["GATES_FORMAT", "Gate", "GatedModel", "gate_options", "load_gated"]

GATES_FORMAT = "gin3-gates"
GATES_VERSION = 1
MAX_GATES_BYTES = 8 << 20  # the shipped file is about 100 KB; a file over this is refused unread
MAX_GATES_DEPTH = 32  # its provenance nests a few levels
MAX_MIN_DEADWOOD = 1000  # deadwood is under 100; the kernels read an option as a float
WEIGHTS = ("mean", "scale", "W1", "b1", "w2")


def _finite_number(v: Any) -> bool:
    try:
        return not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(float(v))
    except OverflowError:  # an integer past float's range (10**400)
        return False


@dataclass
class Gate:
    """A fitted switch at one kind of decision (see the module doc); checked when built (a
    ``ValueError`` naming the field)."""

    decision: str
    mean: np.ndarray
    scale: np.ndarray
    W1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float
    threshold: float
    options: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.decision, str):
            raise ValueError(f"gate decision must be a name, got {self.decision!r:.60}")
        row = decision(self.decision)
        F = len(row.features)
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
            if not _finite_number(v):
                raise ValueError(f"gate {name} must be a finite number, got {str(v)[:60]}")
            setattr(self, name, float(v))
        for a in (self.mean, self.W1, self.b1, self.w2):
            if not np.isfinite(a).all():
                raise ValueError("gate weights must be finite numbers")
        self.options = gate_options(self.decision, self.options)
        if not isinstance(self.provenance, dict):
            self.provenance = {}

    @property
    def scorer(self) -> str:
        """The scorer's name: ``"ridge"`` or ``"mlpH"`` (H hidden units)."""
        return f"mlp{self.W1.shape[0]}" if self.W1.shape[0] else "ridge"

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.decision, "scorer": self.scorer, "features": list(decision(self.decision).features),
                **{k: getattr(self, k).tolist() for k in WEIGHTS}, "b2": self.b2, "threshold": self.threshold,
                "options": dict(self.options), "provenance": self.provenance}

    @classmethod
    def from_dict(cls, data: Any, where: str = "gate") -> Gate:
        """The gate of a JSON object; a ``ValueError`` naming ``where`` and what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"{where} must be a JSON object, got {type(data).__name__}")
        name = data.get("decision")
        if not isinstance(name, str) or name not in [d.name for d in DECISIONS]:
            raise ValueError(f"{where} is of an unknown decision {name!r:.60}; the decisions are "
                             f"{[d.name for d in DECISIONS]}")
        features = list(decision(name).features)
        if data.get("features") != features:
            raise ValueError(f"{where} was fitted on other features than this package computes: "
                             f"{data.get('features')!r:.200}")
        missing = [k for k in (*WEIGHTS, "b2", "threshold") if k not in data]
        if missing:
            raise ValueError(f"{where} lacks {', '.join(missing)}")
        try:
            arrays = {k: np.asarray(data[k], dtype=np.float64) for k in WEIGHTS}
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"{where} holds weights that are not arrays of numbers ({exc})") from None
        options = data.get("options", {})
        if not isinstance(options, dict):
            raise ValueError(f"{where} options must be an object of options")
        prov = data.get("provenance", {})
        try:
            return cls(name, **arrays, b2=data["b2"], threshold=data["threshold"], options=options,
                       provenance=prov if isinstance(prov, dict) else {})
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None


def gate_options(name: str, given: Any) -> dict[str, Any]:
    """The options of a gate of decision ``name``: each of its row's, given or its default, checked."""
    row = decision(name)
    if not isinstance(given, dict):
        raise ValueError(f"gate options must be a dict, got {type(given).__name__}")
    unknown = sorted(set(given) - {o.name for o in row.options})
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for a {name} gate; its options are "
                         f"{[o.name for o in row.options]}")
    out: dict[str, Any] = {}
    for o in row.options:
        v = given.get(o.name, o.default)
        if o.rule == AT_LEAST:
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_MIN_DEADWOOD:
                raise ValueError(f"gate {o.name} must be an int in 0..{MAX_MIN_DEADWOOD}, got {str(v)[:60]}")
        elif not isinstance(v, bool):
            raise ValueError(f"gate {o.name} must be true or false, got {v!r:.60}")
        out[o.name] = v
    return out


@dataclass
class GatedModel:
    """What the gated player plays by (see the module doc): ``gates`` (in the table's order, at most one
    per decision), the heuristic's settings and the provenance."""

    gates: tuple[Gate, ...] = ()
    heuristic: HeuristicConfig = field(default_factory=HeuristicConfig)
    provenance: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        gates = tuple(self.gates)
        for g in gates:
            if not isinstance(g, Gate):
                raise ValueError(f"a gated model's gates must be Gates, got {type(g).__name__}")
        names = [g.decision for g in gates]
        if len(set(names)) != len(names):
            raise ValueError(f"a gated model has at most one gate per decision, got {names}")
        order = [d.name for d in DECISIONS]
        self.gates = tuple(sorted(gates, key=lambda g: order.index(g.decision)))
        if not isinstance(self.heuristic, HeuristicConfig):
            raise ValueError(f"heuristic must be a HeuristicConfig, got {type(self.heuristic).__name__}")

    def gate(self, name: str) -> Gate | None:
        """The gate of the decision ``name``, or None."""
        return next((g for g in self.gates if g.decision == name), None)

    def with_gate(self, gate: Gate) -> GatedModel:
        """This model with ``gate`` (in place of any gate of its decision)."""
        return replace(self, gates=(*(g for g in self.gates if g.decision != gate.decision), gate),
                       provenance=dict(self.provenance))

    @property
    def scorers(self) -> str:
        """``"knock-mlp32+draw-mlp32+discard-mlp32"``: each gate's decision and scorer; ``"none"`` without."""
        return "+".join(f"{g.decision}-{g.scorer}" for g in self.gates) or "none"

    def to_dict(self) -> dict[str, Any]:
        return {"format": GATES_FORMAT, "version": GATES_VERSION, "player": "the heuristic with learnt gates",
                "heuristic": self.heuristic.to_dict(), "gates": [g.to_dict() for g in self.gates],
                "provenance": self.provenance}

    def save(self, path: str | os.PathLike[str]) -> None:
        save_json(path, self.to_dict())

    @classmethod
    def from_dict(cls, data: Any, where: str = "gated model") -> GatedModel:
        """The model of a file's JSON; a ``ValueError`` naming ``where`` and the problem."""
        if not isinstance(data, dict):
            raise ValueError(f"{where} must be a JSON object, got {type(data).__name__}")
        fmt = data.get("format")
        if fmt != GATES_FORMAT:
            said = "it names no format" if fmt is None else f"format {fmt!r:.60}"
            raise ValueError(f"{where} is not a gated player's model ({said}, expected {GATES_FORMAT!r})")
        if data.get("version") != GATES_VERSION:
            raise ValueError(f"{where} has version {data.get('version')!r:.60}; this package reads {GATES_VERSION}")
        heur = data.get("heuristic", {})
        if not isinstance(heur, dict):
            raise ValueError(f"{where} heuristic must be an object of options")
        prov = data.get("provenance", {})
        prov = prov if isinstance(prov, dict) else {}
        listed = data.get("gates")
        if not isinstance(listed, list):
            raise ValueError(f"{where} gates must be a list of gates")
        gates = [Gate.from_dict(g, f"{where}'s gate {i + 1}") for i, g in enumerate(listed)]
        return cls(tuple(gates), heuristic_config(**heur), prov)


def load_gated(path: str | os.PathLike[str]) -> GatedModel:
    """The gated player's model saved at ``path``, or a :class:`ModelFileError` naming the
    file and the problem: read once, a regular file of at most :data:`MAX_GATES_BYTES`, JSON nested at
    most :data:`MAX_GATES_DEPTH` deep."""
    p = Path(path)
    if not p.is_file():
        raise MissingModelFileError(p, "does not exist")
    try:
        data = read_json(p, "gate file", MAX_GATES_BYTES, MAX_GATES_DEPTH)
    except InputFileError as exc:
        raise ModelFileError(p, f"is not a JSON gate file ({exc.reason})") from None
    try:
        return GatedModel.from_dict(data, "the file")
    except ValueError as exc:  # "model file X is not a gated player's model (...)": the file is the subject
        problem = str(exc)
        if problem.startswith("the file "):
            problem = problem[len("the file "):]
        else:
            problem = "is not a usable gate file: " + problem.replace("the file's ", "its ", 1)
        raise ModelFileError(p, problem) from None
