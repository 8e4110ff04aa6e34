"""The batched players and the learner envs, standing on the policies and the compiled core.

| module | what it holds |
|---|---|
| ``players`` | ``RandomBatch``, ``HeuristicBatch``, ``GatedBatch``, ``NetBatch``, ``ModelBatch``, ``as_batch`` |
| ``learner`` | :class:`LearnerHands`: learner role, opponents, duplicate-reward twins |
| ``gym_env``, ``sb3_env`` | :func:`vector_env` (Gymnasium ``VectorEnv``), :func:`sb3_vec_env` (SB3 ``VecEnv``) |
| ``datasets`` | heuristic decisions for imitation |

:class:`VectorHands`, :data:`OUTCOME_NAMES`, :func:`check_decks` and :func:`set_num_threads`
are the compiled core's (:mod:`gin3_env.kernels`), exported here too; its named errors of
misuse, naming the hand, are in :mod:`gin3_env.errors`.

Importing this package imports numba but compiles nothing; the kernels compile on first
use. ``import gin3_env`` does not import this package.
"""

from typing import Any

from ..kernels.hands import OUTCOME_NAMES, VectorHands, check_decks
from ..kernels.threads import set_num_threads
from .learner import LearnerHands
from .players import GatedBatch, HeuristicBatch, ModelBatch, NetBatch, RandomBatch, as_batch


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
    "GatedBatch",
    "HeuristicBatch",
    "LearnerHands",
    "ModelBatch",
    "NetBatch",
    "RandomBatch",
    "VectorHands",
    "as_batch",
    "check_decks",
    "sb3_vec_env",
    "set_num_threads",
    "vector_env",
]
