"""The batched, compiled core (numba): many hands per call, and the learner envs on top.

Importing this package compiles nothing; the kernels compile on first use (numba's
cache on, in ``__pycache__`` beside the code, or numba's user cache directory where that
is read-only). ``import gin3_env`` does not import this package.
"""

from .hands import OUTCOME_NAMES, VectorHands, check_decks

__all__ = ["OUTCOME_NAMES", "VectorHands", "check_decks"]
