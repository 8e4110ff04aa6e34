"""The card-aware network as a stable-baselines3 policy: ``MaskablePPO(CardAwarePolicy, env)``.

A thin adapter over :mod:`gin3_env.policies.network`: SB3's MLP extractor whose
actor latent also carries each card's features, and
:class:`~gin3_env.policies.network.CardAwareActorHead` as the action head. The
value head is SB3's usual MLP. Models saved with it name this class; the model
file loader (:mod:`gin3_env.policies.model_file`) rebuilds it by name, never by
unpickling. Importing this module imports torch and sb3-contrib.
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

from ..observation.layout import PLANE
from .network import PER_CARD, CardAwareActorHead, card_feature_index


class CardAwareExtractor(nn.Module):
    """The usual MLP extractor whose actor latent also carries each card's features."""

    def __init__(self, feature_dim: int, net_arch: Any, activation_fn: type[nn.Module], device: Any) -> None:
        super().__init__()
        self.mlp = MlpExtractor(feature_dim, net_arch, activation_fn, device)
        self.register_buffer("index", card_feature_index(), persistent=False)
        self.latent_dim_pi = self.mlp.latent_dim_pi + PER_CARD * PLANE
        self.latent_dim_vf = self.mlp.latent_dim_vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.mlp.forward_actor(features), features[:, self.get_buffer("index")]], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.mlp.forward_critic(features)


class CardAwarePolicy(MaskableActorCriticPolicy):
    """``MaskablePPO(CardAwarePolicy, env)`` on the augmented observation (586 entries)."""

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = CardAwareExtractor(  # type: ignore[assignment]
            self.features_dim, self.net_arch, self.activation_fn, self.device
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        extractor = self.mlp_extractor
        assert isinstance(extractor, CardAwareExtractor)
        self.action_net = CardAwareActorHead(extractor.mlp.latent_dim_pi)
        # super()._build made the optimizer before the head was replaced: rebuild it.
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )
