"""Play full hand states out to their end with a batched heuristic, in one compiled loop.

Search needs many playouts from mid-hand states (a determinised sample of what a player
knows, then a first action). :class:`Rollouts` loads :class:`~gin3_env.engine.hand.HandState`
objects into the arrays of the batched core (the layout of :mod:`.hand_kernels`: phase,
player, turns, the stock as ``deck[POS:]``, the discard pile, masks of hands, known and
declined cards), plays each row's first action, then lets a
:class:`~gin3_env.kernels.heuristic_params.HeuristicConfig` choose every later move for both
players until the hand ends, all inside one numba kernel (no Python between moves). With a
gated player's model (``Rollouts(rules, gated_model=load_gated(...))``) both players are that gated player
(:mod:`.gates`: the heuristic switched by each of its gates; the shipped ``gated`` player for its file).

    roll = Rollouts(rules)                       # rollout policy: the heuristic's defaults
    team_points = roll.run(states, first_actions)  # float64 (len(states),): the team's points

The moves are the kernels :func:`.hand_kernels.apply_rows` and
:func:`.heuristic_kernels.act_row`, the ones ``VectorHands`` and ``HeuristicBatch`` use, so
a playout is the hand the engine would play with ``HeuristicPolicy`` on both sides
(``tests/test_search.py`` checks this against the scalar engine), or with a gated model the hand
:class:`~gin3_env.policies.gated.GatedPolicy` plays on both sides (checked there too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..engine.actions import action_str
from ..engine.hand import HandState
from ..engine.rules import Rules
from ..errors import IllegalActionError
from . import hand_kernels as hk
from .gates import gated_act_row, stack_gates
from .heuristic_params import HeuristicConfig, heuristic_config, heuristic_params
from .jit import njit

__all__ = ["Rollouts", "load_states"]


def load_states(states: Sequence[HandState]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The batched-core arrays ``(S, M, deck, pile)`` of ``states`` (one row each, in play).

    The stock goes to ``deck[POS:]`` in draw order (``HandState.stock[-1]`` is drawn first);
    the cards before ``POS`` are never read by the kernels and are left as zeros."""
    n = len(states)
    S = np.zeros((n, hk.NUM_COLS), dtype=np.int64)
    S[:, hk.KNOCKER : hk.KNOCK_CARD + 1] = -1
    M = np.zeros((n, hk.NUM_MASKS), dtype=np.int64)
    deck = np.zeros((n, 52), dtype=np.int8)
    pile = np.zeros((n, 52), dtype=np.int8)
    for i, st in enumerate(states):
        if st.is_over:
            raise ValueError(f"state {i} is over: there is nothing to play out")
        stock = st.stock
        pos = 52 - len(stock)
        S[i, hk.PHASE] = int(st.phase)
        S[i, hk.PLAYER] = st.player
        S[i, hk.TURNS] = st.turns
        S[i, hk.STOCK_ONLY] = int(st.stock_only)
        S[i, hk.TAKEN] = -1 if st.taken is None else st.taken
        S[i, hk.POS] = pos
        S[i, hk.PILE_LEN] = len(st.discards)
        M[i, hk.HAND0 : hk.HAND0 + 2] = st.hands
        M[i, hk.KNOWN0 : hk.KNOWN0 + 2] = st.known
        M[i, hk.DECLINED0 : hk.DECLINED0 + 2] = st.declined
        if stock:
            deck[i, pos:] = stock[::-1]
        if st.discards:
            pile[i, : len(st.discards)] = st.discards
    return S, M, deck, pile


@njit(cache=True)
def _legal_rows(S: np.ndarray, M: np.ndarray, mask: np.ndarray, R: np.ndarray) -> None:
    kd = np.zeros(52, np.int64)
    order = np.zeros(52, np.int64)
    for i in range(S.shape[0]):
        hk.legal_row(i, S, M, mask, R, kd, order)


@njit(cache=True)
def _playout(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray,
             R: np.ndarray, me: int, fp: np.ndarray, ip: np.ndarray, gates: tuple, fp2: np.ndarray,
             ip2: np.ndarray, gates2: tuple, first: np.ndarray, out: np.ndarray) -> int:
    """Play ``first[i]`` then the (gated) heuristics to the end in every row; ``out[i]`` = the team's points.
    Player ``me`` plays the first heuristic (``fp``, ``ip``) with its gates, the other player (both, where ``me``
    is -1) the second, each switched by its stacked gates (:func:`.gates.gated_act_row`; no gates: the
    heuristic plays).

    Returns -1, or the index of the first row whose first action is illegal (nothing is played then)."""
    n = S.shape[0]
    for i in range(n):
        if mask[i, first[i]] == 0:
            return i
    obs = np.zeros((n, hk.OBS_SIZE), np.float32)
    one = np.zeros(1, np.int64)
    act = np.zeros(1, np.int64)
    who = np.full(1, -1, np.int64)
    rewards = np.zeros((1, 2), np.float32)
    ended = np.zeros(1, np.int64)
    for i in range(n):
        one[0] = i
        act[0] = first[i]
        hk.apply_rows(one, act, S, M, deck, pile, mask, R, rewards, ended)
        while S[i, hk.PHASE] != hk.OVER:
            hk.observe_rows(one, who, S, M, pile, R, obs[i : i + 1])
            if S[i, hk.PLAYER] == me:
                act[0] = gated_act_row(obs, mask, i, fp, ip, gates, R[hk.R_KNOCK_LIMIT])
            else:
                act[0] = gated_act_row(obs, mask, i, fp2, ip2, gates2, R[hk.R_KNOCK_LIMIT])
            hk.apply_rows(one, act, S, M, deck, pile, mask, R, rewards, ended)
        out[i] = rewards[0, 0]
    return -1


def _side(policy: HeuristicConfig | None, model: Any, knock_limit: int) -> tuple[HeuristicConfig, np.ndarray,
                                                                                np.ndarray, tuple]:
    """A playout player's heuristic, its parameter arrays and its gates (the gated model's own heuristic where
    ``policy`` is None; else they must agree), at the game's ``knock_limit`` (the rules', whatever the
    configuration says: a playout plays the game's rules)."""
    if (model is not None and policy is not None
            and replace(heuristic_config(policy), knock_limit=model.heuristic.knock_limit) != model.heuristic):
        raise ValueError(f"the gated model's heuristic ({model.heuristic}) differs from the rollout policy ({policy})")
    config = heuristic_config(model.heuristic if model is not None and policy is None else policy)
    config = replace(config, knock_limit=knock_limit)
    fp, ip = heuristic_params(config)
    return config, fp, ip, stack_gates(model.gates if model is not None else ())


class Rollouts:
    """Playouts of hand states by a heuristic configuration (both players), compiled.

    ``policy`` is a :class:`~.heuristic_params.HeuristicConfig` (default: the tuned heuristic);
    ``HeuristicConfig(outs_weight=0)`` drops the one-card look-ahead and is several times faster.
    ``gated_model`` (a :class:`~gin3_env.policies.gate_file.GatedModel`) makes both players the gated player
    (:func:`.gates.gated_act_row`, the kernel :class:`~gin3_env.policies.gated.GatedPolicy` plays: the
    heuristic switched by each of the model's gates): its base heuristic is the model's own (``policy``,
    if given, must be the same). Any object with the model's ``gates`` and ``heuristic`` will do (this
    layer does not import the policies). The features count a hand within ``rules.knock_limit`` as knockable.

    ``other`` (``(policy, gated_model)`` as above) plays the opponent of the player ``me`` that :meth:`run` names
    instead: ``policy`` and ``gated_model`` then play ``me`` only.

    Every side plays at ``rules``' knock limit (the heuristic's take-to-knock test), whatever ``policy`` or the
    gated model's heuristic says: the playouts play the game of the rules.
    """

    def __init__(self, rules: Rules | None = None, policy: HeuristicConfig | None = None,
                 gated_model: Any = None, other: tuple[HeuristicConfig | None, Any] | None = None) -> None:
        self.rules = rules or Rules()
        self._R = hk.rules_vector(self.rules)
        limit = self.rules.knock_limit
        self.policy, self._fp, self._ip, self._gates = _side(policy, gated_model, limit)
        self.gated_model = gated_model
        self._other = (self._fp, self._ip, self._gates) if other is None else _side(*other, limit)[1:]

    def run(self, states: Sequence[HandState], first_actions: Sequence[int] | np.ndarray, me: int = -1) -> np.ndarray:
        """Team points (float64, one per state) of playing each state's first action, then the
        (gated) heuristic (with ``other``: the first for player ``me``, ``other`` for its opponent).

        Rows may share a state object; each is played on its own copy. An illegal first action is an
        ``IllegalActionError`` naming the row."""
        first = np.asarray(first_actions, dtype=np.int64)
        if first.shape != (len(states),):
            raise ValueError(f"first_actions must have one action per state ({len(states)}), got {first.shape}")
        if len(states) == 0:
            return np.zeros(0)
        if ((first < 0) | (first >= hk.NUM_ACTIONS)).any():
            raise ValueError(f"first actions must be in 0..{hk.NUM_ACTIONS - 1}")
        for st in states:
            if st.rules != self.rules:
                raise ValueError("a state's rules differ from the rollouts' rules")
        S, M, deck, pile = load_states(states)
        mask = np.zeros((len(states), hk.NUM_ACTIONS), dtype=np.int8)
        _legal_rows(S, M, mask, self._R)
        out = np.zeros(len(states), dtype=np.float64)
        fp2, ip2, gates2 = self._other
        bad = _playout(S, M, deck, pile, mask, self._R, me, self._fp, self._ip, self._gates, fp2, ip2, gates2, first,
                       out)
        if bad >= 0:
            a = int(first[bad])
            raise IllegalActionError(f"row {bad}: first action {a} ({action_str(a)}) is not legal in its state")
        return out

