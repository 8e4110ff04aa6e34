"""The card-aware actor-critic network, in plain torch: one definition for every trainer and loader.

A plain MLP must learn, for each of the 52 discard actions separately, that the
logit of "discard c" should follow the features of card c. The card-aware
network adds to the discard and knock logits a term shared by all cards: a small
network (:class:`CardNet`, ``PER_CARD -> CARD_HIDDEN -> 2``, tanh) applied to
each card's features, read from the augmented observation
(:data:`gin3_env.observation.features.AUGMENTED`): the base planes
:data:`BASE_PLANES` and the derived per-card planes.

- :class:`CardNet`: the per-card network and :meth:`CardNet.action_logits`, its
  term on the 107 logits;
- :class:`CardAwareActorHead`: a linear layer on a latent vector plus that term
  (the SB3 adapter's action head, :mod:`gin3_env.policies.sb3_network`);
- :class:`MaskedActorCritic`: a policy MLP and a value MLP with the same term
  (the RLlib module's network, :mod:`gin3_env.policies.rllib_net`).

The per-card work is fused: every card of every row goes through one wide
matmul per layer, ``(CARD_HIDDEN, PER_CARD) @ (PER_CARD, B * 52)``, with no
loop per card, and the tanh is computed as a sigmoid (far cheaper in torch on
CPU) whose affine parts are folded into the two layers.
:meth:`CardNet.reference_action_logits` is the same function in its plain form,
which the tests and ``gin3_env.benchmarks.network`` compare it with.
Importing this module imports torch; the package imports it only when a
network is built.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ..engine.actions import DISCARD_BASE, KNOCK_BASE, NUM_ACTIONS
from ..observation.features import AUGMENTED_SIZE, CARD_PLANES, CARD_PLANES_OFFSET
from ..observation.layout import HAND_PLANE, OPP_KNOWN_PLANE, PILE_PLANE, PLANE, TOP_PLANE

MASKED_LOGIT = -1e9  # the logit of an illegal action: probability exactly 0 in float32
BASE_PLANES = (HAND_PLANE, TOP_PLANE, PILE_PLANE, OPP_KNOWN_PLANE)  # per-card inputs from the base observation
PER_CARD = len(BASE_PLANES) + CARD_PLANES  # inputs of the per-card network
CARD_HIDDEN = 32
CARD_OUTPUTS = 2  # the card's discard logit term, its knock logit term
assert KNOCK_BASE == DISCARD_BASE + PLANE and NUM_ACTIONS == KNOCK_BASE + PLANE


def card_feature_index() -> torch.Tensor:
    """Indices of each card's features in an augmented observation: ``(PER_CARD * 52,)``, plane-major
    (the base planes of :data:`BASE_PLANES`, then the derived per-card planes)."""
    rows = [torch.arange(p * PLANE, (p + 1) * PLANE) for p in BASE_PLANES]
    start = CARD_PLANES_OFFSET
    rows += [torch.arange(start + p * PLANE, start + (p + 1) * PLANE) for p in range(CARD_PLANES)]
    return torch.stack(rows).reshape(-1)


def init_near_uniform(layer: nn.Linear) -> None:
    """Small orthogonal weights and zero bias on an output layer, so training starts near uniform (as SB3 does)."""
    nn.init.orthogonal_(layer.weight, gain=0.01)
    nn.init.zeros_(layer.bias)


class CardNet(nn.Sequential):
    """``Linear(PER_CARD, hidden) -> tanh -> Linear(hidden, 2)`` applied to every card (its state dict
    keys are those of that ``nn.Sequential``: ``0.weight``, ``0.bias``, ``2.weight``, ``2.bias``)."""

    def __init__(self, hidden: int = CARD_HIDDEN) -> None:
        super().__init__(nn.Linear(PER_CARD, hidden), nn.Tanh(), nn.Linear(hidden, CARD_OUTPUTS))

    @property
    def hidden_layer(self) -> nn.Linear:
        layer = self[0]
        assert isinstance(layer, nn.Linear)
        return layer

    @property
    def output_layer(self) -> nn.Linear:
        layer = self[2]
        assert isinstance(layer, nn.Linear)
        return layer

    def action_logits(self, cards: torch.Tensor) -> torch.Tensor:
        """The term on the 107 logits, ``(B, 107)``: 0 before the discards, then each card's discard
        term, then its knock term. ``cards`` is ``(B, PER_CARD * 52)``, plane-major (the columns of
        :func:`card_feature_index`)."""
        batch = cards.shape[0]
        # (B, PER_CARD, 52) -> (PER_CARD, B * 52): one column per card of every observation
        columns = cards.reshape(batch, PER_CARD, PLANE).transpose(0, 1).reshape(PER_CARD, batch * PLANE)
        first, last = self.hidden_layer, self.output_layer
        # tanh(z) = 2 sigmoid(2z) - 1, and sigmoid costs a fraction of tanh: the doubling goes into
        # the first layer's weights (exact in float), the affine map into the second layer's
        hidden = torch.sigmoid(torch.addmm((first.bias * 2)[:, None], first.weight * 2, columns))  # (hidden, B*52)
        out = torch.addmm((last.bias - last.weight.sum(1))[:, None], last.weight * 2, hidden)  # (2, B*52)
        per_card = out.reshape(CARD_OUTPUTS, batch, PLANE).transpose(0, 1).reshape(batch, CARD_OUTPUTS * PLANE)
        return nn.functional.pad(per_card, (DISCARD_BASE, 0))

    def reference_action_logits(self, cards: torch.Tensor) -> torch.Tensor:
        """:meth:`action_logits` in its plain form: the ``nn.Sequential`` on a ``(B, 52, PER_CARD)`` tensor,
        tanh included (for tests and benchmarks)."""
        batch = cards.shape[0]
        per_card = self(cards.reshape(batch, PER_CARD, PLANE).transpose(1, 2))  # (B, 52, 2)
        front = torch.zeros(batch, DISCARD_BASE, dtype=per_card.dtype, device=per_card.device)
        return torch.cat([front, per_card[..., 0], per_card[..., 1]], dim=1)


class CardAwareActorHead(nn.Module):
    """Logits = ``Linear(latent[:, :hidden])`` + :meth:`CardNet.action_logits` of ``latent[:, hidden:]``
    (the latent carries the actor's MLP output, then each card's features). The card features are
    observation entries: no gradient is computed for them."""

    def __init__(self, hidden: int, card_hidden: int = CARD_HIDDEN) -> None:
        super().__init__()
        self.hidden = hidden
        self.linear = nn.Linear(hidden, NUM_ACTIONS)
        self.card_net = CardNet(card_hidden)
        init_near_uniform(self.linear)
        init_near_uniform(self.card_net.output_layer)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        base = self.linear(latent[:, : self.hidden])
        return base + self.card_net.action_logits(latent[:, self.hidden :].detach())


def _mlp(in_dim: int, hidden: Sequence[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [nn.Linear(in_dim, size), nn.Tanh()]
        in_dim = size
    return nn.Sequential(*layers)


class MaskedActorCritic(nn.Module):
    """Policy logits (masked) and state values for gin observations of ``obs_dim`` floats: a policy
    MLP and a separate value MLP (tanh layers); with ``card_head`` (the augmented features) the
    :class:`CardNet` term on the discard and knock logits."""

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
        init_near_uniform(self.pi_out)
        if self.card_head:
            self.register_buffer("card_index", card_feature_index(), persistent=False)
            self.card_net = CardNet()
            init_near_uniform(self.card_net.output_layer)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked logits, (B, 107)."""
        out = self.pi_out(self.pi_trunk(obs))
        if self.card_head:
            out = out + self.card_net.action_logits(obs[:, self.get_buffer("card_index")])
        return out

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Logits with every action the mask forbids set to :data:`MASKED_LOGIT`."""
        logits = self.logits(obs)
        return logits.masked_fill(mask < 0.5, MASKED_LOGIT)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """State values, (B,)."""
        return self.vf_out(self.vf_trunk(obs)).squeeze(-1)
