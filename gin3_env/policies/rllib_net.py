"""The RLlib backend's view of the card-aware network and the feature sets (plain torch, no Ray).

Both sides use these names: the RLlib ``RLModule`` of
:mod:`gin3_env.interop.rllib_modules` wraps :class:`MaskedActorCritic` for
training, and :mod:`gin3_env.policies.rllib_policy` rebuilds it from a
checkpoint's weights to play with torch alone. Keeping it free of Ray is what
lets a trained RLlib agent play in ``gin3 evaluate`` and ``gin3 play`` without a
Ray install or cluster. The network itself is the one of
:mod:`gin3_env.policies.network` (the card-aware term shared with the
MaskablePPO policy), the inputs those of
:class:`~gin3_env.observation.features.FeatureSet`.
"""

from __future__ import annotations

import numpy as np

from ..observation.features import FEATURE_NAMES, feature_set
from ..observation.layout import MATCH_OBS_SIZE, OBS_SIZE
from .network import BASE_PLANES, CARD_HIDDEN, MASKED_LOGIT, PER_CARD, card_feature_index

FEATURES = FEATURE_NAMES
BASE_SIZES = {"hand": OBS_SIZE, "match": MATCH_OBS_SIZE}

__all__ = [
    "BASE_PLANES",
    "BASE_SIZES",
    "CARD_HIDDEN",
    "FEATURES",
    "MASKED_LOGIT",
    "PER_CARD",
    "card_feature_index",
    "input_size",
    "model_input",
]


def input_size(env: str, features: str) -> int:
    """Length of the network input for the ``"hand"`` or ``"match"`` env and the feature set."""
    return feature_set(features).input_size(BASE_SIZES[env])


def model_input(vector: np.ndarray, base_size: int, features: str) -> np.ndarray:
    """The network input for an env observation vector: its first ``base_size`` entries, with
    ``"augmented"`` the derived features inserted after the hand part (the match features, if
    any, come last): :meth:`~gin3_env.observation.features.FeatureSet.encode`."""
    return feature_set(features).encode(vector, base_size)
