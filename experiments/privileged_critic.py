"""The card-aware policy with a critic that sees the deal (perfect training, imperfect execution).

:class:`PrivilegedCriticPolicy` is :class:`~gin3_env.policies.sb3_network.CardAwarePolicy` on rows
of ``obs_features`` observation entries followed by the privileged state
(:mod:`gin3_env.observation.state`), as :class:`experiments.privileged_env.PrivilegedStateVecEnv`
gives them (the state, or the opponent's view and the state):

- the actor (its MLP and the card-aware head) reads the first ``obs_features`` columns only, so
  no action logit depends on the state;
- two critics: the ordinary one on the observation (the card-aware policy's own MLP and value
  head, the same parameter names) and a privileged one on observation and state; ``critic``
  (``"state"`` or ``"observation"``) names the one PPO's values come from. Both are trained by
  the warm start; only the chosen one by PPO.

Since the actor and the ordinary critic keep the card-aware policy's parameter names,
:func:`card_aware_state_dict` gives the weights of a plain ``CardAwarePolicy`` on the observation
alone: the player exported from a run (``experiments.privileged``) loads and acts without
the privileged critic. The class lives with the trainer, not with the policies: no player reads
the state, and the model files of this package never name this class.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from gin3_env.observation.state import STATE_SIZE
from gin3_env.policies.sb3_network import CardAwareExtractor, CardAwarePolicy

CRITICS = ("state", "observation")


def value_sizes(net_arch: Any) -> list[int]:
    """The critic's hidden layer sizes in an SB3 ``net_arch`` (a list, or a dict with ``vf``)."""
    sizes = net_arch.get("vf", []) if isinstance(net_arch, dict) else list(net_arch or [])
    return [int(s) for s in sizes]


class PrivilegedExtractor(CardAwareExtractor):
    """The card-aware extractor on the first ``obs_features`` columns, plus a critic MLP on all of
    them. ``forward_critic`` returns both critic latents side by side (observation, then state)."""

    def __init__(self, obs_features: int, feature_dim: int, net_arch: Any, activation_fn: type[nn.Module],
                 device: Any) -> None:
        super().__init__(obs_features, net_arch, activation_fn, device)
        self.obs_features = int(obs_features)
        layers: list[nn.Module] = []
        width = feature_dim
        for size in value_sizes(net_arch):
            layers += [nn.Linear(width, size), activation_fn()]
            width = size
        self.state_net = nn.Sequential(*layers).to(device)
        self.latent_dim_state = width
        self.latent_dim_vf = self.mlp.latent_dim_vf + width

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return super().forward_actor(features[:, : self.obs_features])

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.mlp.forward_critic(features[:, : self.obs_features]), self.state_net(features)], dim=1)


class TwoValueHeads(nn.Module):
    """A value head on each critic latent; ``forward`` gives the chosen critic's values (B, 1),
    :meth:`both` both critics' (B, 2: observation, state)."""

    def __init__(self, observation_dim: int, state_dim: int, critic: str) -> None:
        super().__init__()
        if critic not in CRITICS:
            raise ValueError(f"critic must be one of {CRITICS}, got {critic!r}")
        self.split = int(observation_dim)
        self.observation = nn.Linear(observation_dim, 1)
        self.state = nn.Linear(state_dim, 1)
        self.critic = critic

    def both(self, latent: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.observation(latent[:, : self.split]), self.state(latent[:, self.split :])], dim=1)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        if self.critic == "state":
            return self.state(latent[:, self.split :])
        return self.observation(latent[:, : self.split])


class PrivilegedCriticPolicy(CardAwarePolicy):
    """See the module doc. ``obs_features``: the observation's size in each input row (the rest is
    privileged); ``critic``: ``"state"`` (the privileged critic) or ``"observation"``."""

    def __init__(self, *args: Any, obs_features: int, critic: str = "state", **kwargs: Any) -> None:
        if critic not in CRITICS:
            raise ValueError(f"critic must be one of {CRITICS}, got {critic!r}")
        self.obs_features = int(obs_features)
        self.critic = critic
        super().__init__(*args, **kwargs)
        if self.features_dim < self.obs_features + STATE_SIZE:
            raise ValueError(f"PrivilegedCriticPolicy needs rows of {self.obs_features} observation entries "
                             f"and at least the {STATE_SIZE}-entry state after them, got {self.features_dim} entries")

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = PrivilegedExtractor(  # type: ignore[assignment]
            self.obs_features, self.features_dim, self.net_arch, self.activation_fn, self.device
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        extractor = self.mlp_extractor
        assert isinstance(extractor, PrivilegedExtractor)
        heads = TwoValueHeads(extractor.mlp.latent_dim_vf, extractor.latent_dim_state, self.critic)
        for head in (heads.observation, heads.state):  # as SB3 initialises its value head
            nn.init.orthogonal_(head.weight, gain=1.0)
            nn.init.zeros_(head.bias)
        self.value_net = heads.to(self.device)  # type: ignore[assignment]
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(obs_features=self.obs_features, critic=self.critic)
        return data

    def both_values(self, obs: torch.Tensor) -> torch.Tensor:
        """Both critics' values, (B, 2): observation, state."""
        features = self.extract_features(obs, self.vf_features_extractor)
        assert isinstance(features, torch.Tensor) and isinstance(self.value_net, TwoValueHeads)
        return self.value_net.both(self.mlp_extractor.forward_critic(features))


def card_aware_state_dict(policy: PrivilegedCriticPolicy) -> dict[str, torch.Tensor]:
    """The weights of a plain :class:`CardAwarePolicy` on the observation: the actor, and the
    ordinary critic as its value head (nothing of the privileged critic)."""
    out: dict[str, torch.Tensor] = {}
    for key, value in policy.state_dict().items():
        if key.startswith("mlp_extractor.state_net."):
            continue
        if key.startswith("value_net.state."):
            continue
        if key.startswith("value_net.observation."):
            key = "value_net." + key.removeprefix("value_net.observation.")
        out[key] = value.detach().clone()
    return out
