"""Derived card features for learning agents, computed from what the player knows alone.

Compiled twin: :func:`gin3_env.kernels.features.augment_batch`, tied by ``tests/test_vector_players.py``.

The environments' observation is kept minimal (what the player knows). A learner
trains far faster when meld arithmetic is handed to it, so :func:`augment`
appends features that are pure functions of what the observation already shows
(own cards, the discard pile, the opponent's known cards). Trained policies
apply the same function at play time, so they still act from the observation only.

Per-card planes (52 each, after the base 374 entries), read by the card-aware
network (``policies/network.py``) for the discard and knock logits:

| plane | feature for card ``c`` of the hand                                          |
|-------|-----------------------------------------------------------------------------|
| 0     | deadwood of the hand without ``c`` / 100 (the effect of discarding it)      |
| 1     | 1 if ``c`` is in a meld of the hand's best arrangement                      |
| 2     | unseen cards that would join the hand without ``c`` into a meld / 20 (outs) |
| 3     | 1 if ``c`` would join the opponent's known cards into a meld (danger)        |

Then four scalars, meaningful in the draw phases: deadwood after taking the top
discard and the best discard / 100; 1 if that lowers the deadwood; 1 if the top
discard joins a meld of the hand; unseen cards / 52.

:func:`augment` computes them from an observation vector (what a trained policy
gets), :func:`augment_view` from a :class:`~gin3_env.engine.PlayerView` (what an
environment holds); both give the same numbers. The Gymnasium wrapper that adds them
to an env's observations is :class:`gin3_env.envs.augmented.AugmentedObservation`.

A :class:`FeatureSet` names one choice of learner input: :data:`AUGMENTED` (these
features) or :data:`PLAIN` (the observation as it is). Every trainer, learner env
and model loader takes its input size and encoders from one (:func:`feature_set`
by name, :func:`features_for_size` for a model without a description).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..engine.melds import best_arrangement, deadwood_of_mask, knock_deadwoods
from ..engine.phases import Phase
from ..engine.view import PlayerView
from .decoding import plane_mask
from .layout import (
    HAND_PLANE,
    OBS_SIZE,
    OPP_KNOWN_PLANE,
    PHASE_OFFSET,
    PILE_PLANE,
    PLANE,
    TOP_PLANE,
)

CARD_PLANES = 4
EXTRA_SCALARS = 4
EXTRA_SIZE = CARD_PLANES * PLANE + EXTRA_SCALARS
AUGMENTED_SIZE = OBS_SIZE + EXTRA_SIZE  # 586
CARD_PLANES_OFFSET = OBS_SIZE  # where the per-card planes start in an augmented vector
# where each per-card plane and the scalars start among the derived features (the table above)
DEADWOOD_AT, IN_MELD_AT, OUTS_AT, DANGER_AT = (k * PLANE for k in range(CARD_PLANES))
SCALARS_AT = CARD_PLANES * PLANE
SUIT = 0x1FFF
_PHASE_DISCARD = int(Phase.DISCARD)


def meld_outs(hand: int) -> int:
    """Cards that would make a 3-card meld with two cards of ``hand`` or extend a run of it."""
    s = (hand & SUIT, hand >> 13 & SUIT, hand >> 26 & SUIT, hand >> 39 & SUIT)
    pairs = (s[0] & s[1]) | (s[0] & s[2]) | (s[0] & s[3]) | (s[1] & s[2]) | (s[1] & s[3]) | (s[2] & s[3])
    out = 0
    for k, m in enumerate(s):
        near = (m << 1 & m << 2) | (m >> 1 & m << 1) | (m >> 1 & m >> 2)
        out |= ((near | pairs) & SUIT & ~m) << (13 * k)
    return out


def card_features(hand: int, top: int, pile: int, opp_known: int, discard_phase: bool) -> np.ndarray:
    """The derived features (``EXTRA_SIZE`` floats) of a hand, the top discard (a mask, 0 if
    none), the rest of the pile and the opponent's known cards (masks)."""
    extra = np.zeros(EXTRA_SIZE, dtype=np.float32)
    seen = hand | top | pile | opp_known
    unseen = ((1 << 52) - 1) & ~seen
    danger = meld_outs(opp_known)
    if hand:
        for card, dw in knock_deadwoods(hand).items():
            extra[DEADWOOD_AT + card] = dw / 100.0
            outs = (meld_outs(hand & ~(1 << card)) & unseen).bit_count()
            extra[OUTS_AT + card] = min(outs / 20.0, 1.0)
            extra[DANGER_AT + card] = float(danger >> card & 1)
        for meld in best_arrangement(hand).melds:
            extra[IN_MELD_AT + np.asarray(meld)] = 1.0
    base = SCALARS_AT
    if top and not discard_phase and not hand & top:
        after = min(knock_deadwoods(hand | top).values())
        extra[base] = after / 100.0
        extra[base + 1] = float(after < deadwood_of_mask(hand))
        extra[base + 2] = float(bool(meld_outs(hand) & top))
    extra[base + 3] = unseen.bit_count() / 52.0
    return extra


def augment(observation: np.ndarray) -> np.ndarray:
    """The base observation (first 374 entries of any observation) and the derived features."""
    obs = np.asarray(observation, dtype=np.float32)
    extra = card_features(
        plane_mask(obs, HAND_PLANE),
        plane_mask(obs, TOP_PLANE),
        plane_mask(obs, PILE_PLANE),
        plane_mask(obs, OPP_KNOWN_PLANE),
        bool(obs[PHASE_OFFSET + _PHASE_DISCARD] >= 0.5),
    )
    return np.concatenate([obs[:OBS_SIZE], extra])


def augment_view(view: PlayerView, observation: np.ndarray) -> np.ndarray:
    """:func:`augment` of ``observation`` (the encoding of ``view``), read from the view itself."""
    top = 0 if view.top is None else 1 << view.top
    extra = card_features(view.hand, top, view.pile_mask, view.opponent_known, view.phase is Phase.DISCARD)
    return np.concatenate([np.asarray(observation, dtype=np.float32)[:OBS_SIZE], extra])


_BATCH_ENCODERS: dict[str, Callable[[np.ndarray], np.ndarray]] = {}


def set_batch_encoder(name: str, encoder: Callable[[np.ndarray], np.ndarray]) -> None:
    """Install the batched encoder of the feature set ``name``. The one of the augmented features is
    compiled, in the batched core above this layer; ``import gin3_env`` installs it (importing the
    core only when it first runs)."""
    _BATCH_ENCODERS[name] = encoder


def _augment_batch(observations: np.ndarray) -> np.ndarray:
    encoder = _BATCH_ENCODERS.get("augmented")
    if encoder is None:  # pragma: no cover - the package's __init__ installs it
        raise RuntimeError("the batched encoder of the augmented features is not installed (import gin3_env)")
    return encoder(observations)


def _plain_batch(observations: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(observations[:, :OBS_SIZE], dtype=np.float32)


def _plain(observation: np.ndarray) -> np.ndarray:
    return np.asarray(observation, dtype=np.float32)[:OBS_SIZE]


def _plain_view(view: PlayerView, observation: np.ndarray) -> np.ndarray:
    return _plain(observation)


@dataclass(frozen=True)
class FeatureSet:
    """One choice of learner input: ``name``, ``extra`` derived entries placed after the hand
    observation's 374, and the encoders of one observation, of one view and of a batch.

    For a longer observation (the match env's, ``base_size`` entries) the derived entries go
    after the hand part and the rest follows: ``input_size(base_size)`` entries in all."""

    name: str
    extra: int
    _encode: Callable[[np.ndarray], np.ndarray]
    _encode_view: Callable[[PlayerView, np.ndarray], np.ndarray]
    _encode_batch: Callable[[np.ndarray], np.ndarray]

    @property
    def size(self) -> int:
        """Length of the input for a hand observation (374 + ``extra``)."""
        return OBS_SIZE + self.extra

    @property
    def card_planes(self) -> bool:
        """Whether the input holds the per-card planes the card-aware network reads."""
        return self.extra >= CARD_PLANES * PLANE

    def input_size(self, base_size: int = OBS_SIZE) -> int:
        """Length of the input for observations of ``base_size`` entries."""
        return int(base_size) + self.extra

    def encode(self, observation: np.ndarray, base_size: int = OBS_SIZE) -> np.ndarray:
        """float32 (``input_size(base_size)``,): the input for one observation vector (its first
        ``base_size`` entries)."""
        obs = np.asarray(observation, dtype=np.float32)
        if base_size < OBS_SIZE:
            return self._short(base_size, obs)
        head = self._encode(obs)
        return head if base_size == OBS_SIZE else np.concatenate([head, obs[OBS_SIZE:base_size]])

    def _short(self, base_size: int, obs: np.ndarray) -> np.ndarray:
        """The first ``base_size`` (< 374) entries: an input that holds no derived features."""
        if self.extra:
            raise ValueError(f"the {self.name} features need the {OBS_SIZE} entries of a hand observation, "
                             f"got base_size {base_size}")
        return np.ascontiguousarray(obs[..., :base_size])

    def encode_view(self, view: PlayerView, observation: np.ndarray) -> np.ndarray:
        """:meth:`encode` of a hand ``observation`` (the encoding of ``view``), read from the view itself."""
        return self._encode_view(view, observation)

    def encode_batch(self, observations: np.ndarray, base_size: int = OBS_SIZE) -> np.ndarray:
        """float32 (B, ``input_size(base_size)``): :meth:`encode` of each row, compiled where it computes."""
        obs = np.asarray(observations, dtype=np.float32)
        if base_size < OBS_SIZE:
            return self._short(base_size, obs)
        if obs.ndim != 2 or obs.shape[1] < base_size:
            raise ValueError(f"observations must have shape (B, >= {base_size}), got {obs.shape}")
        head = self._encode_batch(obs)
        return head if base_size == OBS_SIZE else np.concatenate([head, obs[:, OBS_SIZE:base_size]], axis=1)

    def __repr__(self) -> str:
        return f"FeatureSet({self.name!r}, size={self.size})"


AUGMENTED = FeatureSet("augmented", EXTRA_SIZE, augment, augment_view, _augment_batch)
PLAIN = FeatureSet("plain", 0, _plain, _plain_view, _plain_batch)
FEATURE_SETS = {fs.name: fs for fs in (AUGMENTED, PLAIN)}
FEATURE_NAMES = tuple(FEATURE_SETS)


def feature_set(name: str | FeatureSet) -> FeatureSet:
    """The feature set named ``name`` (``"augmented"`` or ``"plain"``); ``ValueError`` naming the choices."""
    if isinstance(name, FeatureSet):
        return name
    found = FEATURE_SETS.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"unknown features {name!r} (known: {', '.join(FEATURE_NAMES)})")
    return found


def features_for_size(obs_dim: int) -> FeatureSet:
    """The feature set of a model without a description: augmented for an input of its size, else plain."""
    return AUGMENTED if obs_dim == AUGMENTED.size else PLAIN
