"""``load_policy(spec)``: built-in players, the shipped model, or a saved model file.

| spec                     | result                                                       |
|--------------------------|--------------------------------------------------------------|
| ``"random"``             | :class:`RandomPolicy` (``seed=`` keyword)                    |
| ``"heuristic"``          | :class:`HeuristicPolicy` (config keywords)                   |
| ``"search"``             | :class:`~gin3_env.policies.search.SearchPolicy` (``seed=``, ``rules=``, option keywords) |
| ``"search:k=v,..."``     | the same with options, e.g. ``"search:samples=16,time_budget=none"`` |
| ``"trained"``            | the model shipped as ``gin3_env/models/trained.zip``         |
| a path to a ``.zip``     | a saved sb3-contrib ``MaskablePPO`` model as :class:`SB3Policy` |
| an object with ``act()`` | returned as is                                               |

A missing file raises ``FileNotFoundError`` naming it, an unreadable one
``ValueError`` naming it, an unknown name ``ValueError`` listing the choices.
``sb3_contrib`` (the ``train`` extra) is imported only when a model is loaded.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.observation import OBS_SIZE
from .decode import check_observation
from .features import AUGMENTED_SIZE, augment
from .heuristic import HeuristicPolicy
from .random_policy import RandomPolicy

BUILTIN_SPECS = ("random", "heuristic", "trained", "search")
MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
TRAINED_MODEL = MODELS_DIR / "trained.zip"
TRAINED_SIDECAR = MODELS_DIR / "trained.json"


class SB3Policy:
    """A saved sb3-contrib ``MaskablePPO`` model acting from the observation dict.

    ``act`` calls ``model.predict(obs["observation"][:obs_dim], action_masks=mask,
    deterministic=True)``, where ``obs_dim`` is the model's observation size (a
    hand model can thus play in the match environment, whose vector is longer).
    A model trained on the derived features (``obs_dim == AUGMENTED_SIZE``) gets
    :func:`~gin3_env.policies.features.augment` of the observation instead.
    """

    def __init__(
        self,
        model: Any,
        name: str = "model",
        metadata: dict[str, Any] | None = None,
        deterministic: bool = True,
    ) -> None:
        shape = getattr(getattr(model, "observation_space", None), "shape", None)
        if not shape or len(shape) != 1:
            raise ValueError(f"model {name!r} must have a flat Box observation space, got shape {shape}")
        self.model = model
        self.obs_dim = int(shape[0])
        self.name = name
        self.metadata = dict(metadata or {})
        self.deterministic = deterministic

    def act(self, observation: dict[str, Any]) -> int:
        vector, mask = check_observation(observation)
        if vector.shape[0] < min(self.obs_dim, OBS_SIZE):
            raise ValueError(f"model {self.name!r} expects {self.obs_dim} observation entries, got {vector.shape[0]}")
        model_input = augment(vector) if self.obs_dim == AUGMENTED_SIZE else vector[: self.obs_dim]
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


def _read_sidecar(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"model description {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"model description {path} must hold a JSON object")
    return data


def load_model_policy(path: str | os.PathLike[str], name: str | None = None, **kwargs: Any) -> SB3Policy:
    """Load a MaskablePPO ``.zip`` as an :class:`SB3Policy` (``device``, ``deterministic`` keywords)."""
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"policy model file not found: {file}")
    device = kwargs.pop("device", "cpu")
    deterministic = kwargs.pop("deterministic", True)
    if kwargs:
        raise ValueError(f"unknown option(s) for a model policy: {sorted(kwargs)}")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(f"loading {file} needs sb3-contrib: pip install 'gin3_env[train]' ({exc})") from None
    try:
        model = MaskablePPO.load(str(file), device=device)
    except Exception as exc:  # sb3 raises many kinds on a bad file
        raise ValueError(f"cannot load a MaskablePPO model from {file}: {type(exc).__name__}: {exc}") from None
    metadata = _read_sidecar(file.with_suffix(".json"))
    return SB3Policy(model, name or str(metadata.get("name", file.stem)), metadata, deterministic)


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
    raise ValueError(
        f"unknown policy {text!r}: choose one of {', '.join(BUILTIN_SPECS)} or a path to a saved model (.zip)"
    )
