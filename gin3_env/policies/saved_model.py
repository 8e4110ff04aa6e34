"""A saved sb3-contrib ``MaskablePPO`` model as a player (:class:`SB3Policy`): the ``ppo`` player and a ``.zip``.

A model acts with **one torch thread** unless told otherwise (``threads=``
keyword; ``None`` leaves torch's own setting): a policy's forward pass is one
observation, far too small for several threads, and torch's default of one
thread per core made the same evaluation 3x slower, and sometimes 10x, as soon
as another process kept a core busy. The setting applies only while the model
acts (:func:`torch_threads`), so a training loop's own thread count is kept.

A model file is read once as data, never unpickled (:mod:`gin3_env.policies.model_file`),
and played by its actor network alone (:mod:`gin3_env.policies.player`: no SB3
trainer is built); ``trust_pickle=True`` is the explicit opt-in to SB3's own loader,
which runs code from the file. A model file that is missing, empty, not a zip, truncated,
corrupted (a checksum fails), a zip that is not a saved model, or one holding a
pickled field or class this package does not know raises :class:`ModelFileError` (a
``ValueError``; :class:`MissingModelFileError`, also a ``FileNotFoundError``,
for a missing one) with one line naming the file and what is wrong
(:func:`check_model_file`); an unknown name is a ``ValueError`` listing the choices.
torch is imported only when a model or an ``rllib:`` checkpoint is loaded,
``sb3_contrib`` (the ``train`` extra) only for a trusted file (Ray is never needed to play one).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..files import InputFileError, read_json
from ..observation.decoding import check_observation
from ..observation.features import FEATURE_NAMES, FeatureSet, feature_set, features_for_size
from ..observation.layout import OBS_SIZE
from .model_fields import ModelFileError
from .model_file import is_trusted, load_sb3_model, read_model_file

__all__ = ["INFERENCE_THREADS", "SB3Policy", "check_model_file", "load_model_policy", "model_features", "read_sidecar",
           "torch_threads"]

MAX_SIDECAR_BYTES = 1 << 20  # a model's description (best.json): a few lines
INFERENCE_THREADS = 1  # torch threads while a model acts (see the module doc)


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
        self.feature_set: FeatureSet = feature_set(self.features)
        if self.feature_set.extra and self.obs_dim != self.feature_set.size:
            raise ValueError(
                f"model {name!r} is described as trained on the {self.features} features "
                f"({self.feature_set.size} entries) but its observation space has {self.obs_dim}"
            )
        self.base_size = self.obs_dim - self.feature_set.extra  # observation entries the input is made of
        self.threads = threads

    def act(self, observation: dict[str, Any]) -> int:
        vector, mask = check_observation(observation)
        if vector.shape[0] < min(self.obs_dim, OBS_SIZE):
            raise ValueError(f"model {self.name!r} expects {self.obs_dim} observation entries, got {vector.shape[0]}")
        model_input = self.feature_set.encode(vector, self.base_size)
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


def model_features(metadata: dict[str, Any], obs_dim: int) -> str:
    """``"augmented"`` or ``"plain"``: from a model's description, else from its observation size."""
    features = metadata.get("features")
    config = metadata.get("config")
    if features is None and isinstance(config, dict):
        features = config.get("features")
    if features is None:
        return features_for_size(obs_dim).name
    if features not in FEATURE_NAMES:
        raise ValueError(f"model description names unknown features {features!r} (known: {', '.join(FEATURE_NAMES)})")
    return str(features)


def read_sidecar(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = read_json(path, "model description", MAX_SIDECAR_BYTES)
    except InputFileError as exc:
        raise ModelFileError(path, exc.reason, "model description") from None
    if not isinstance(data, dict):
        raise ModelFileError(path, "must hold a JSON object", "model description")
    return data


def check_model_file(path: str | os.PathLike[str], what: str = "model file", weights: bool = True) -> Path:
    """``path`` if it is a model file a player can be made of, else :class:`ModelFileError` saying why:
    :func:`~gin3_env.policies.model_file.read_model_file`'s checks and, with ``weights``, its weights
    fitting the network its description names (:func:`~gin3_env.policies.player.build_player`).
    ``weights=False`` reads the file and its description only, and imports no torch."""
    model = read_model_file(path, what, weights=weights)
    if weights and model.description is not None:
        from .player import build_player  # imports torch

        build_player(model)
    return Path(path)


def load_model_policy(path: str | os.PathLike[str], name: str | None = None, **kwargs: Any) -> SB3Policy:
    """Load a MaskablePPO ``.zip`` as an :class:`SB3Policy` (``device``, ``deterministic``, ``threads``
    keywords): read once as data and its actor network built alone (:mod:`.player`, no SB3 trainer);
    ``trust_pickle=True`` opens it with SB3's own loader instead, which runs code from the file: only
    for a file you trust (the env checks are made either way)."""
    file = Path(path)
    device = kwargs.pop("device", "cpu")
    deterministic = kwargs.pop("deterministic", True)
    threads = kwargs.pop("threads", INFERENCE_THREADS)
    trust_pickle = kwargs.pop("trust_pickle", False)
    if kwargs:
        raise ValueError(f"unknown option(s) for a model policy: {sorted(kwargs)}")
    if not isinstance(trust_pickle, bool):
        raise ValueError(f"trust_pickle must be True or False, got {trust_pickle!r}")
    if trust_pickle or is_trusted(file):
        model: Any = load_sb3_model(file, device=device, trust_pickle=True, what="policy model file")
    else:
        from .player import load_player  # imports torch, never stable-baselines3

        model = load_player(file, "policy model file", device)
    metadata = read_sidecar(file.with_suffix(".json"))
    return SB3Policy(model, name or str(metadata.get("name", file.stem)), metadata, deterministic, threads)


# the optional modules a player may need, and the extra that installs each
