"""Playouts by any batched player, stepped in Python over the batched core.

:class:`~gin3_env.kernels.rollout.Rollouts` compiles the heuristic and the gated player into its playout
loop; a network or the random player cannot be compiled in. :class:`PolicyRollouts` has the same
``run(states, first_actions)``: it loads the states into the batched core's arrays, plays each row's first
action, then asks the :class:`~.opponent_model.OpponentModel` for every unfinished row's move at once,
one move per row per step, until every hand is over (both players are the model; with ``own``, player ``me``
of :meth:`~PolicyRollouts.run` is ``own`` instead).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..engine.actions import action_str
from ..engine.hand import HandState
from ..engine.rules import Rules
from ..errors import IllegalActionError
from .opponent_model import OpponentModel

__all__ = ["PolicyRollouts"]


class PolicyRollouts:
    """Playouts of hand states by ``model`` for both players (see the module doc)."""

    def __init__(self, rules: Rules | None, model: OpponentModel, own: OpponentModel | None = None) -> None:
        from ..kernels import hand_kernels as hk

        self._hk = hk
        self.rules = rules or Rules()
        self._R = hk.rules_vector(self.rules)
        self.model = model
        self.own = own

    def run(self, states: Sequence[HandState], first_actions: Sequence[int] | np.ndarray, me: int = 0) -> np.ndarray:
        """Team points (float64, one per state) of playing each state's first action, then the model (``own``
        for player ``me``, where given)."""
        from ..kernels.rollout import _legal_rows, load_states

        hk = self._hk
        first = np.asarray(first_actions, dtype=np.int64)
        if first.shape != (len(states),):
            raise ValueError(f"first_actions must have one action per state ({len(states)}), got {first.shape}")
        n = len(states)
        if n == 0:
            return np.zeros(0)
        S, M, deck, pile = load_states(states)
        mask = np.zeros((n, hk.NUM_ACTIONS), dtype=np.int8)
        _legal_rows(S, M, mask, self._R)
        bad = np.flatnonzero(mask[np.arange(n), first] == 0)
        if len(bad):
            i = int(bad[0])
            raise IllegalActionError(f"row {i}: first action {int(first[i])} ({action_str(int(first[i]))}) "
                                     "is not legal in its state")
        out = np.zeros(n, dtype=np.float64)
        rows = np.arange(n, dtype=np.int64)
        actions = first
        while len(rows):
            rewards = np.zeros((len(rows), 2), np.float32)
            ended = np.zeros(len(rows), np.int64)
            hk.apply_rows(rows, actions, S, M, deck, pile, mask, self._R, rewards, ended)
            over = S[rows, hk.PHASE] == hk.OVER
            out[rows[over]] = rewards[over, 0]
            rows = rows[~over]
            if not len(rows):
                break
            obs = np.zeros((len(rows), hk.OBS_SIZE), np.float32)
            hk.observe_rows(rows, np.full(len(rows), -1, np.int64), S, M, pile, self._R, obs)
            if self.own is None:
                actions = np.asarray(self.model.act(obs, mask[rows]), np.int64)
                continue
            mine = S[rows, hk.PLAYER] == me
            actions = np.zeros(len(rows), np.int64)
            for side, model in ((mine, self.own), (~mine, self.model)):
                if side.any():
                    actions[side] = model.act(obs[side], mask[rows[side]])
        return out
