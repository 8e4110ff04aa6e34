"""A saved MaskablePPO model as a player: the actor network built from the file's description, no trainer.

:func:`load_player` reads the file once (:func:`~gin3_env.policies.model_file.read_model_file`:
the size limits, the zip, the env checks, every serialized field recognised from its readable
description, every ``.pth`` member through torch's weights-only reader and checked finite),
then builds :class:`PlayerNetwork` from what the description names (the policy class, the
observation size, ``net_arch`` and ``activation_fn``) and loads the actor's weights of
``policy.pth`` into it, every one checked for its name and shape. Nothing of the file reaches
``gym.make``, an import or a second open, and no stable-baselines3 trainer is built (which
took seconds): a player loads in a few tens of milliseconds once torch is imported.

The network has the layout of SB3's policies, so the weights load by their own names:

- ``MaskableActorCriticPolicy`` (``"MlpPolicy"``): ``mlp_extractor.policy_net`` (Linear and the
  activation, per ``net_arch``'s actor layers) and ``action_net`` (Linear to the 107 logits);
- gin3's ``CardAwarePolicy`` (:mod:`gin3_env.policies.sb3_network`): the same MLP under
  ``mlp_extractor.mlp.policy_net`` and :class:`~gin3_env.policies.network.CardAwareActorHead` as
  ``action_net`` (the per-card term on each card's features).

The value network's weights are in the file too; a player does not use them. :meth:`PlayerNetwork.predict`
answers as SB3's ``model.predict(obs, action_masks=..., deterministic=...)`` does (masked logits
at ``-1e8``, the most probable legal action, or one drawn from the masked distribution).
Importing this module imports torch.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from ..engine.actions import NUM_ACTIONS
from ..observation.features import AUGMENTED_SIZE
from .model_fields import SERIALIZED, ModelFileError
from .model_file import ModelFile, read_model_file
from .network import CARD_HIDDEN, CardAwareActorHead, CardNet, card_feature_index

__all__ = ["PlayerNetwork", "build_player", "load_player", "network_spec"]

MASK_VALUE = -1e8  # what sb3-contrib's masked distribution sets an illegal action's logit to
DEFAULT_NET_ARCH = (64, 64)  # SB3's actor layers when the model names none
POLICY_KWARGS = ("net_arch", "activation_fn", "ortho_init", "share_features_extractor", "normalize_images",
                 "optimizer_kwargs")  # the policy_kwargs a player understands (the last four change no actor weight)
MAX_LAYERS, MAX_WIDTH = 16, 65536
VALUE_KEYS = ("mlp_extractor.value_net.", "mlp_extractor.mlp.value_net.", "value_net.")


def network_spec(model: ModelFile) -> tuple[list[int], str]:
    """(the actor's hidden layer sizes, the activation's name) from the file's ``policy_kwargs``."""
    desc = model.description
    assert desc is not None
    entry = model.data.get("policy_kwargs")
    if desc.policy_kwargs is not None:
        kwargs: dict[str, Any] = dict(desc.policy_kwargs)
    elif isinstance(entry, dict) and SERIALIZED not in entry:
        kwargs = {k: v for k, v in entry.items() if k != ":type:"}
    elif entry is None:
        kwargs = {}
    else:
        raise ModelFileError(model.path, "holds 'policy_kwargs' that are not a dict", model.what)
    unknown = sorted(set(kwargs) - set(POLICY_KWARGS))
    if unknown:
        raise ModelFileError(model.path, "names policy_kwargs gin3's player network does not have "
                             f"({', '.join(unknown)}"
                             f"; it knows {', '.join(POLICY_KWARGS)})", model.what)
    arch = kwargs.get("net_arch")
    if arch is None:
        arch = list(DEFAULT_NET_ARCH)
    elif isinstance(arch, dict):
        arch = arch.get("pi", [])
    if isinstance(arch, list) and len(arch) == 1 and isinstance(arch[0], dict):  # SB3 < 1.8's [dict(pi=...)]
        arch = arch[0].get("pi", [])
    ok = isinstance(arch, list) and len(arch) <= MAX_LAYERS and all(
        isinstance(h, int) and not isinstance(h, bool) and 0 < h <= MAX_WIDTH for h in arch)
    if not ok:
        raise ModelFileError(model.path, f"names a net_arch that is not a list of up to {MAX_LAYERS} layer sizes "
                             f"({str(kwargs.get('net_arch'))[:60]})", model.what)
    activation = kwargs.get("activation_fn", "Tanh")
    if not isinstance(activation, str) or activation not in ACTIVATION_CLASSES:
        raise ModelFileError(model.path, f"names an activation_fn gin3 does not know ({str(activation)[:60]})",
                             model.what)
    return [int(h) for h in arch], activation


ACTIVATION_CLASSES: dict[str, type[nn.Module]] = {
    name: getattr(nn, name) for name in ("Tanh", "ReLU", "ELU", "LeakyReLU", "SiLU", "GELU")
}


class _LoadedHead(CardAwareActorHead):
    """:class:`CardAwareActorHead` without its initialisation (an orthogonal init costs a QR per layer):
    every weight is loaded from the file."""

    def __init__(self, hidden: int) -> None:
        nn.Module.__init__(self)
        self.hidden = hidden
        self.linear = nn.Linear(hidden, NUM_ACTIONS)
        self.card_net = CardNet(CARD_HIDDEN)


class PlayerNetwork(nn.Module):
    """The actor of a MaskablePPO policy (SB3's parameter names), with SB3's ``predict``."""

    def __init__(self, obs_size: int, hidden: list[int], activation: str = "Tanh", card: bool = False) -> None:
        super().__init__()
        if card and obs_size < AUGMENTED_SIZE:
            raise ValueError(f"a card-aware policy needs the augmented features ({AUGMENTED_SIZE}+ entries), "
                             f"got {obs_size}")
        layers: list[nn.Module] = []
        width = obs_size
        for size in hidden:
            layers += [nn.Linear(width, size), ACTIVATION_CLASSES[activation]()]
            width = size
        policy_net = nn.Sequential(*layers)
        self.card = card
        self.mlp_extractor = nn.Module()
        self.action_net: nn.Module
        if card:
            self.mlp_extractor.mlp = nn.Module()
            self.mlp_extractor.mlp.policy_net = policy_net
            self.action_net = _LoadedHead(width)
            self.register_buffer("card_index", card_feature_index(), persistent=False)
        else:
            self.mlp_extractor.policy_net = policy_net
            self.action_net = nn.Linear(width, NUM_ACTIONS)
        self.observation_space = gym.spaces.Box(0.0, 1.0, (obs_size,), np.float32)
        self.action_space = gym.spaces.Discrete(NUM_ACTIONS)

    def _policy_net(self) -> nn.Module:
        extractor: Any = self.mlp_extractor
        net: nn.Module = extractor.mlp.policy_net if self.card else extractor.policy_net
        return net

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked logits, ``(B, 107)``."""
        latent = self._policy_net()(obs)
        if self.card:
            latent = torch.cat([latent, obs[:, self.get_buffer("card_index")]], dim=1)
        out: torch.Tensor = self.action_net(latent)
        return out

    def log_probs(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """The masked distribution's log-probabilities (as sb3-contrib's ``distribution.logits``)."""
        logits = self.logits(obs).masked_fill(~masks.bool(), MASK_VALUE)
        return logits - logits.logsumexp(dim=-1, keepdim=True)

    @torch.no_grad()
    def predict(self, observation: Any, action_masks: Any = None, deterministic: bool = True,
                **_: Any) -> tuple[np.ndarray, None]:
        """SB3's ``predict``: one observation ``(n,)`` gives one action, a batch ``(B, n)`` ``B`` actions."""
        obs = np.asarray(observation, dtype=np.float32)
        single = obs.ndim == 1
        device = next(self.parameters()).device
        batch = torch.from_numpy(obs.reshape(1, -1) if single else obs).to(device)
        if batch.shape[1] != self.observation_space.shape[0]:
            raise ValueError(f"expected observations of {self.observation_space.shape[0]} entries, "
                             f"got {batch.shape[1]}")
        masks = (torch.ones(batch.shape[0], NUM_ACTIONS, dtype=torch.bool) if action_masks is None
                 else torch.from_numpy(np.asarray(action_masks, dtype=bool).reshape(batch.shape[0], NUM_ACTIONS)))
        probs = self.log_probs(batch, masks.to(device)).exp()
        actions = probs.argmax(dim=1) if deterministic else torch.multinomial(probs, 1).squeeze(1)
        out = actions.cpu().numpy()
        return (out[0] if single else out), None


def _actor_weights(model: ModelFile, net: PlayerNetwork) -> dict[str, torch.Tensor]:
    state = model.weights.get("policy.pth")
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ModelFileError(model.path, "holds a 'policy.pth' that is not a state dict of tensors", model.what)
    wanted = net.state_dict()
    extra = sorted(k for k in state if k not in wanted and not str(k).startswith(VALUE_KEYS))
    missing = sorted(k for k in wanted if k not in state)
    wrong = sorted(k for k in wanted if k in state and tuple(state[k].shape) != tuple(wanted[k].shape))
    if extra or missing or wrong:
        parts = [f"{label} {', '.join(map(str, keys[:3]))}" for label, keys in
                 (("unknown weights", extra), ("no weights for", missing), ("other shapes for", wrong)) if keys]
        raise ModelFileError(model.path, f"holds weights that do not fit the network its description names "
                             f"({'; '.join(parts)})", model.what)
    return {k: state[k].to(torch.float32) for k in wanted}


def load_player(path: str | os.PathLike[str], what: str = "policy model file", device: str = "cpu") -> PlayerNetwork:
    """The file's actor as a :class:`PlayerNetwork` in eval mode (see the module doc); a file that cannot
    be: :class:`~gin3_env.policies.model_file.ModelFileError`, one line naming it."""
    return build_player(read_model_file(Path(path), what, trusted=False)).to(device)


def build_player(model: ModelFile) -> PlayerNetwork:
    """The :class:`PlayerNetwork` of a file read and checked (with its weights), on the CPU, in eval mode."""
    desc = model.description
    assert desc is not None
    hidden, activation = network_spec(model)
    try:
        net = PlayerNetwork(desc.obs_size, hidden, activation, card=desc.policy == "card")
    except ValueError as exc:
        raise ModelFileError(model.path, f"describes a network gin3 cannot build ({exc})", model.what) from None
    net.load_state_dict(_actor_weights(model, net), strict=True)
    return net.eval()
