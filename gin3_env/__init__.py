"""gin3_env: three-handed gin rummy ("in the box") for reinforcement learning.

The rules engine lives in :mod:`gin3_env.engine`; the PettingZoo and Gymnasium
environments in :mod:`gin3_env.envs`. Importing the package registers the
environment ids with PettingZoo and Gymnasium.
"""

from .engine.actions import (
    DRAW_STOCK,
    NUM_ACTIONS,
    PASS,
    TAKE_DISCARD,
    action_str,
    discard_action,
    knock_action,
)
from .engine.cards import card_points, card_str, parse_card, parse_cards
from .engine.melds import Arrangement, best_arrangement, deadwood, knock_deadwoods
from .engine.rules import Rules
from .envs.aec_hand import env, raw_env
from .envs.aec_match import env as match_env
from .envs.aec_match import raw_env as match_raw_env
from .envs.registration import register_all as _register_all

_register_all()  # PettingZoo and Gymnasium ids (idempotent); see envs/registration.py

__version__ = "0.1.0"


def vector_env(num_envs: int = 64, **kwargs: object) -> object:
    """A Gymnasium ``VectorEnv`` on the batched core (``gin3_env.vector``; imports numba on first use)."""
    from .vector import vector_env as make

    return make(num_envs, **kwargs)


def sb3_vec_env(num_envs: int = 64, **kwargs: object) -> object:
    """A stable-baselines3 ``VecEnv`` on the batched core that ``MaskablePPO`` trains on as it is."""
    from .vector import sb3_vec_env as make

    return make(num_envs, **kwargs)


__all__ = [
    "DRAW_STOCK",
    "NUM_ACTIONS",
    "PASS",
    "TAKE_DISCARD",
    "Arrangement",
    "Rules",
    "__version__",
    "action_str",
    "best_arrangement",
    "card_points",
    "card_str",
    "deadwood",
    "discard_action",
    "env",
    "knock_action",
    "knock_deadwoods",
    "match_env",
    "match_raw_env",
    "parse_card",
    "parse_cards",
    "raw_env",
    "sb3_vec_env",
    "vector_env",
]
