"""The batched, compiled core (numba): many hands per call, and the learner envs on top.

| module | what it holds |
|---|---|
| ``tables`` | lookup tables, built from the scalar engine's own |
| ``meld_kernels`` | deadwood, knock deadwoods, best arrangement, the showdown |
| ``hand_kernels`` | deal, legal mask, one move, the observation |
| ``hands`` | :class:`VectorHands` (DESIGN.md, "Batched core") |
| ``heuristic_kernels``, ``players`` | :class:`RandomBatch`, :class:`HeuristicBatch`, :class:`ModelBatch` |
| ``features`` | the 586-entry learner input, batched |
| ``learner`` | :class:`LearnerHands`: learner role, opponents, duplicate-reward twins |
| ``gym_env``, ``sb3_env`` | :func:`vector_env` (Gymnasium ``VectorEnv``), :func:`sb3_vec_env` (SB3 ``VecEnv``) |
| ``datasets`` | heuristic decisions for imitation |
| ``errors`` | the named errors of misuse (subclasses of :mod:`gin3_env.envs.errors`) naming the hand |

Importing this package imports numba but compiles nothing; the kernels compile on first
use (numba's cache on: ``__pycache__`` beside the code, or numba's user cache directory where
that is read-only). ``import gin3_env`` does not import this package.
"""

from typing import Any

from .hands import OUTCOME_NAMES, VectorHands, check_decks
from .learner import LearnerHands
from .players import HeuristicBatch, ModelBatch, RandomBatch, as_batch
from .threads import set_num_threads


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
    "set_num_threads",
    "vector_env",
]
