"""The environments: PettingZoo AEC (one hand, a match), Gymnasium single-agent, registration.

- :mod:`.aec_hand`: ``env()``/``raw_env()``, one hand, agents ``team_0`` and ``box_0``;
- :mod:`.aec_match`: ``env()``/``raw_env()``, a match, agents ``player_0..2``;
- :mod:`.aec_base`, :mod:`.wrapping`: what the AEC envs share; PettingZoo's wrapper stack;
- :mod:`.single_agent` (and :mod:`.single_agent_match`): Gymnasium envs, a learner against a policy
  (:mod:`.opponents`);
- :mod:`.augmented`: the Gymnasium wrapper adding the derived card features;
- :mod:`.registration`: the PettingZoo and Gymnasium ids.

The observation vector and the action mask are built in :mod:`gin3_env.observation`.
The names below are imported when first used, so ``gin3_env.envs.registration``
loads without PettingZoo.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "env": ("aec_hand", "env"),
    "raw_env": ("aec_hand", "raw_env"),
    "replay": ("aec_hand", "replay"),
    "match_env": ("aec_match", "env"),
    "match_raw_env": ("aec_match", "raw_env"),
}

__all__ = ["env", "match_env", "match_raw_env", "raw_env", "replay"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
