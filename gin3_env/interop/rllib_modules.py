"""The RLlib ``RLModule`` of gin: the action-masking PPO module.

``ActionMaskingTorchRLModule`` follows RLlib's own action-masking example
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``): the observation
is a dict ``{"observations": ..., "action_mask": ...}``; the network sees the
observations and the logits of every illegal action are pushed to
:data:`~gin3_env.policies.rllib_net.MASKED_LOGIT`, so an illegal action is never
sampled, in exploration or inference. Its network is the Ray-free
:class:`~gin3_env.policies.network.MaskedActorCritic` (``model_config``:
``hidden``, ``card_head``), whose weights :mod:`gin3_env.policies.rllib_policy`
loads with torch alone.
"""

from __future__ import annotations

from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from ..policies.network import MaskedActorCritic


def _split(batch: dict[str, Any]) -> tuple[Any, Any]:
    obs = batch[Columns.OBS]
    if not isinstance(obs, dict) or "observations" not in obs or "action_mask" not in obs:
        raise ValueError(
            "this RLModule needs dict observations {'observations': ..., 'action_mask': ...} "
            "(the gin3 RLlib envs give them)"
        )
    return obs["observations"], obs["action_mask"]


class ActionMaskingTorchRLModule(TorchRLModule, ValueFunctionAPI):
    """PPO module with action masking over :class:`MaskedActorCritic` (see the module docstring)."""

    def setup(self) -> None:
        space = self.observation_space["observations"]
        config = dict(self.model_config or {})
        self.net = MaskedActorCritic(
            int(space.shape[0]), hidden=config.get("hidden", [256, 256]), card_head=config.get("card_head", False)
        )

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs, mask = _split(batch)
        return {Columns.ACTION_DIST_INPUTS: self.net.masked_logits(obs, mask)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        obs, _ = _split(batch)
        return self.net.value(obs)
