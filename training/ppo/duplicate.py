"""Duplicate rewards for training: the learner's points minus a baseline's on the same deal.

:class:`DuplicateReward` wraps the single-agent hand env. At each reset the
baseline policy also plays the deal in the learner's seat against the same
opponent; at the end of the hand the reward is the learner's points minus the
baseline's (times the env's ``reward_scale``). The luck of the cards cancels,
and the baseline does not depend on the learner's actions, so policy gradients
stay unbiased. ``info["baseline_points"]`` holds the baseline's score. Evaluate
with true points (the unwrapped env).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from gin3_env.engine.hand import HandState
from gin3_env.envs.opponents import resolve_policy
from gin3_env.envs.single_agent import ThreeHandedGinEnv
from gin3_env.game.driver import run_hand
from gin3_env.game.policy import Policy

__all__ = ["DuplicateReward"]


class DuplicateReward(gym.Wrapper):
    """``ThreeHandedGinEnv`` rewards as the learner's points minus ``baseline``'s on the same deal."""

    def __init__(self, env: gym.Env, baseline: Any = "heuristic") -> None:
        super().__init__(env)
        if not isinstance(env.unwrapped, ThreeHandedGinEnv):
            raise ValueError(f"DuplicateReward wraps the single-agent hand env, got {type(env.unwrapped).__name__}")
        self.baseline: Policy = resolve_policy(baseline, rules=env.unwrapped.rules)  # for the game the env plays
        self.baseline_points = 0

    @property
    def hand_env(self) -> ThreeHandedGinEnv:
        env = self.env.unwrapped
        assert isinstance(env, ThreeHandedGinEnv)
        return env

    @property
    def hand(self) -> HandState | None:
        """The unwrapped env's hand."""
        return self.hand_env.hand

    @property
    def player(self) -> int:
        """The learner's side in the unwrapped env's hand."""
        return self.hand_env.player

    def _play_baseline(self) -> int:
        """Points the baseline scores in the learner's seat on this deal (same opponent)."""
        env = self.hand_env
        assert env.hand is not None
        twin = HandState.deal(env.rules, deck=env.hand.deck)
        seats: list[Policy | None] = [None, None]
        seats[env.player], seats[1 - env.player] = self.baseline, env.opponent
        result = run_hand(twin, seats)
        assert result is not None
        return result.returns[env.player]

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self.baseline_points = self._play_baseline()
        info["baseline_points"] = self.baseline_points
        return obs, info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if (terminated or truncated) and not info.get("illegal_action"):
            reward = float(reward) - self.baseline_points * self.hand_env.reward_scale
        info["baseline_points"] = self.baseline_points
        return obs, float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.hand_env.action_masks()
