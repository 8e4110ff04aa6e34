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

from collections.abc import Sequence

from .loading import unknown_policy
from .registry import find_row

__all__ = ["check_policy_spec", "policy_spec_files"]


def check_policy_spec(spec: str, also: Sequence[str] = ()) -> None:
    """Refuse ``spec`` now, as :func:`~gin3_env.policies.load_policy` would later (see the module doc): its
    registry row's check; ``also``: the other names the command accepts there, offered with the players in a
    refusal."""
    row = find_row(spec)
    if row is None:
        raise unknown_policy(spec, also)
    row.check(spec)


def policy_spec_files(spec: str) -> list[str]:
    """The files a spec names, which a command reads and so must never write: a gate file, a model file and
    its description (``M.zip`` and ``M.json``), a ``search:`` option's gate file, an RLlib checkpoint folder
    (its registry row's ``files``). Names only, whether or not they exist (the caller compares them with its
    outputs)."""
    row = find_row(spec)
    return [spec] if row is None else row.files(spec)
