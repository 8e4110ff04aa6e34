"""gin3_env: three-handed gin rummy ("in the box") for reinforcement learning.

The rules engine and what a player knows live in :mod:`gin3_env.engine` (pure
Python and numpy); the observation encoding in :mod:`gin3_env.observation`; the
PettingZoo and Gymnasium environments in :mod:`gin3_env.envs`. Importing the
package registers the environment ids with PettingZoo and Gymnasium when those
libraries are installed; without them the engine, the observation encoding and
the built-in policies still work, and ``gin3_env.env`` says what to install.
"""

from typing import Any

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
from .envs.opponents import set_policy_loader as _set_policy_loader
from .envs.registration import register_available as _register_available
from .envs.registration import set_vector_entry_point as _set_vector_entry_point
from .observation.features import set_batch_encoder as _set_batch_encoder
from .policies.loading import load_policy as _load_policy

_set_policy_loader(_load_policy)  # the envs take opponents by name without importing the policies


def _augment_batch(observations: Any) -> Any:
    from .kernels.features import augment_batch  # the compiled core (numba), imported on first use

    return augment_batch(observations)


_set_batch_encoder("augmented", _augment_batch)  # the augmented features' batched encoder, compiled

_ENV_LIBRARIES = ("pettingzoo", "gymnasium")
_ENV_NAMES = ("env", "raw_env", "match_env", "match_raw_env")
_envs_missing: ModuleNotFoundError | None = None
try:
    from .envs.aec_hand import env, raw_env
    from .envs.aec_match import env as match_env
    from .envs.aec_match import raw_env as match_raw_env
except ModuleNotFoundError as exc:  # an environment library is not installed
    if exc.name not in _ENV_LIBRARIES:
        raise
    _envs_missing = exc

# gymnasium.make_vec of the hand id is the batched core (a string: nothing is imported until make_vec)
_set_vector_entry_point("gin3/ThreeHandedGin-v0", "gin3_env.vector.gym_env:make_vec")
_register_available()  # PettingZoo and Gymnasium ids, for the libraries that import (idempotent)

__version__ = "0.1.0"


def vector_env(num_envs: int = 64, **kwargs: object) -> object:
    """A Gymnasium ``VectorEnv`` on the batched core (``gin3_env.vector``; imports numba on first use)."""
    from .vector import vector_env as make

    return make(num_envs, **kwargs)


def sb3_vec_env(num_envs: int = 64, **kwargs: object) -> object:
    """A stable-baselines3 ``VecEnv`` on the batched core that ``MaskablePPO`` trains on as it is."""
    from .vector import sb3_vec_env as make

    return make(num_envs, **kwargs)


def __getattr__(name: str) -> Any:
    if name in _ENV_NAMES and _envs_missing is not None:
        raise ImportError(
            f"gin3_env.{name} needs {_envs_missing.name}, which is not installed "
            f"(pip install gymnasium pettingzoo): {_envs_missing}"
        )
    raise AttributeError(f"module 'gin3_env' has no attribute {name!r}")


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
