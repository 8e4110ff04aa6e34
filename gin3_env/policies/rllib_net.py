"""The actor-critic network behind the RLlib backend, in plain torch (no Ray).

Both sides use this one class: the RLlib ``RLModule`` of
:mod:`gin3_env.interop.rllib_modules` wraps it for training, and
:mod:`gin3_env.policies.rllib_policy` rebuilds it from a checkpoint's weights to
play with torch alone. Keeping it free of Ray is what lets a trained RLlib agent
play in ``gin3 evaluate`` and ``gin3 play`` without a Ray install or cluster.

The network: a policy MLP and a separate value MLP on the observation vector
(tanh layers). With ``card_head`` (augmented features only) the discard and
knock logits also get a term computed by one small network shared by all 52
cards from each card's features, as the card-aware policy of the MaskablePPO
pipeline does (``training/network.py``). Illegal actions get a logit of
:data:`MASKED_LOGIT`, so their probability is exactly 0 in float32.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from ..engine.actions import DISCARD_BASE, KNOCK_BASE, NUM_ACTIONS
from ..observation.features import AUGMENTED_SIZE, CARD_PLANES, CARD_PLANES_OFFSET, EXTRA_SIZE, augment
from ..observation.layout import HAND_PLANE, MATCH_OBS_SIZE, OBS_SIZE, OPP_KNOWN_PLANE, PILE_PLANE, PLANE, TOP_PLANE

MASKED_LOGIT = -1e9
# Per-card inputs of the card head: the derived planes plus these base observation planes.
BASE_PLANES = (HAND_PLANE, TOP_PLANE, PILE_PLANE, OPP_KNOWN_PLANE)
PER_CARD = CARD_PLANES + len(BASE_PLANES)
CARD_HIDDEN = 32


FEATURES = ("augmented", "plain")
BASE_SIZES = {"hand": OBS_SIZE, "match": MATCH_OBS_SIZE}


def input_size(env: str, features: str) -> int:
    """Length of the network input for the ``"hand"`` or ``"match"`` env and the feature set."""
    return BASE_SIZES[env] + (EXTRA_SIZE if features == "augmented" else 0)


def model_input(vector: np.ndarray, base_size: int, features: str) -> np.ndarray:
    """The network input for an env observation vector: its first ``base_size`` entries, with
    ``"augmented"`` the derived features of :func:`~gin3_env.observation.features.augment` inserted
    after the hand part (the match features, if any, come last)."""
    obs = np.asarray(vector, dtype=np.float32)[:base_size]
    if features == "plain":
        return obs
    return np.concatenate([augment(obs), obs[OBS_SIZE:]])


def card_feature_index() -> torch.Tensor:
    """Indices of each card's features in an augmented observation: (PER_CARD * 52,), plane-major."""
    rows = [torch.arange(p * PLANE, (p + 1) * PLANE) for p in BASE_PLANES]
    start = CARD_PLANES_OFFSET
    rows += [torch.arange(start + p * PLANE, start + (p + 1) * PLANE) for p in range(CARD_PLANES)]
    return torch.stack(rows).reshape(-1)


def _mlp(in_dim: int, hidden: Sequence[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [nn.Linear(in_dim, size), nn.Tanh()]
        in_dim = size
    return nn.Sequential(*layers)


class MaskedActorCritic(nn.Module):
    """Policy logits (masked) and state values for gin observations of ``obs_dim`` floats."""

    def __init__(self, obs_dim: int, hidden: Sequence[int] = (256, 256), card_head: bool = False) -> None:
        super().__init__()
        if not hidden or any(int(h) <= 0 for h in hidden):
            raise ValueError(f"hidden must list layer sizes > 0, got {list(hidden)}")
        if card_head and obs_dim < AUGMENTED_SIZE:
            raise ValueError(f"card_head needs the augmented features ({AUGMENTED_SIZE}+ entries), got {obs_dim}")
        self.obs_dim = int(obs_dim)
        self.hidden = [int(h) for h in hidden]
        self.card_head = bool(card_head)
        self.pi_trunk = _mlp(obs_dim, self.hidden)
        self.pi_out = nn.Linear(self.hidden[-1], NUM_ACTIONS)
        self.vf_trunk = _mlp(obs_dim, self.hidden)
        self.vf_out = nn.Linear(self.hidden[-1], 1)
        nn.init.orthogonal_(self.pi_out.weight, gain=0.01)  # start near uniform
        nn.init.zeros_(self.pi_out.bias)
        if self.card_head:
            self.register_buffer("card_index", card_feature_index(), persistent=False)
            self.card_net = nn.Sequential(nn.Linear(PER_CARD, CARD_HIDDEN), nn.Tanh(), nn.Linear(CARD_HIDDEN, 2))
            last = self.card_net[2]
            assert isinstance(last, nn.Linear)
            nn.init.orthogonal_(last.weight, gain=0.01)
            nn.init.zeros_(last.bias)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked logits, (B, 107)."""
        out = self.pi_out(self.pi_trunk(obs))
        if self.card_head:
            index = self.get_buffer("card_index")
            cards = obs[:, index].reshape(-1, PER_CARD, PLANE).transpose(1, 2)  # (B, 52, PER_CARD)
            per_card = self.card_net(cards)  # (B, 52, 2): discard, knock
            front = torch.zeros(out.shape[0], DISCARD_BASE, dtype=out.dtype, device=out.device)
            assert KNOCK_BASE == DISCARD_BASE + PLANE
            out = out + torch.cat([front, per_card[..., 0], per_card[..., 1]], dim=1)
        return out

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Logits with every action the mask forbids set to :data:`MASKED_LOGIT`."""
        logits = self.logits(obs)
        return logits.masked_fill(mask < 0.5, MASKED_LOGIT)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """State values, (B,)."""
        return self.vf_out(self.vf_trunk(obs)).squeeze(-1)
