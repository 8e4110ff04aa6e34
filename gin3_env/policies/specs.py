"""``check_policy_spec(spec)``: whether :func:`~gin3_env.policies.load_policy` can use a spec, without loading it.

A command that takes several specs (``gin3 evaluate A B``) checks them all first, so a
missing file in any position is refused at once, before a model is loaded (which
imports torch). The check reads the file and its description but not its weights, so
imports no torch (:func:`~gin3_env.policies.check_model_file` with ``weights=False``): an unknown
name is a ``ValueError`` naming the closest and listing the choices, a missing
model file or checkpoint folder a ``FileNotFoundError``, a damaged model file a
:class:`~gin3_env.policies.ModelFileError`, a bad ``search:`` option a ``ValueError``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .loading import (
    BUILTIN_SPECS,
    GATE_MODEL,
    NET_MODEL,
    PPO_MODEL,
    RLLIB_PREFIX,
    check_model_file,
    unknown_policy,
)

__all__ = ["check_policy_spec", "policy_spec_files"]


def check_policy_spec(spec: str, also: Sequence[str] = ()) -> None:
    """Refuse ``spec`` now, as :func:`~gin3_env.policies.load_policy` would later (see the module doc);
    ``also``: the other names the command accepts there, offered with the players in a refusal."""
    if spec.startswith(RLLIB_PREFIX):
        folder = Path(spec[len(RLLIB_PREFIX) :])
        if not folder.exists():
            raise FileNotFoundError(f"RLlib checkpoint not found: {folder}")
        if not folder.is_dir():
            raise ValueError(f"an RLlib checkpoint is a folder (RUN_DIR/checkpoint), but {folder} is a file")
        return
    if spec.startswith("search:"):
        from .search import parse_options

        parse_options(spec[len("search:") :])
        return
    if spec == "trained" or spec.endswith(".json"):
        from .gate_file import load_gated

        load_gated(GATE_MODEL if spec == "trained" else spec)
        return
    if spec == "net" or spec.endswith(".npz"):
        from .net import load_net

        load_net(NET_MODEL if spec == "net" else spec)
        return
    if spec == "ppo":
        check_model_file(PPO_MODEL, "shipped model file", weights=False)
        return
    if spec in BUILTIN_SPECS:
        return
    if spec.endswith(".zip") or os.sep in spec or Path(spec).exists():
        check_model_file(spec, "policy model file", weights=False)
        return
    raise unknown_policy(spec, also)


def policy_spec_files(spec: str) -> list[str]:
    """The files a spec names, which a command reads and so must never write: a gate file, a model file and
    its description (``M.zip`` and ``M.json``), a ``search:`` option's gate file, an RLlib checkpoint folder.
    Names only, whether or not they exist (the caller compares them with its outputs)."""
    if spec.startswith(RLLIB_PREFIX):
        return [spec[len(RLLIB_PREFIX) :]]
    if spec.startswith("search:"):  # each option's value, and a model file's description beside it
        values = [item.partition("=")[2].strip() for item in spec[len("search:") :].split(",") if "=" in item]
        return [name for value in values if value and not value.startswith("search:")
                for name in dict.fromkeys([value, *policy_spec_files(value)])]
    if spec in BUILTIN_SPECS or spec in ("trained", "ppo"):
        return []
    return [spec, str(Path(spec).with_suffix(".json"))] if spec.endswith(".zip") else [spec]
