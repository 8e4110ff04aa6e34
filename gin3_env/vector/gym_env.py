"""``gin3_env.vector_env(...)``: a Gymnasium 1.x ``VectorEnv`` over the batched core.

- Spaces: ``single_observation_space`` ``Box(0, 1, (374,), float32)`` (586 with
  ``features="augmented"``), ``single_action_space`` ``Discrete(107)``.
- Autoreset: ``metadata["autoreset_mode"] == AutoresetMode.SAME_STEP``: a finished
  episode's slot is dealt again within the same ``step``; its last observation is
  ``infos["final_obs"][i]`` (with ``infos["_final_obs"][i]`` True), its result in
  ``infos["final_info"]``.
- Masks: ``env.action_masks()`` -> bool ``(num_envs, 107)``, also ``infos["action_mask"]``.
- Misuse: ``step``/``action_masks`` before ``reset`` raise ``ResetNeededError``, any call but
  ``close`` after ``close()`` ``ClosedEnvError``; actions that
  are not one int ``0..106`` per slot an ``InvalidActionError`` naming the slot (hand) and the
  action (:mod:`gin3_env.vector.errors`); a bad seed ``InvalidSeedError``; nothing changes.
- Reward: the learner's game points at the end of its hand (minus the baseline's with
  ``reward_baseline``), times ``reward_scale``.

Keyword arguments are those of :class:`gin3_env.vector.learner.LearnerHands`: ``learner``
(``"team"``, ``"box"``, ``"random"``), ``opponent`` (``"random"``, ``"heuristic"``, a saved
model's path, a batched policy, or a list for a pool with ``weights``), ``reward_baseline``,
``reward_scale``, ``illegal_penalty``, ``features``, ``seed``, ``rules`` or rules options.
``set_opponent(opponent, weights=None)`` swaps the opponent for each slot's next hand.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..engine.actions import NUM_ACTIONS
from ..envs.errors import ResetNeededError, check_seed
from .errors import ClosedEnvError, InvalidResetOptionError
from .hands import OUTCOME_NAMES
from .learner import LearnerHands


class GinVectorEnv(VectorEnv):
    """The learner against a batched opponent in ``num_envs`` hands at once (see the module doc)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 64, **kwargs: Any) -> None:
        self.core = LearnerHands(num_envs, **kwargs)
        self.num_envs = self.core.num_envs
        self.single_observation_space = spaces.Box(0.0, 1.0, (self.core.obs_size,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._started = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._check_open("reset")
        seed = check_seed(seed)
        if options is not None and (not isinstance(options, dict) or options):
            got: Any = f"{type(options).__name__} {options!r:.40}"
            if isinstance(options, dict):
                got = sorted(map(str, options))
            raise InvalidResetOptionError(f"vector_env.reset takes no options, got {got}")
        obs = self.core.reset(seed=seed)
        if seed is not None:
            self._np_random = np.random.default_rng(seed)
        self._started = True
        return obs, self._info()

    def _check_open(self, call: str) -> None:
        if self.closed:
            raise ClosedEnvError(f"vector_env: {call}() after close(); make a new env")

    def _check_started(self, call: str) -> None:
        self._check_open(call)
        if not self._started:
            raise ResetNeededError(f"vector_env: {call}() before reset(); call reset() first")

    def step(self, actions: Any):
        self._check_started("step")
        acts = self.core.check_actions(actions)  # refused before anything changes
        obs, rewards, terminated, truncated, extra = self.core.step(acts)
        infos = self._info()
        ended = extra["ended"]
        if ended.any():
            infos["final_obs"] = extra["final_obs"]
            infos["_final_obs"] = ended
            names = [OUTCOME_NAMES[c] if e else "" for c, e in zip(extra["outcome"], ended, strict=True)]
            infos["final_info"] = {
                "outcome": np.array(names),
                "_outcome": ended,
                "points": extra["points"],
                "_points": ended,
                "baseline_points": extra["baseline_points"],
                "_baseline_points": ended,
                "illegal_action": extra["illegal"],
                "_illegal_action": ended,
            }
        return obs, rewards, terminated, truncated, infos

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.core.hands._mask.copy(), "learner": self.core.learner_player.copy()}

    def action_masks(self) -> np.ndarray:
        """bool (num_envs, 107): the learner's legal actions in each slot."""
        self._check_started("action_masks")
        return self.core.action_masks()

    def set_opponent(self, opponent: Any, weights: Any = None) -> None:
        self._check_open("set_opponent")
        self.core.set_opponent(opponent, weights)


def vector_env(num_envs: int = 64, **kwargs: Any) -> GinVectorEnv:
    """A Gymnasium ``VectorEnv`` of ``num_envs`` learner hands (see :mod:`gin3_env.vector.gym_env`)."""
    return GinVectorEnv(num_envs, **kwargs)
