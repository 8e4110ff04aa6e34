"""Baseline players that act from the observation dict a learning agent gets.

A policy is any object with ``act(observation: dict) -> int`` returning a
legal action, where the dict is ``{"observation": float32 vector (the layout
of :mod:`gin3_env.observation.layout`, possibly with match features appended),
"action_mask": int8 (107,)}``.

- :class:`RandomPolicy` (``seed``): uniform over the legal actions.
- :class:`HeuristicPolicy`: a strong rule-based player (see its module).
- :class:`SearchPolicy`: decision-time search over states drawn from a particle belief
  (:mod:`.search`, :mod:`.belief`; the compiled core is imported when one is built).
- :func:`load_policy`: ``"random"``, ``"heuristic"``, ``"search"``, ``"gated"``, a path to a
  saved MaskablePPO ``.zip`` (an :class:`SB3Policy`), ``"rllib:PATH"``, or a policy object
  passed through; :func:`policy_spec_help` lists the specs in one line, :func:`check_policy_spec`
  refuses a bad one without loading it. Each spec is a row of :data:`PLAYER_ROWS` (:mod:`.registry`).
"""

from ..kernels.heuristic_params import HeuristicConfig
from .heuristic import SIMPLE, HeuristicPolicy
from .loading import SB3Policy, check_model_file, load_model_policy, load_policy, policy_spec_help
from .model_fields import ModelFileError
from .opponent_model import set_spec_tools
from .random_policy import RandomPolicy
from .registry import PLAYER_ROWS, PlayerRow, find_row
from .search import SearchConfig, SearchPolicy
from .specs import check_policy_spec, policy_spec_files

# the search's opponent=SPEC and rollout_policy=SPEC load through them, and a spec's batched form is its row's
set_spec_tools(load_policy, check_policy_spec, find_row)

__all__ = [
    "PLAYER_ROWS",
    "SIMPLE",
    "HeuristicConfig",
    "HeuristicPolicy",
    "ModelFileError",
    "PlayerRow",
    "RandomPolicy",
    "SB3Policy",
    "SearchConfig",
    "SearchPolicy",
    "check_model_file",
    "check_policy_spec",
    "load_model_policy",
    "load_policy",
    "policy_spec_files",
    "policy_spec_help",
]
