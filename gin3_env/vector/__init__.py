"""The batched, compiled core (numba): many hands per call, and the learner envs on top.

Importing this package compiles nothing; the kernels compile on first use (numba's
cache on, in ``__pycache__`` beside the code, or numba's user cache directory where that
is read-only). ``import gin3_env`` does not import this package.
"""

from typing import Any

from .hands import OUTCOME_NAMES, VectorHands, check_decks
from .learner import LearnerHands
from .players import HeuristicBatch, ModelBatch, RandomBatch, as_batch


def vector_env(num_envs: int = 64, **kwargs: Any) -> Any:
    """A Gymnasium ``VectorEnv`` of learner hands (:mod:`gin3_env.vector.gym_env`)."""
    from .gym_env import vector_env as make

    return make(num_envs, **kwargs)


def sb3_vec_env(num_envs: int = 64, **kwargs: Any) -> Any:
    """A stable-baselines3 ``VecEnv`` of learner hands (:mod:`gin3_env.vector.sb3_env`; needs SB3)."""
    from .sb3_env import sb3_vec_env as make

    return make(num_envs, **kwargs)


__all__ = [
    "OUTCOME_NAMES",
    "HeuristicBatch",
    "LearnerHands",
    "ModelBatch",
    "RandomBatch",
    "VectorHands",
    "as_batch",
    "check_decks",
    "sb3_vec_env",
    "vector_env",
]
