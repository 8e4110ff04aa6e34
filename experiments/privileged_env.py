"""The batched learner env with the privileged state appended, for a critic that sees the deal.

:class:`PrivilegedStateVecEnv` wraps :class:`~gin3_env.vector.sb3_env.GinSB3VecEnv`: each row
of its observation is the learner's observation (``obs_features`` entries, exactly what the
wrapped env returns) followed by privileged columns of that slot's hand at the learner's
decision, chosen by ``extra``:

- ``"state"``: the privileged state (:meth:`VectorHands.state`,
  :data:`~gin3_env.observation.state.STATE_SIZE` entries: both hands, the stock in order);
- ``"opponent_view"``: the opponent's own observation of the hand in the same feature set as
  the learner's (its cards with their derived features: deadwood, melds), then the state.

Only a critic may read the privileged columns; the policy of
:mod:`experiments.privileged_critic` slices them off before its actor, and a player
exported from it reads the observation alone.

``infos[i]["terminal_observation"]`` (used to bootstrap the value of a hand stopped at
``max_turns``) carries zeros in the privileged columns: the finished hand was already dealt again
when the step returned, so its state is no longer there.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnvWrapper

from gin3_env.observation.state import STATE_SIZE
from gin3_env.vector.sb3_env import GinSB3VecEnv

EXTRAS = ("state", "opponent_view")


def privileged_size(extra: str, obs_features: int) -> int:
    """The number of privileged columns ``extra`` appends to observations of ``obs_features``."""
    return STATE_SIZE if extra == "state" else obs_features + STATE_SIZE


class PrivilegedStateVecEnv(VecEnvWrapper):
    """See the module doc. ``obs_features``: the size of the observation part of each row,
    ``privileged_size`` the size of the rest."""

    def __init__(self, venv: GinSB3VecEnv, extra: str = "state") -> None:
        if not isinstance(venv, GinSB3VecEnv):
            raise TypeError(f"PrivilegedStateVecEnv wraps the batched learner env (GinSB3VecEnv), got "
                            f"{type(venv).__name__}")
        if extra not in EXTRAS:
            raise ValueError(f"extra must be one of {EXTRAS}, got {extra!r}")
        self.extra = extra
        self.obs_features = int(venv.core.obs_size)
        self.privileged_size = privileged_size(extra, self.obs_features)
        space = spaces.Box(0.0, 1.0, (self.obs_features + self.privileged_size,), np.float32)
        super().__init__(venv, observation_space=space)
        self.core = venv.core

    def privileged(self) -> np.ndarray:
        """float32 (num_envs, privileged_size): the privileged columns of every slot now."""
        core = self.core
        state = core.hands.state()
        if self.extra == "state":
            return state
        opponent = core.hands.observe_rows(np.arange(core.num_envs), 1 - core.learner_player)
        return np.concatenate([core.feature_set.encode_batch(opponent), state], axis=1)

    def _with_state(self, obs: Any) -> np.ndarray:
        return np.concatenate([np.asarray(obs, dtype=np.float32), self.privileged()], axis=1)

    def reset(self) -> np.ndarray:
        return self._with_state(self.venv.reset())

    def step_async(self, actions: np.ndarray) -> None:
        self.venv.step_async(actions)

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            final = info.get("terminal_observation")
            if final is not None:
                info["terminal_observation"] = np.concatenate([final, np.zeros(self.privileged_size, np.float32)])
        return self._with_state(obs), rewards, dones, infos
