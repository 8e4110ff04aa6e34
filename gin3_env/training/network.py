"""A card-aware policy for MaskablePPO.

A plain MLP must learn, for each of the 52 discard actions separately, that the
logit of "discard c" should follow the features of card c. Here the discard and
knock logits get an extra term shared by all cards: a small network applied to
each card's feature vector (the per-card planes of ``observation/features.py``),
added to the usual MLP head. The value head is the usual MLP.
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

from ..engine.actions import DISCARD_BASE, KNOCK_BASE, NUM_ACTIONS
from ..observation.features import CARD_PLANES, CARD_PLANES_OFFSET
from ..observation.layout import HAND_PLANE, OPP_KNOWN_PLANE, PILE_PLANE, PLANE, TOP_PLANE

# Per-card inputs: the derived planes plus these base observation planes.
BASE_PLANES = (HAND_PLANE, TOP_PLANE, PILE_PLANE, OPP_KNOWN_PLANE)
PER_CARD = CARD_PLANES + len(BASE_PLANES)


def card_feature_index() -> torch.Tensor:
    """Indices into the augmented observation: (PER_CARD, 52)."""
    rows = [torch.arange(p * PLANE, (p + 1) * PLANE) for p in BASE_PLANES]
    start = CARD_PLANES_OFFSET
    rows += [torch.arange(start + p * PLANE, start + (p + 1) * PLANE) for p in range(CARD_PLANES)]
    return torch.stack(rows)


class CardAwareExtractor(nn.Module):
    """The usual MLP extractor whose actor latent also carries each card's features."""

    def __init__(self, feature_dim: int, net_arch: Any, activation_fn: type[nn.Module], device: Any) -> None:
        super().__init__()
        self.mlp = MlpExtractor(feature_dim, net_arch, activation_fn, device)
        self.register_buffer("index", card_feature_index().reshape(-1), persistent=False)
        self.latent_dim_pi = self.mlp.latent_dim_pi + PER_CARD * PLANE
        self.latent_dim_vf = self.mlp.latent_dim_vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.mlp.forward_actor(features), features[:, self.index]], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.mlp.forward_critic(features)


class CardAwareHead(nn.Module):
    """Logits = Linear(MLP latent) + per-card network outputs on the discard/knock slots."""

    def __init__(self, hidden: int, card_hidden: int = 32) -> None:
        super().__init__()
        self.hidden = hidden
        self.linear = nn.Linear(hidden, NUM_ACTIONS)
        self.card_net = nn.Sequential(nn.Linear(PER_CARD, card_hidden), nn.Tanh(), nn.Linear(card_hidden, 2))
        for layer in (self.linear, self.card_net[2]):  # start near uniform, as SB3 does
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        base = self.linear(latent[:, : self.hidden])
        cards = latent[:, self.hidden :].reshape(-1, PER_CARD, PLANE).transpose(1, 2)  # (B, 52, PER_CARD)
        per_card = self.card_net(cards)  # (B, 52, 2): discard, knock
        front = torch.zeros(base.shape[0], DISCARD_BASE, dtype=base.dtype, device=base.device)
        extra = torch.cat([front, per_card[..., 0], per_card[..., 1]], dim=1)
        assert extra.shape[1] == NUM_ACTIONS and KNOCK_BASE == DISCARD_BASE + PLANE
        return base + extra


class CardAwarePolicy(MaskableActorCriticPolicy):
    """``MaskablePPO(CardAwarePolicy, env)`` on the augmented observation (586 entries)."""

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = CardAwareExtractor(self.features_dim, self.net_arch, self.activation_fn, self.device)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = CardAwareHead(self.mlp_extractor.mlp.latent_dim_pi)
        # super()._build made the optimizer before the head was replaced: rebuild it.
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
