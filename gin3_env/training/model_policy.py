"""A trained model as a gin3 policy, and the quick evaluation used during training."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..envs.features import AUGMENTED_SIZE, augment


class ModelPolicy:
    """Wraps a loaded sb3-contrib ``MaskablePPO`` model: ``act(observation_dict) -> action``."""

    def __init__(self, model: Any, deterministic: bool = True) -> None:
        self.model = model
        self.deterministic = deterministic
        self.obs_dim = int(model.observation_space.shape[0])

    def act(self, observation: dict[str, np.ndarray]) -> int:
        if self.obs_dim == AUGMENTED_SIZE:
            obs = augment(observation["observation"])
        else:
            obs = np.asarray(observation["observation"], dtype=np.float32)[: self.obs_dim]
        mask = np.asarray(observation["action_mask"]).astype(bool)
        action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        return int(action)


def quick_evaluate(policy: Any, opponent: str, n_deals: int, seed: int) -> dict[str, float]:
    """Mean points per hand of ``policy`` against ``opponent`` over ``n_deals`` duplicate
    deals (each played in both roles), with the 95% CI half-width."""
    from ..evaluation import evaluate_hands
    from ..policies import load_policy

    report = evaluate_hands(policy, load_policy(opponent), n_hands=n_deals, seed=seed)
    return {
        "mean": report.overall.mean,
        "ci95": (report.overall.high - report.overall.low) / 2,
        "team_mean": report.as_team.mean,
        "box_mean": report.as_box.mean,
        "deals": report.n_deals,
    }
