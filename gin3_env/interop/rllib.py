"""Ray RLlib bridge: the hand and match games as RLlib ``MultiAgentEnv`` s (extra ``rllib``).

``GinHandMultiAgentEnv`` plays one hand (agents ``team_0``, ``box_0``) and
``GinMatchMultiAgentEnv`` a match (agents ``player_0..2``); both run the
package's raw AEC env underneath, so rules, masks and points are exactly those of
``gin3_env.env()`` / ``gin3_env.match_env()``. What RLlib's new API stack needs
and PettingZoo's classic games do not give it out of the box:

- observations are ``{"observations": float32[n], "action_mask": float32[107]}``,
  the keys RLlib's action-masking module expects (PettingZoo says
  ``"observation"``); ``n`` is 374 (hand) or 380 (match), plus 212 derived card
  features with ``features="augmented"`` (the default, as for ``gin3 train``);
- only the agent to act gets an observation; at the end every agent gets its
  last one;
- every step returns a reward for every agent (0 until a hand ends; then the
  hand's points times ``reward_scale``);
- ``terminateds`` / ``truncateds`` carry ``"__all__"`` (a hand cut at
  ``max_turns`` is truncated; a match ends terminated);
- an illegal action raises ``ValueError`` (RLlib's env checker, which sends
  unmasked random actions, must therefore be off: ``disable_env_checking=True``).

:func:`register_envs` registers both under :data:`ENV_NAMES` with Ray's
registry, and the batched hands of :mod:`gin3_env.interop.rllib_vector` (a
Gymnasium vector env for RLlib's single-agent runner) under
:data:`VECTOR_ENV_NAME`; the env config takes ``features``, ``reward_scale`` and
``rules`` (a dict of rules options). The action-masking ``RLModule`` is in
:mod:`gin3_env.interop.rllib_modules`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from ..engine.actions import NUM_ACTIONS
from ..envs import aec_hand, aec_match
from ..envs.aec_base import GinAECEnv
from ..policies.rllib_net import BASE_SIZES, FEATURES, input_size, model_input
from .rllib_vector import make_vector_env, observation_space

ENV_NAMES = {"hand": "gin3_hand_rllib", "match": "gin3_match_rllib"}
VECTOR_ENV_NAME = "gin3_hands_vector_rllib"
ENV_CONFIG_KEYS = ("features", "reward_scale", "rules")

__all__ = [
    "ENV_NAMES",
    "VECTOR_ENV_NAME",
    "GinHandMultiAgentEnv",
    "GinMatchMultiAgentEnv",
    "make_env",
    "register_envs",
]


def _check_config(config: Mapping[str, Any] | None) -> dict[str, Any]:
    config = dict(config or {})
    # RLlib passes an EnvContext (a dict with worker_index etc. as attributes): only its keys count.
    unknown = sorted(set(config) - set(ENV_CONFIG_KEYS))
    if unknown:
        raise ValueError(f"unknown env config key(s) {unknown}; known: {', '.join(ENV_CONFIG_KEYS)}")
    features = config.get("features", "augmented")
    if features not in FEATURES:
        raise ValueError(f"env config 'features' must be one of {list(FEATURES)}, got {features!r}")
    config["features"] = features
    return config


class _GinMultiAgentEnv(MultiAgentEnv):
    """A turn-based ``MultiAgentEnv`` over one of the package's raw AEC envs."""

    kind = ""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        cfg = _check_config(config)
        self.features: str = cfg["features"]
        self.base_size = BASE_SIZES[self.kind]
        self.aec = self._make_aec(reward_scale=cfg.get("reward_scale", 1.0), rules=cfg.get("rules"))
        self.agents = self.possible_agents = list(self.aec.possible_agents)
        space = observation_space(input_size(self.kind, self.features))
        self.observation_spaces = {agent: space for agent in self.agents}
        self.action_spaces = {agent: gym.spaces.Discrete(NUM_ACTIONS) for agent in self.agents}

    def _make_aec(self, reward_scale: float, rules: Any) -> GinAECEnv:
        raise NotImplementedError

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        raw = self.aec.observe(agent)
        return {
            "observations": model_input(raw["observation"], self.base_size, self.features),
            "action_mask": raw["action_mask"].astype(np.float32),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.aec.reset(seed=seed, options=options)
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {}

    def step(self, action_dict: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        agent = self.aec.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{agent} is to act, but the action dict holds {sorted(action_dict)}")
        action = int(np.asarray(action_dict[agent]).reshape(-1)[0])
        self.aec.step(action)  # an illegal action raises ValueError, changing nothing
        aec = self.aec
        rewards = {a: float(aec.rewards[a]) for a in self.agents}
        if not all(aec.terminations[a] or aec.truncations[a] for a in self.agents):
            nxt = aec.agent_selection
            return {nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {}
        terminated = {a: bool(aec.terminations[a]) for a in self.agents}
        truncated = {a: bool(aec.truncations[a]) and not terminated[a] for a in self.agents}
        terminated["__all__"] = all(terminated[a] for a in self.agents)
        truncated["__all__"] = not terminated["__all__"]
        observations = {a: self._observe(a) for a in self.agents}
        infos = {a: dict(aec.infos[a]) for a in self.agents}
        return observations, rewards, terminated, truncated, infos


class GinHandMultiAgentEnv(_GinMultiAgentEnv):
    """One hand: ``team_0`` (the captain) against ``box_0``; see the module docstring."""

    kind = "hand"

    def _make_aec(self, reward_scale: float, rules: Any) -> GinAECEnv:
        return aec_hand.raw_env(reward_scale=reward_scale, rules=rules)


class GinMatchMultiAgentEnv(_GinMultiAgentEnv):
    """A match to the target score between ``player_0..2``; see the module docstring."""

    kind = "match"

    def _make_aec(self, reward_scale: float, rules: Any) -> GinAECEnv:
        return aec_match.raw_env(reward_scale=reward_scale, rules=rules)


ENV_CLASSES: dict[str, type[_GinMultiAgentEnv]] = {"hand": GinHandMultiAgentEnv, "match": GinMatchMultiAgentEnv}


def make_env(kind: str, config: Mapping[str, Any] | None = None) -> _GinMultiAgentEnv:
    """``"hand"`` or ``"match"`` env with the given env config."""
    try:
        cls = ENV_CLASSES[kind]
    except KeyError:
        raise ValueError(f"env must be one of {sorted(ENV_CLASSES)}, got {kind!r}") from None
    return cls(config)


def _hand_creator(config: Mapping[str, Any]) -> GinHandMultiAgentEnv:
    return GinHandMultiAgentEnv(config)


def _match_creator(config: Mapping[str, Any]) -> GinMatchMultiAgentEnv:
    return GinMatchMultiAgentEnv(config)


def register_envs() -> dict[str, str]:
    """Register both multi-agent envs and the vector env with Ray's registry
    (``config.environment(ENV_NAMES["hand"])``); returns the multi-agent names."""
    from ray.tune.registry import register_env

    register_env(ENV_NAMES["hand"], _hand_creator)
    register_env(ENV_NAMES["match"], _match_creator)
    register_env(VECTOR_ENV_NAME, make_vector_env)
    return dict(ENV_NAMES)
