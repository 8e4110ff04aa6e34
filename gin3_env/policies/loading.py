"""``load_policy(spec)``: built-in players, the shipped model, or a saved model file.

| spec                     | result                                                       |
|--------------------------|--------------------------------------------------------------|
| ``"random"``             | :class:`RandomPolicy` (``seed=`` keyword)                    |
| ``"heuristic"``          | :class:`HeuristicPolicy` (config keywords)                   |
| ``"search"``             | :class:`~gin3_env.policies.search.SearchPolicy` (``seed=``, ``rules=``, option keywords) |
| ``"search:k=v,..."``     | the same with options, e.g. ``"search:samples=16,time_budget=none"`` |
| ``"trained"``            | the model shipped as ``gin3_env/models/trained.zip``         |
| a path to a ``.zip``     | a saved sb3-contrib ``MaskablePPO`` model as :class:`SB3Policy` |
| ``"rllib:PATH"``         | a ``gin3 train --backend rllib`` checkpoint folder (torch only) |
| an object with ``act()`` | returned as is                                               |

A model acts with **one torch thread** unless told otherwise (``threads=``
keyword; ``None`` leaves torch's own setting): a policy's forward pass is one
observation, far too small for several threads, and torch's default of one
thread per core made the same evaluation 3x slower, and sometimes 10x, as soon
as another process kept a core busy. The setting applies only while the model
acts (:func:`torch_threads`), so a training loop's own thread count is kept.

A model file that is missing, empty, not a zip, truncated, corrupted (a checksum
fails) or a zip that is not a saved model raises :class:`ModelFileError` (a
``ValueError``; :class:`MissingModelFileError`, also a ``FileNotFoundError``,
for a missing one) with one line naming the file and what is wrong
(:func:`check_model_file`); an unknown name is a ``ValueError`` listing the choices.
``sb3_contrib`` (the ``train`` extra) is imported only when a model is loaded,
torch only for an ``rllib:`` checkpoint (Ray is never needed to play one).
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..observation.decoding import check_observation
from ..observation.features import AUGMENTED_SIZE, augment
from ..observation.layout import OBS_SIZE
from .heuristic import HeuristicPolicy
from .random_policy import RandomPolicy

BUILTIN_SPECS = ("random", "heuristic", "trained", "search")
RLLIB_PREFIX = "rllib:"
MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
TRAINED_MODEL = MODELS_DIR / "trained.zip"
TRAINED_SIDECAR = MODELS_DIR / "trained.json"
INFERENCE_THREADS = 1  # torch threads while a model acts (see the module doc)


def policy_spec_help() -> str:
    """The policy specs every command accepts, in one line (their ``--help`` uses it)."""
    return (
        "random, heuristic, search (options: search:k=v,...), trained (the shipped model), "
        f"{RLLIB_PREFIX}PATH (an RLlib checkpoint folder) or the path of a saved model .zip"
    )


@contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run the block with ``threads`` torch threads, then restore the previous count (None: no change)."""
    if threads is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    if before == threads:
        yield
        return
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class ModelFileError(ValueError):
    """A model or checkpoint file that cannot be used; ``str()`` is one line naming it and the problem."""

    def __init__(self, path: str | os.PathLike[str], problem: str, what: str = "model file") -> None:
        self.path = Path(path)
        self.problem = " ".join(problem.split())
        super().__init__(f"{what} {self.path} {self.problem}")


class MissingModelFileError(ModelFileError, FileNotFoundError):
    """The model file does not exist."""


# what a file starts with, for "this is not a model: it looks like ..."
_MAGIC = {b"\x89PNG": "a PNG image", b"%PDF": "a PDF document", b"\xff\xd8\xff": "a JPEG image",
          b"\x1f\x8b": "a gzip file", b"{": "JSON text", b"#!": "a script"}
SB3_MEMBERS = ("data", "policy.pth")


def _looks_like(head: bytes) -> str:
    for magic, name in _MAGIC.items():
        if head.startswith(magic):
            return f" (it looks like {name})"
    return ""


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


def check_model_file(path: str | os.PathLike[str], what: str = "model file") -> Path:
    """``path`` if it is a complete saved stable-baselines3 model (a zip holding ``data`` and
    ``policy.pth``, every member passing its checksum); else :class:`ModelFileError` saying why."""
    file = Path(path)
    if not file.exists():
        raise MissingModelFileError(file, "not found", what)
    if file.is_dir():
        raise ModelFileError(file, "is a folder, not a saved model (.zip)", what)
    try:
        with open(file, "rb") as fh:
            head = fh.read(8)
        size = file.stat().st_size
    except OSError as exc:
        raise ModelFileError(file, f"cannot be read ({exc.strerror or _short(exc)})", what) from None
    if size == 0:
        raise ModelFileError(file, "is empty (0 bytes)", what)
    if not zipfile.is_zipfile(file):
        if head.startswith(b"PK"):
            raise ModelFileError(file, f"is truncated or damaged: a zip file without its end ({size} bytes)", what)
        raise ModelFileError(file, f"is not a saved model: not a zip file{_looks_like(head)}", what)
    try:
        with zipfile.ZipFile(file) as archive:
            names = set(archive.namelist())
            missing = [m for m in SB3_MEMBERS if m not in names]
            if missing and min((i.header_offset for i in archive.infolist()), default=0) > 0:
                # the directory found is that of a zip stored inside (torch's .pth): the end is cut off
                raise ModelFileError(file, f"is truncated or damaged: a zip file without its end ({size} bytes)", what)
            if missing:
                problem = f"is a zip file but not a saved stable-baselines3 model (no {', '.join(missing)} inside)"
                raise ModelFileError(file, problem, what)
            bad = archive.testzip()
            if bad is not None:
                raise ModelFileError(file, f"is corrupted: {bad!r} inside fails its checksum", what)
            json.loads(archive.read("data").decode("utf-8"))
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, UnicodeDecodeError, ValueError) as exc:
        raise ModelFileError(file, f"is truncated or corrupted ({_short(exc)})", what) from None
    return file


class SB3Policy:
    """A saved sb3-contrib ``MaskablePPO`` model acting from the observation dict.

    ``act`` calls ``model.predict(obs["observation"][:obs_dim], action_masks=mask,
    deterministic=True)``, where ``obs_dim`` is the model's observation size (a
    hand model can thus play in the match environment, whose vector is longer).
    A model trained on the derived features gets
    :func:`~gin3_env.observation.features.augment` of the observation instead.
    Which features a model was trained on is read from its description (the
    sidecar JSON beside the ``.zip``: ``"features"``, or ``"config"."features"``,
    ``"augmented"`` or ``"plain"``); a model without one is taken as augmented when
    its observation has ``AUGMENTED_SIZE`` entries.
    ``threads`` is the torch thread count while it acts (default 1; ``None``: torch's own).
    """

    def __init__(
        self,
        model: Any,
        name: str = "model",
        metadata: dict[str, Any] | None = None,
        deterministic: bool = True,
        threads: int | None = INFERENCE_THREADS,
    ) -> None:
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads must be an int >= 1 or None, got {threads!r}")
        shape = getattr(getattr(model, "observation_space", None), "shape", None)
        if not shape or len(shape) != 1:
            raise ValueError(f"model {name!r} must have a flat Box observation space, got shape {shape}")
        self.model = model
        self.obs_dim = int(shape[0])
        self.name = name
        self.metadata = dict(metadata or {})
        self.deterministic = deterministic
        self.features = model_features(self.metadata, self.obs_dim)
        if self.features == "augmented" and self.obs_dim != AUGMENTED_SIZE:
            raise ValueError(
                f"model {name!r} is described as trained on the augmented features ({AUGMENTED_SIZE} entries) "
                f"but its observation space has {self.obs_dim}"
            )
        self.threads = threads

    def act(self, observation: dict[str, Any]) -> int:
        vector, mask = check_observation(observation)
        if vector.shape[0] < min(self.obs_dim, OBS_SIZE):
            raise ValueError(f"model {self.name!r} expects {self.obs_dim} observation entries, got {vector.shape[0]}")
        model_input = augment(vector) if self.features == "augmented" else vector[: self.obs_dim]
        with torch_threads(self.threads):
            action, _ = self.model.predict(
                np.asarray(model_input, dtype=np.float32),
                action_masks=mask.astype(bool),
                deterministic=self.deterministic,
            )
        action = int(np.asarray(action).reshape(-1)[0])
        if not mask[action]:
            raise ValueError(f"model {self.name!r} chose illegal action {action}")
        return action

    def __repr__(self) -> str:
        return f"SB3Policy(name={self.name!r}, obs_dim={self.obs_dim})"


FEATURES = ("augmented", "plain")


def model_features(metadata: dict[str, Any], obs_dim: int) -> str:
    """``"augmented"`` or ``"plain"``: from a model's description, else from its observation size."""
    features = metadata.get("features")
    config = metadata.get("config")
    if features is None and isinstance(config, dict):
        features = config.get("features")
    if features is None:
        return "augmented" if obs_dim == AUGMENTED_SIZE else "plain"
    if features not in FEATURES:
        raise ValueError(f"model description names unknown features {features!r} (known: {', '.join(FEATURES)})")
    return str(features)


def _read_sidecar(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ModelFileError(path, f"is not valid JSON ({_short(exc)})", "model description") from None
    if not isinstance(data, dict):
        raise ModelFileError(path, "must hold a JSON object", "model description")
    return data


def load_model_policy(path: str | os.PathLike[str], name: str | None = None, **kwargs: Any) -> SB3Policy:
    """Load a MaskablePPO ``.zip`` as an :class:`SB3Policy` (``device``, ``deterministic``, ``threads`` keywords)."""
    file = check_model_file(path, "policy model file")
    device = kwargs.pop("device", "cpu")
    deterministic = kwargs.pop("deterministic", True)
    threads = kwargs.pop("threads", INFERENCE_THREADS)
    if kwargs:
        raise ValueError(f"unknown option(s) for a model policy: {sorted(kwargs)}")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(f"loading {file} needs sb3-contrib: pip install 'gin3_env[train]' ({exc})") from None
    try:
        model = MaskablePPO.load(str(file), device=device)
    except Exception as exc:  # sb3 raises many kinds on a bad file
        raise ModelFileError(file, f"cannot be loaded as a MaskablePPO model ({_short(exc)})") from None
    metadata = _read_sidecar(file.with_suffix(".json"))
    return SB3Policy(model, name or str(metadata.get("name", file.stem)), metadata, deterministic, threads)


def load_policy(spec: Any, **kwargs: Any) -> Any:
    """A policy from a spec (see the module table); ``kwargs`` go to its constructor."""
    if not isinstance(spec, str | os.PathLike):
        if callable(getattr(spec, "act", None)):
            if kwargs:
                raise ValueError("options cannot be applied to a policy object passed in")
            return spec
        raise ValueError(
            f"policy spec must be one of {', '.join(BUILTIN_SPECS)}, a model path or an object with act(); got {spec!r}"
        )
    text = os.fspath(spec)
    if isinstance(spec, str) and text.startswith(RLLIB_PREFIX):
        from .rllib_policy import load_rllib_policy  # lazy: needs torch

        return load_rllib_policy(text[len(RLLIB_PREFIX) :], **kwargs)
    if text == "random":
        return RandomPolicy(**kwargs)
    if text == "heuristic":
        return HeuristicPolicy(**kwargs)
    if text == "search" or text.startswith("search:"):
        from .search import SearchPolicy, parse_options  # imports the compiled core (numba)

        options = parse_options(text[len("search:") :]) if text.startswith("search:") else {}
        return SearchPolicy(**{**options, **kwargs})
    if text == "trained":
        if not TRAINED_MODEL.is_file():
            raise FileNotFoundError(
                f"no trained model is shipped yet ({TRAINED_MODEL} does not exist); "
                "train one with `gin3 train` and pass its .zip path instead"
            )
        sidecar = _read_sidecar(TRAINED_SIDECAR)
        return load_model_policy(TRAINED_MODEL, name=str(sidecar.get("name", "trained")), **kwargs)
    if isinstance(spec, os.PathLike) or text.endswith(".zip") or os.sep in text or Path(text).exists():
        return load_model_policy(text, **kwargs)
    raise ValueError(f"unknown policy {text!r}: choose {policy_spec_help()}")
