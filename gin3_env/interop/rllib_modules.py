"""RLlib ``RLModule`` s for gin: the action-masking PPO module and the heuristic as a fixed module.

``ActionMaskingTorchRLModule`` follows RLlib's own action-masking example
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``): the observation
is a dict ``{"observations": ..., "action_mask": ...}``; the network sees the
observations and the logits of every illegal action are pushed to
:data:`~gin3_env.policies.rllib_net.MASKED_LOGIT`, so an illegal action is never
sampled, in exploration or inference. Its network is the Ray-free
:class:`~gin3_env.policies.rllib_net.MaskedActorCritic` (``model_config``:
``hidden``, ``card_head``), whose weights :mod:`gin3_env.policies.rllib_policy`
loads with torch alone.

``HeuristicRLModule`` plays :class:`~gin3_env.policies.HeuristicPolicy` from
the same observations (``model_config``: :class:`~gin3_env.policies.HeuristicConfig`
keywords such as ``knock_limit``). It is not trainable: leave it out of
``policies_to_train``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch import TorchRLModule

from ..observation.layout import OBS_SIZE
from ..policies.heuristic import HeuristicConfig, HeuristicPolicy
from ..policies.rllib_net import MaskedActorCritic


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


def _numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


class HeuristicRLModule(RLModule):
    """The rule-based :class:`HeuristicPolicy` as a fixed (untrained) RLlib module."""

    def setup(self) -> None:
        # RLlib adds its default model settings to model_config: keep the HeuristicConfig keywords
        config = {k: v for k, v in dict(self.model_config or {}).items() if k in HeuristicConfig.__dataclass_fields__}
        self.policy = HeuristicPolicy(**config)

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs, mask = _split(batch)
        vectors, masks = _numpy(obs), _numpy(mask).astype(np.int8)
        actions = [
            self.policy.act({"observation": vectors[i, :OBS_SIZE], "action_mask": masks[i]})
            for i in range(vectors.shape[0])
        ]
        return {Columns.ACTIONS: np.asarray(actions, dtype=np.int64)}

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._forward_inference(batch, **kwargs)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError("HeuristicRLModule is not trainable: leave it out of policies_to_train")
