"""One schema for a hand's result in the envs' infos: numbers only, the same keys on every step.

Learning libraries stack infos step by step and turn them into tensors (Tianshou's buffers,
Gymnasium's vector envs and its ``NumpyToTorch``, TorchRL's ``PettingZooWrapper``, which builds
its info spec from ``torch.as_tensor`` of each value at ``reset``): a key that comes and goes, a
``None``, a text or a nested dict reads there as missing data or fails. So every env's info
holds the same keys from ``reset`` on, each an int, a float, a bool or a fixed-shape numeric
array, and a field that does not apply holds a sentinel (docs/design.md §5). The text (the
outcome's name, the spreads, the layoffs) is on the env's ``result`` (the engine's
:class:`~gin3_env.engine.HandResult`), where people read it.

| key | value | before the hand ends, or where it does not apply |
|---|---|---|
| ``outcome`` | int, :data:`OUTCOME_CODES`: 1 gin, 2 knock, 3 undercut, 4 dead, 5 truncated | ``0`` (in play) |
| ``knocker``, ``winner`` | int: the player (hand env: 0 the team, 1 the box; match env: the seat 0..2) | ``-1`` |
| ``points`` | int: the winner's points | ``0`` |
| ``knocker_deadwood``, ``defender_deadwood`` | int | ``-1`` |
| ``knock_discard`` | int: the card the knocker discarded, ``suit * 13 + rank`` (``card_str`` names it) | ``-1`` |

The codes, one table for every env (:func:`outcome_name` turns a code back into its name):

| code | ``outcome`` | a player (hand env) | a role (match env: ``roles``, ``hand_roles``) |
|---|---|---|---|
| -1 | | none | |
| 0 | in play | the team (``team_0``, ``"team"``) | the captain |
| 1 | gin | the box (``box_0``, ``"box"``) | the box |
| 2 | knock | | the sitter |
| 3 | undercut | | |
| 4 | dead | | |
| 5 | truncated | | |
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine.match import Roles
from ..engine.result import OUTCOMES, HandResult

NOT_APPLICABLE = -1  # the sentinel of a player, a card or a deadwood that does not apply
OUTCOME_CODES = {name: code for code, name in enumerate(OUTCOMES)}  # "in_play" 0, "gin" 1, ... "truncated" 5
ROLE_CODES = {"captain": 0, "box": 1, "sitter": 2}  # the captain plays the team's hand (0), the box its own (1)

__all__ = ["NOT_APPLICABLE", "OUTCOME_CODES", "ROLE_CODES", "outcome_name", "result_info", "role_codes"]


def outcome_name(code: int) -> str:
    """The name of an ``outcome`` code (``"in_play"``, ``"gin"``, ``"knock"``, ...)."""
    if not 0 <= int(code) < len(OUTCOMES):
        raise ValueError(f"an outcome code is 0..{len(OUTCOMES) - 1}, got {code}")
    return OUTCOMES[int(code)]


def role_codes(roles: Roles) -> np.ndarray:
    """int64 (3,): the role code (:data:`ROLE_CODES`) of each seat."""
    codes = np.empty(3, dtype=np.int64)
    for name, code in ROLE_CODES.items():
        codes[getattr(roles, name)] = code
    return codes


def result_info(result: HandResult | None, players: Sequence[int] = (0, 1)) -> dict[str, Any]:
    """The result fields of the module doc; the hand's team and box are coded ``players[0]`` and
    ``players[1]`` (the match env: their seats). ``result=None`` (a hand in play) gives every
    field its sentinel."""

    def code(value: int | None, of: Sequence[int] | None = None) -> int:
        if value is None:
            return NOT_APPLICABLE
        return int(of[value]) if of is not None else int(value)

    if result is None:
        return {"outcome": 0, "knocker": NOT_APPLICABLE, "winner": NOT_APPLICABLE, "points": 0,
                "knocker_deadwood": NOT_APPLICABLE, "defender_deadwood": NOT_APPLICABLE,
                "knock_discard": NOT_APPLICABLE}
    return {
        "outcome": OUTCOME_CODES[result.outcome],
        "knocker": code(result.knocker, players),
        "winner": code(result.winner, players),
        "points": int(result.points),
        "knocker_deadwood": code(result.knocker_deadwood),
        "defender_deadwood": code(result.defender_deadwood),
        "knock_discard": code(result.knock_discard),
    }
