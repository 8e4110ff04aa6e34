"""A trained model as a gin3 policy, and the quick evaluation used during training."""

from __future__ import annotations

from typing import Any

import numpy as np


class ModelPolicy:
    """Wraps a loaded sb3-contrib ``MaskablePPO`` model: ``act(observation_dict) -> action``."""

    def __init__(self, model: Any, deterministic: bool = True) -> None:
        self.model = model
        self.deterministic = deterministic
        self.obs_dim = int(model.observation_space.shape[0])

    def act(self, observation: dict[str, np.ndarray]) -> int:
        obs = np.asarray(observation["observation"], dtype=np.float32)[: self.obs_dim]
        mask = np.asarray(observation["action_mask"]).astype(bool)
        action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        return int(action)


def quick_evaluate(policy: Any, opponent: str, n_hands: int, seed: int) -> dict[str, float]:
    """Mean points per hand of ``policy`` against ``opponent`` (duplicate deals, both roles)."""
    from ..evaluation import evaluate_hands
    from ..policies import load_policy

    result = evaluate_hands(policy, load_policy(opponent), n_hands=n_hands, seed=seed)
    d = result.to_dict()
    return {
        "mean": float(d["mean"]),
        "ci95": float(d["ci95"]),
        "team_mean": float(d["by_role"]["team"]["mean"]),
        "box_mean": float(d["by_role"]["box"]["mean"]),
        "hands": int(d["hands"]),
    }
