"""Every legal action of a decision valued on the true deal, in one compiled loop per decision.

A decision is a row of the batched core's arrays (:mod:`.hand_kernels`: ``S``, ``M``, ``deck``,
``pile``, ``mask``), taken from a hand in play with the real hands of both players and the real
stock. Each legal action of the row is played, then both players play the *continuation policy*
(the gated player of :mod:`.gates`: the heuristic with the knock, draw and discard gates
given, the shipped ``gated`` player for its file) to the end of the hand, from ``K`` copies of
the hand whose stock (``deck[POS:]``) is reshuffled ``K`` ways. The ``K`` reshuffles are the same
for every action of the decision (common random numbers: what differs between two actions' values
is the action, not the luck of the draw). A knock ends the hand at once: it is played once.

    value_rows_fast(S, M, deck, pile, mask, R, seeds, K, fp, ip, gates, values, se, hidden)

writes ``values[i, a]``, the acting player's mean points after action ``a`` over the ``K``
reshuffles (NaN where ``a`` is not legal), and ``se[i, a]`` its standard error. Row ``i``'s
reshuffles come from ``np.random.seed(seeds[i])`` inside the kernel, so its values do not depend on
the thread that played it or on the other rows.

``hidden`` says what the ``K`` copies deal afresh: :data:`STOCK` (0) the stock alone, the opponent's real hand
kept (the *true deal*); :data:`OPPONENT` (1) the stock and the opponent's cards the acting player has not seen
(those it took from the pile stay), drawn together uniformly (:func:`belief_reshuffles`): a deal the acting player
cannot tell from the real one, so that a value is the mean over what it does not know (its information state's
value, under a uniform belief), not one deal's.

The cost is the continuations: (legal non-knock actions) x ``K`` hands played to their end, each
move of which is one call of the continuation policy (:func:`.gates.gated_act_row`, played by
:func:`.decision_labels.mean_points`, as the gate labels).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from gin3_env.engine.actions import KNOCK_BASE, NUM_ACTIONS
from gin3_env.engine.cards import NUM_CARDS
from gin3_env.kernels import hand_kernels as hk
from gin3_env.kernels.jit import njit
from gin3_training.gates.label_kernels import _copy, mean_points
from gin3_training.improve.fast_player import fast_gated_act

__all__ = ["OPPONENT", "STOCK", "belief_reshuffles", "reshuffles", "value_rows_fast", "value_rows_fast_serial",
           "value_rows_serial"]


@njit(cache=True)
def reshuffles(deck: np.ndarray, pos: int, K: int, seed: int) -> np.ndarray:
    """``K`` copies of ``deck`` (one row's 52 cards) with the stock ``deck[pos:]`` shuffled, seeded by ``seed``."""
    np.random.seed(seed)
    out = np.empty((K, NUM_CARDS), np.int8)
    for r in range(K):
        out[r, :] = deck[:]
        np.random.shuffle(out[r, pos:])
    return out


STOCK, OPPONENT = 0, 1  # what a label's copies deal afresh (hidden): the stock, or the opponent's unseen cards too


@njit(cache=True)
def belief_reshuffles(deck: np.ndarray, opp_hand: np.int64, opp_known: np.int64, pos: int, K: int,
                      seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``K`` deals the acting player cannot tell from the real one, seeded by ``seed``: the stock ``deck[pos:]`` and
    the opponent's cards not in ``opp_known`` (the cards it was seen to take) dealt afresh from the same cards.
    Returns ``(decks (K, 52), the opponent's hand masks (K,))``."""
    np.random.seed(seed)
    unseen = opp_hand & ~opp_known
    n_hand = 0
    for c in range(NUM_CARDS):
        n_hand += (unseen >> np.int64(c)) & np.int64(1)
    pool = np.empty(n_hand + NUM_CARDS - pos, np.int8)
    j = 0
    for c in range(NUM_CARDS):
        if (unseen >> np.int64(c)) & np.int64(1):
            pool[j] = c
            j += 1
    for t in range(pos, NUM_CARDS):
        pool[j] = deck[t]
        j += 1
    decks = np.empty((K, NUM_CARDS), np.int8)
    hands = np.empty(K, np.int64)
    for r in range(K):
        np.random.shuffle(pool)
        h = opp_known
        for t in range(n_hand):
            h |= np.int64(1) << np.int64(pool[t])
        hands[r] = h
        decks[r, :pos] = deck[:pos]
        decks[r, pos:] = pool[n_hand:]
    return decks, hands


@njit(cache=True)
def _value_row(i: int, S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray,
               R: np.ndarray, seeds: np.ndarray, K: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
               values: np.ndarray, se: np.ndarray) -> None:
    S2 = np.zeros((1, S.shape[1]), np.int64)
    M2 = np.zeros((1, M.shape[1]), np.int64)
    deck2 = np.zeros((1, NUM_CARDS), np.int8)
    pile2 = np.zeros((1, NUM_CARDS), np.int8)
    mask2 = np.zeros((1, NUM_ACTIONS), np.int8)
    obs = np.zeros((1, hk.OBS_SIZE), np.float32)
    vals = np.zeros(K, np.float64)
    p = S[i, hk.PLAYER]
    shuffled = reshuffles(deck[i], S[i, hk.POS], K, seeds[i])
    for a in range(NUM_ACTIONS):
        values[i, a] = np.nan
        se[i, a] = np.nan
        if not mask[i, a]:
            continue
        n = 1 if a >= KNOCK_BASE else K  # a knock ends the hand: the same under every reshuffle
        values[i, a], se[i, a] = mean_points(S, M, deck, pile, mask, i, R, a, p, fp, ip, gates, shuffled, n, vals,
                                             S2, M2, deck2, pile2, mask2, obs)


@njit(cache=True)
def value_rows_serial(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray,
                      R: np.ndarray, seeds: np.ndarray, K: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
                      values: np.ndarray, se: np.ndarray, hidden: int) -> None:
    """Value every legal action of each row (see the module doc) with the gated player continuing, one thread:
    the reference the fused kernel (:func:`value_rows_fast`) is tested and benchmarked against (on the true deal
    only: ``hidden`` must be :data:`STOCK`)."""
    if hidden != STOCK:
        raise ValueError("the reference kernel values the true deal only (hidden = STOCK)")
    for i in range(S.shape[0]):
        _value_row(i, S, M, deck, pile, mask, R, seeds, K, fp, ip, gates, values, se)


MOVE_BITS = 15  # the move table holds up to 2**15 states; when 3/4 full it is cleared
_MSIZE = 1 << MOVE_BITS
_MFULL = (3 * _MSIZE) // 4
KEY_WIDTH = 6


@njit(cache=True)
def new_moves() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty move table: ``(keys (n, 6), moves (-1 free), count)``."""
    return np.zeros((_MSIZE, KEY_WIDTH), np.int64), np.full(_MSIZE, -1, np.int64), np.zeros(1, np.int64)


@njit(cache=True)
def _state_key(S: np.ndarray, M: np.ndarray, pile: np.ndarray, key: np.ndarray) -> None:
    """Everything the acting player's observation and legal mask are made of (:func:`hand_kernels.observe_rows`,
    :func:`hand_kernels.legal_row`), packed in six integers: two states with the same key get the same move."""
    p = S[0, hk.PLAYER]
    n = S[0, hk.PILE_LEN]
    pile_set = 0
    for j in range(n):
        pile_set |= np.int64(1) << np.int64(pile[0, j])
    top = np.int64(pile[0, n - 1]) + 1 if n > 0 else np.int64(0)
    key[0] = M[0, hk.HAND0 + p]
    key[1] = M[0, hk.KNOWN0 + 1 - p]
    key[2] = M[0, hk.DECLINED0 + 1 - p]
    key[3] = M[0, hk.DECLINED0 + p]
    key[4] = pile_set
    key[5] = (top | ((S[0, hk.TAKEN] + 1) << 6) | (S[0, hk.PHASE] << 12) | (p << 16) | (S[0, hk.STOCK_ONLY] << 18)
              | (S[0, hk.POS] << 20) | (S[0, hk.TURNS] << 28))


@njit(cache=True)
def _slot(key: np.ndarray, table: tuple) -> int:
    """The slot of ``key`` in the move table: where it is, or the free slot where it would go."""
    keys, moves, _ = table
    h = np.uint64(0)
    for j in range(KEY_WIDTH):
        h = (h ^ np.uint64(key[j])) * np.uint64(0x9E3779B97F4A7C15)
    i = np.int64(h >> np.uint64(64 - MOVE_BITS))
    while moves[i] >= 0:
        same = True
        for j in range(KEY_WIDTH):
            if keys[i, j] != key[j]:
                same = False
                break
        if same:
            return i
        i = (i + 1) & (_MSIZE - 1)
    return i


@njit(cache=True)
def _finish_fast(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray, R: np.ndarray,
                 first: int, p: int, fp: np.ndarray, ip: np.ndarray, gates: tuple, obs: np.ndarray,
                 table: tuple, key: np.ndarray) -> float:
    """:func:`gin3_training.gates.label_kernels.finish_hand` with the fused player (:mod:`.fast_player`), each
    state's move read from ``table`` where a continuation of the same decision met the same state before."""
    one = np.zeros(1, np.int64)
    act = np.zeros(1, np.int64)
    who = np.full(1, -1, np.int64)
    rewards = np.zeros((1, 2), np.float32)
    ended = np.zeros(1, np.int64)
    act[0] = first
    hk.apply_rows(one, act, S, M, deck, pile, mask, R, rewards, ended)
    limit = R[hk.R_KNOCK_LIMIT]
    keys, moves, count = table
    while S[0, hk.PHASE] != hk.OVER:
        _state_key(S, M, pile, key)
        i = _slot(key, table)
        if moves[i] >= 0:
            act[0] = moves[i]
        else:
            hk.observe_rows(one, who, S, M, pile, R, obs)
            act[0] = fast_gated_act(obs, mask, np.int64(0), fp, ip, gates, limit)
            if count[0] >= _MFULL:
                moves[:] = -1
                count[0] = 0
                i = _slot(key, table)
            keys[i, :] = key
            moves[i] = act[0]
            count[0] += 1
        hk.apply_rows(one, act, S, M, deck, pile, mask, R, rewards, ended)
    return rewards[0, p]


@njit(cache=True)
def _value_row_fast(i: int, S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray,
                    R: np.ndarray, seeds: np.ndarray, K: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
                    values: np.ndarray, se: np.ndarray, hidden: int) -> None:
    S2 = np.zeros((1, S.shape[1]), np.int64)
    M2 = np.zeros((1, M.shape[1]), np.int64)
    deck2 = np.zeros((1, NUM_CARDS), np.int8)
    pile2 = np.zeros((1, NUM_CARDS), np.int8)
    mask2 = np.zeros((1, NUM_ACTIONS), np.int8)
    obs = np.zeros((1, hk.OBS_SIZE), np.float32)
    vals = np.zeros(K, np.float64)
    table = new_moves()  # the continuation player's move in each state they meet
    key = np.zeros(KEY_WIDTH, np.int64)
    p = S[i, hk.PLAYER]
    opp = hk.HAND0 + 1 - p
    if hidden == OPPONENT:
        shuffled, opp_hands = belief_reshuffles(deck[i], M[i, opp], M[i, hk.KNOWN0 + 1 - p], S[i, hk.POS], K, seeds[i])
    else:
        shuffled = reshuffles(deck[i], S[i, hk.POS], K, seeds[i])
        opp_hands = np.full(K, M[i, opp], np.int64)
    for a in range(NUM_ACTIONS):
        values[i, a] = np.nan
        se[i, a] = np.nan
        if not mask[i, a]:
            continue
        n = 1 if a >= KNOCK_BASE and hidden == STOCK else K  # a knock on the true deal: the same every reshuffle
        tot = 0.0
        for r in range(n):
            _copy(S, M, deck, pile, mask, i, S2, M2, deck2, pile2, mask2)
            deck2[0, :] = shuffled[r, :]
            M2[0, opp] = opp_hands[r]
            vals[r] = _finish_fast(S2, M2, deck2, pile2, mask2, R, a, p, fp, ip, gates, obs, table, key)
            tot += vals[r]
        m = tot / n
        var = 0.0
        for r in range(n):
            var += (vals[r] - m) ** 2
        values[i, a] = m
        se[i, a] = np.sqrt(var / (n - 1) / n) if n > 1 else 0.0


@njit(cache=True, parallel=True)
def value_rows_fast(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray,
                    R: np.ndarray, seeds: np.ndarray, K: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
                    values: np.ndarray, se: np.ndarray, hidden: int) -> None:
    """:func:`value_rows_serial` with the fused continuation player (:mod:`.fast_player`), rows spread over
    numba's threads: the same values."""
    for i in prange(S.shape[0]):
        _value_row_fast(i, S, M, deck, pile, mask, R, seeds, K, fp, ip, gates, values, se, hidden)


@njit(cache=True)
def value_rows_fast_serial(S: np.ndarray, M: np.ndarray, deck: np.ndarray, pile: np.ndarray, mask: np.ndarray,
                           R: np.ndarray, seeds: np.ndarray, K: int, fp: np.ndarray, ip: np.ndarray, gates: tuple,
                           values: np.ndarray, se: np.ndarray, hidden: int) -> None:
    """:func:`value_rows_fast` on one thread."""
    for i in range(S.shape[0]):
        _value_row_fast(i, S, M, deck, pile, mask, R, seeds, K, fp, ip, gates, values, se, hidden)
