"""Play an RLlib checkpoint of ``gin3 train --backend rllib`` with torch alone (no Ray).

``load_policy("rllib:PATH")`` lands here. ``PATH`` is the checkpoint folder
(``RUN_DIR/checkpoint``). Two files in it are read, neither needs Ray:

- ``gin3_policy.json``, written by the trainer beside RLlib's own files: the
  env the policy was trained on, its features, its network
  (:class:`~gin3_env.policies.network.MaskedActorCritic`: ``hidden``,
  ``card_head``) and which module plays which seat;
- each module's weights, ``learner_group/learner/rl_module/<module>/module_state.pkl``:
  RLlib writes them as a pickled dict of numpy arrays. They are read with an
  unpickler that accepts nothing but that (a dict of arrays), so a foreign or
  tampered file is refused instead of run. A module id in ``play_modules`` must be
  one plain name of a module folder inside the checkpoint (no path, no ``..``).

The policy acts deterministically (the most likely legal action) unless
``deterministic=False``. A checkpoint trained on the hand env also plays in the
match env (it reads the hand part of the longer observation, as
:class:`~gin3_env.policies.SB3Policy` does); one trained on the match env plays
a lone hand as at the start of a match (its role from the hand, every score 0).
With one module per seat (``policies: per_seat``) the
observation's role picks the team's or the box's module.
"""

from __future__ import annotations

import json
import os
import pickle
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..observation.decoding import check_observation
from ..observation.layout import MATCH_OBS_SIZE, MATCH_ROLE_OFFSET, OBS_SIZE, ROLE_OFFSET
from .network import MaskedActorCritic
from .rllib_net import BASE_SIZES, FEATURES, input_size, model_input

SIDECAR = "gin3_policy.json"
FORMAT = "gin3-rllib-checkpoint"
FORMAT_VERSION = 1
MODULE_DIR = Path("learner_group") / "learner" / "rl_module"
MODULE_STATE = "module_state.pkl"
STATE_PREFIX = "net."
MODULE_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")  # a module id: one plain name, no path

_ALLOWED_GLOBALS = {
    ("collections", "OrderedDict"),
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy._core.numeric", "_frombuffer"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.multiarray", "scalar"),
}


class _WeightsUnpickler(pickle.Unpickler):
    """Unpickles a dict of numpy arrays and nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"unexpected object {module}.{name} in a weights file")


def read_module_weights(file: Path) -> dict[str, torch.Tensor]:
    """The ``net.*`` weights of one RLlib module state file, as tensors without the prefix."""
    try:
        with open(file, "rb") as fh:
            state = _WeightsUnpickler(fh).load()
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"cannot read RLlib module weights {file}: {exc}") from None
    if not isinstance(state, dict | OrderedDict):
        raise ValueError(f"RLlib module weights {file} hold a {type(state).__name__}, not a dict of arrays")
    weights: dict[str, torch.Tensor] = {}
    for key, value in state.items():
        if not isinstance(key, str) or not isinstance(value, np.ndarray):
            raise ValueError(f"RLlib module weights {file}: entry {key!r} is not a named array")
        if key.startswith(STATE_PREFIX):
            weights[key[len(STATE_PREFIX) :]] = torch.from_numpy(np.array(value))
    if not weights:
        raise ValueError(f"RLlib module weights {file} hold no gin3 network weights ('{STATE_PREFIX}*')")
    return weights


def read_sidecar(folder: Path) -> dict[str, Any]:
    """The checkpoint's ``gin3_policy.json``, checked; ``ValueError`` naming what is wrong."""
    file = folder / SIDECAR
    if not file.is_file():
        what = "an RLlib checkpoint" if (folder / "rllib_checkpoint.json").is_file() else "a checkpoint folder"
        raise ValueError(
            f"{folder} is {what} not written by `gin3 train --backend rllib` (it has no {SIDECAR})"
        )
    try:
        meta = json.loads(file.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{file} is not valid JSON: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{file} does not describe a gin3 RLlib checkpoint (format {FORMAT!r})")
    if meta.get("version") != FORMAT_VERSION:
        raise ValueError(
            f"{file}: unsupported checkpoint version {meta.get('version')!r} (this gin3 reads {FORMAT_VERSION})"
        )
    env, features = meta.get("env"), meta.get("features")
    if env not in BASE_SIZES or features not in FEATURES:
        raise ValueError(f"{file}: bad env {env!r} or features {features!r}")
    seats = meta.get("play_modules")
    if not isinstance(seats, dict) or not seats or not all(isinstance(v, str) for v in seats.values()):
        raise ValueError(f"{file}: 'play_modules' must map roles to module names")
    return meta


def module_weights_file(folder: Path, module_id: str) -> Path:
    """The weights file of ``module_id`` inside the checkpoint ``folder``: the id must be one plain
    name (no path separator, no ``..``) of a module folder the checkpoint holds; ``ValueError`` else."""
    modules = folder / MODULE_DIR
    if not MODULE_ID.fullmatch(module_id) or ".." in module_id:
        raise ValueError(f"{folder / SIDECAR}: module id {module_id!r} in 'play_modules' is not a plain module name")
    present = sorted(p.name for p in modules.iterdir() if p.is_dir()) if modules.is_dir() else []
    if module_id not in present:
        raise ValueError(
            f"RLlib checkpoint {folder} has no module {module_id!r} (it holds: {', '.join(present) or 'none'})"
        )
    file = modules / module_id / MODULE_STATE
    if not file.resolve().is_relative_to(folder.resolve()):
        raise ValueError(f"RLlib checkpoint {folder}: the weights of module {module_id!r} lie outside it ({file})")
    return file


def hand_as_match(vector: np.ndarray) -> np.ndarray:
    """A hand observation with the match features of a match's start: the seat's role
    (the team's side is the captain), every score 0."""
    out = np.zeros(MATCH_OBS_SIZE, dtype=np.float32)
    out[:OBS_SIZE] = vector[:OBS_SIZE]
    team = vector[ROLE_OFFSET] >= vector[ROLE_OFFSET + 1]
    out[MATCH_ROLE_OFFSET + (1 if team else 0)] = 1.0  # match roles: box, captain, sitter
    return out


class RLlibPolicy:
    """A trained RLlib module (or one per role) acting from the observation dict."""

    def __init__(
        self,
        nets: dict[str, MaskedActorCritic],
        meta: dict[str, Any],
        name: str = "rllib",
        deterministic: bool = True,
        seed: int | None = None,
    ) -> None:
        self.nets = nets
        self.metadata = dict(meta)
        self.name = name
        self.deterministic = deterministic
        self.env: str = meta["env"]
        self.features: str = meta["features"]
        self.base_size = BASE_SIZES[self.env]
        self.play_modules: dict[str, str] = dict(meta["play_modules"])
        self._rng = np.random.default_rng(seed)

    def module_for(self, vector: np.ndarray) -> MaskedActorCritic:
        if "any" in self.play_modules:
            return self.nets[self.play_modules["any"]]
        role = "team" if vector[ROLE_OFFSET] >= vector[ROLE_OFFSET + 1] else "box"
        return self.nets[self.play_modules[role]]

    @torch.no_grad()
    def act(self, observation: dict[str, Any]) -> int:
        vector, mask = check_observation(observation)
        if vector.shape[0] < self.base_size:
            vector = hand_as_match(vector)
        net = self.module_for(vector)
        x = torch.from_numpy(model_input(vector, self.base_size, self.features)).unsqueeze(0)
        m = torch.from_numpy(np.asarray(mask, dtype=np.float32)).unsqueeze(0)
        threads = torch.get_num_threads()
        if threads != 1:  # one observation gains nothing from more threads; on a busy machine they cost ~8x
            torch.set_num_threads(1)
        try:
            logits = net.masked_logits(x, m)[0]
        finally:
            if threads != 1:
                torch.set_num_threads(threads)
        if self.deterministic:
            action = int(torch.argmax(logits))
        else:
            probs = torch.softmax(logits, dim=0).numpy().astype(np.float64)
            action = int(self._rng.choice(len(probs), p=probs / probs.sum()))
        if not mask[action]:
            raise ValueError(f"policy {self.name!r} chose illegal action {action}")
        return action

    def __repr__(self) -> str:
        return f"RLlibPolicy(name={self.name!r}, env={self.env!r}, modules={sorted(self.nets)})"


def load_rllib_policy(
    path: str | os.PathLike[str], deterministic: bool = True, seed: int | None = None, name: str | None = None
) -> RLlibPolicy:
    """Load ``RUN_DIR/checkpoint`` (see the module docstring) as an :class:`RLlibPolicy`."""
    folder = Path(path)
    if not folder.exists():
        raise FileNotFoundError(f"RLlib checkpoint not found: {folder}")
    if not folder.is_dir():
        raise ValueError(f"an RLlib checkpoint is a folder (RUN_DIR/checkpoint), but {folder} is a file")
    meta = read_sidecar(folder)
    size = input_size(meta["env"], meta["features"])
    nets: dict[str, MaskedActorCritic] = {}
    for module_id in sorted(set(meta["play_modules"].values())):
        file = module_weights_file(folder, module_id)
        if not file.is_file():
            raise ValueError(f"RLlib checkpoint {folder} lacks the weights of module {module_id!r} ({file})")
        try:
            net = MaskedActorCritic(size, hidden=meta.get("hidden", [256, 256]), card_head=bool(meta.get("card_head")))
            net.load_state_dict(read_module_weights(file))
        except (RuntimeError, TypeError) as exc:
            raise ValueError(f"module {module_id!r} of {folder} does not fit its {SIDECAR}: {exc}") from None
        net.eval()
        nets[module_id] = net
    return RLlibPolicy(nets, meta, name or str(meta.get("name", folder.parent.name)), deterministic, seed)
