"""``VectorHands``: N independent hands stepped together by compiled kernels.

The batched twin of :class:`gin3_env.engine.hand.HandState` (docs/design.md, "The batched core"):
hands are 52-bit masks, the stock and the discard pile small integer arrays with their
lengths, and every move, legal mask, showdown and observation is a numba kernel that
follows the scalar engine exactly (``tests/test_vector_core.py`` plays both side by side).

    hands = VectorHands(4096, seed=0)          # dealt at once; rules as keywords or rules=
    obs, mask = hands.observe(), hands.action_mask
    rewards, terminated, truncated = hands.step(actions)   # finished hands are dealt again

Decks come from ``numpy.random.default_rng(seed)``: ``Generator.permuted`` of ``0..51``,
one row per hand dealt, in hand order (the first deal, then each redeal in the order the
hands end, lowest index first within a step), so a seed gives the same deals everywhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.actions import NUM_ACTIONS, action_str
from ..engine.cards import NUM_CARDS, card_str
from ..engine.hand import PLAYER_NAMES, HandState
from ..engine.phases import Phase
from ..engine.result import IN_PLAY, OUTCOMES
from ..engine.rules import Rules
from ..errors import BatchActionError, HandActionOutOfRangeError, IllegalHandActionError, check_seed
from ..observation.state import encode_state_batch
from . import hand_kernels as hk
from .hand_kernels import rules_vector

OUTCOME_NAMES = OUTCOMES  # the engine's names of the outcome codes in the column hk.OUTCOME


def check_decks(decks: Any, num_envs: int) -> np.ndarray:
    """``decks`` as an int8 array (num_envs, 52) of permutations, or a ``ValueError`` naming the row."""
    arr = np.asarray(decks)
    if arr.ndim != 2 or arr.shape != (num_envs, NUM_CARDS):
        raise ValueError(f"decks must have shape ({num_envs}, {NUM_CARDS}), got {arr.shape}")
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"decks must hold ints 0..51, got dtype {arr.dtype}")
    bad_range = (arr < 0) | (arr >= NUM_CARDS)
    if bad_range.any():
        row, col = map(int, np.argwhere(bad_range)[0])
        raise ValueError(f"deck row {row} holds a value that is not a card 0..51: {arr[row, col]} (position {col})")
    ok = (np.sort(arr, axis=1) == np.arange(NUM_CARDS)).all(axis=1)
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        counts = np.bincount(arr[row], minlength=NUM_CARDS)
        dup = int(np.flatnonzero(counts > 1)[0])
        raise ValueError(f"deck row {row} is not a permutation of 0..51: it repeats card {card_str(dup)} ({dup})")
    return arr.astype(np.int8)


def action_array(actions: Any, where: np.ndarray, integral_floats: bool = False) -> np.ndarray:
    """``actions`` as int64 (len(where),) if each is an int in ``0..106``, else a :class:`BatchActionError`
    naming the problem and, where one hand is at fault, the hand (``where[k]``) and its action.
    With ``integral_floats``, floats that are whole numbers pass (SB3 hands some actions over as floats)."""
    n = len(where)
    try:
        arr = np.asarray(actions)
    except (ValueError, TypeError) as exc:  # ragged lists and the like
        raise BatchActionError(f"actions must be an array of shape ({n},) of ints 0..{NUM_ACTIONS - 1}, "
                               f"got {type(actions).__name__} ({exc})") from None
    if arr.shape != (n,):
        raise BatchActionError(f"actions must have shape ({n},), got {arr.shape}")
    if not isinstance(actions, np.ndarray):  # a list: numpy reads True as 1, refused as a bool array is
        flags = [k for k, a in enumerate(actions) if isinstance(a, bool | np.bool_)]
        if flags:
            k = flags[0]
            raise BatchActionError(f"actions must be integers, got a bool: hand {int(where[k])}: action "
                                   f"{actions[k]!r}", int(where[k]), actions[k])
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        floats = np.issubdtype(arr.dtype, np.floating)
        if floats and integral_floats:
            whole = np.isfinite(arr) & (arr == np.round(arr))
            bad_at = np.flatnonzero(~whole)
        else:
            bad_at = np.arange(n)
        if len(bad_at):
            k = int(bad_at[0])
            value = arr[k].item() if isinstance(arr[k], np.generic) else arr[k]
            raise BatchActionError(
                f"actions must be integers, got dtype {arr.dtype}: hand {int(where[k])}: action {value!r:.60}",
                int(where[k]), value,
            )
    bad = (arr < 0) | (arr >= NUM_ACTIONS)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        value = arr[k].item()
        raise HandActionOutOfRangeError(
            f"hand {int(where[k])}: action {value} out of range 0..{NUM_ACTIONS - 1}", int(where[k]), value
        )
    return arr.astype(np.int64)


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


class VectorHands:
    """``num_envs`` hands of three-handed gin played by compiled kernels (see the module doc).

    Per-hand state after each call: :attr:`current_player` (0 team, 1 box), :attr:`action_mask`,
    :meth:`observe`; the result of each hand's last end as arrays: :attr:`outcome` (codes of
    :data:`OUTCOME_NAMES`), :attr:`knocker` and :attr:`winner` (-1 none), :attr:`points`,
    :attr:`knocker_deadwood`, :attr:`defender_deadwood` (-1 when no knock), :attr:`knock_card`.
    :attr:`deal_index` numbers the deals in the order they are made (0.. from the last reset).
    """

    def __init__(self, num_envs: int, *, seed: int | None = None, rules: Rules | None = None,
                 **rule_options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        if rules is not None and rule_options:
            raise ValueError("give rules=Rules(...) or rules options as keywords, not both")
        if rules is not None and not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Rules, got {rules!r}")
        self.rules = rules if rules is not None else Rules(**rule_options)
        self.num_envs = n = int(num_envs)
        self._R = rules_vector(self.rules)
        self._S = np.zeros((n, hk.NUM_COLS), dtype=np.int64)
        self._S[:, hk.KNOCKER : hk.KNOCK_CARD + 1] = -1
        self._S[:, hk.POINTS] = 0
        self._hands = np.zeros((n, hk.NUM_MASKS), dtype=np.uint64)  # 52-bit masks: hands, known, declined
        self._M = self._hands.view(np.int64)
        self._deck = np.zeros((n, NUM_CARDS), dtype=np.int8)
        self._pile = np.zeros((n, NUM_CARDS), dtype=np.int8)
        self._mask = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        self._all = np.arange(n, dtype=np.int64)
        self._queue = np.zeros((0, NUM_CARDS), dtype=np.int8)
        self._queue_pos = 0
        self.deal_index = np.zeros(n, dtype=np.int64)
        self._deals = 0
        self.reset(seed=seed)

    # ------------------------------------------------------------------ dealing
    def reset(self, seed: int | None = None, decks: Any = None) -> None:
        """Deal every hand again: from ``decks`` (num_envs, 52) if given, else from the generator
        (reseeded when ``seed`` is given). Results of earlier hands are cleared."""
        seed = check_seed(seed)
        if decks is not None:
            rows = check_decks(decks, self.num_envs)
        if seed is not None or not hasattr(self, "_rng"):
            self._rng = np.random.default_rng(seed)
        if decks is None:
            rows = self._draw_decks(self.num_envs)
        self._S[:, hk.OUTCOME] = IN_PLAY
        self._S[:, hk.KNOCKER : hk.KNOCK_CARD + 1] = -1
        self._S[:, hk.POINTS] = 0
        self._queue = np.zeros((0, NUM_CARDS), dtype=np.int8)
        self._queue_pos = 0
        self._deals = 0
        self._deal(self._all, rows)

    def queue_decks(self, decks: Any) -> None:
        """Decks (k, 52) that the next redeals take, in order, before drawing from the generator."""
        rows = check_decks(decks, len(np.asarray(decks))) if len(np.asarray(decks)) else np.zeros((0, 52), np.int8)
        self._queue = np.concatenate([self._queue[self._queue_pos :], rows])
        self._queue_pos = 0

    def _draw_decks(self, k: int) -> np.ndarray:
        base = np.broadcast_to(np.arange(NUM_CARDS, dtype=np.int8), (k, NUM_CARDS))
        return np.ascontiguousarray(self._rng.permuted(base, axis=1))  # C order, as decks given by a caller

    def _next_decks(self, k: int) -> np.ndarray:
        left = len(self._queue) - self._queue_pos
        take = min(left, k)
        out = self._queue[self._queue_pos : self._queue_pos + take]
        self._queue_pos += take
        if take < k:
            out = np.concatenate([out, self._draw_decks(k - take)])
        return out

    def _deal(self, rows: np.ndarray, decks: np.ndarray) -> None:
        hk.deal_rows(rows, decks, self._S, self._M, self._deck, self._pile, self._mask, self._R)
        self.deal_index[rows] = self._deals + np.arange(len(rows))
        self._deals += len(rows)

    def deal_like(self, rows: np.ndarray, other: VectorHands) -> None:
        """Deal ``rows`` again from the decks ``other``'s hands in ``rows`` were dealt from (a twin
        of those hands: the same cards, to be played by other players)."""
        rows = np.asarray(rows, dtype=np.int64)
        if other.num_envs != self.num_envs:
            raise ValueError(f"the other hands hold {other.num_envs} hands, these {self.num_envs}")
        if len(rows):
            self._deal(rows, other._deck[rows])

    def redeal(self, rows: np.ndarray) -> None:
        """Deal new hands in ``rows`` (the next queued decks, else from the generator)."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows):
            self._deal(rows, self._next_decks(len(rows)))

    # ------------------------------------------------------------------ reading
    @property
    def current_player(self) -> np.ndarray:
        """int8 (num_envs,): 0 the team, 1 the box, the player to act in each hand."""
        return self._S[:, hk.PLAYER].astype(np.int8)

    @property
    def phase(self) -> np.ndarray:
        return self._S[:, hk.PHASE].astype(np.int8)

    @property
    def action_mask(self) -> np.ndarray:
        """int8 (num_envs, 107): the legal mask of the player to act (a copy)."""
        return self._mask.copy()

    def observe(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32 (num_envs, 374): the observation of the player to act in each hand."""
        return self.observe_rows(self._all, out=out)

    def observe_rows(self, rows: np.ndarray, players: np.ndarray | None = None,
                     out: np.ndarray | None = None) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        if out is None:
            out = np.empty((len(rows), hk.OBS_SIZE), dtype=np.float32)
        who = np.full(len(rows), -1, np.int64) if players is None else np.asarray(players, dtype=np.int64)
        hk.observe_rows(rows, who, self._S, self._M, self._pile, self._R, out)
        return out

    # Zero-copy, read-only views of the state arrays: they follow the hands as they are played
    # (copy one to keep it), and writing to them is refused.
    @property
    def players_view(self) -> np.ndarray:
        """int64 (num_envs,): the player to act in each hand (0 the team, 1 the box); a read-only view."""
        return _read_only(self._S[:, hk.PLAYER])

    @property
    def mask_view(self) -> np.ndarray:
        """int8 (num_envs, 107): the legal mask of the player to act in each hand; a read-only view."""
        return _read_only(self._mask)

    @property
    def winner_view(self) -> np.ndarray:
        """int64 (num_envs,): the winner of each hand's last end (-1 none); a read-only view."""
        return _read_only(self._S[:, hk.WINNER])

    @property
    def turns_view(self) -> np.ndarray:
        """int64 (num_envs,): the turns played in each hand (at its end: of its last end); a read-only view."""
        return _read_only(self._S[:, hk.TURNS])

    @property
    def hands(self) -> np.ndarray:
        """uint64 (num_envs, 2): each player's cards as a 52-bit mask (hidden state; for tests and tools)."""
        return self._hands[:, hk.HAND0 : hk.HAND0 + 2].copy()

    def state(self) -> np.ndarray:
        """float32 (num_envs, 582): the privileged state of every hand, row ``i`` equal to
        :func:`gin3_env.observation.state.encode_state` of hand ``i`` (for critics; never an observation)."""
        S, M = self._S, self._M
        return encode_state_batch(
            hands=M[:, hk.HAND0 : hk.HAND0 + 2], known=M[:, hk.KNOWN0 : hk.KNOWN0 + 2],
            declined=M[:, hk.DECLINED0 : hk.DECLINED0 + 2], deck=self._deck, stock_start=S[:, hk.POS],
            pile=self._pile, pile_len=S[:, hk.PILE_LEN], phase=S[:, hk.PHASE], to_act=S[:, hk.PLAYER],
            turns=S[:, hk.TURNS], stock_only=S[:, hk.STOCK_ONLY], taken=S[:, hk.TAKEN], max_turns=self.rules.max_turns,
        )

    def hand_state(self, i: int) -> HandState:
        """Hand ``i`` as an engine :class:`~gin3_env.engine.hand.HandState` (a copy without the move
        list, so without a replay log, and without the result of a finished hand); for frames and tools."""
        s, m = self._S[i], [int(x) for x in self._hands[i]]
        deck = [int(c) for c in self._deck[i]]
        return HandState(
            rules=self.rules, deck=tuple(deck), hands=m[hk.HAND0 : hk.HAND0 + 2], stock=deck[s[hk.POS] :][::-1],
            discards=[int(c) for c in self._pile[i, : s[hk.PILE_LEN]]], phase=Phase(int(s[hk.PHASE])),
            player=int(s[hk.PLAYER]), turns=int(s[hk.TURNS]), stock_only=bool(s[hk.STOCK_ONLY]),
            taken=None if s[hk.TAKEN] < 0 else int(s[hk.TAKEN]), known=m[hk.KNOWN0 : hk.KNOWN0 + 2],
            declined=m[hk.DECLINED0 : hk.DECLINED0 + 2],
        )

    def _col(self, col: int) -> np.ndarray:
        return self._S[:, col].copy()

    outcome = property(lambda self: self._col(hk.OUTCOME).astype(np.int8))
    knocker = property(lambda self: self._col(hk.KNOCKER).astype(np.int8))
    winner = property(lambda self: self._col(hk.WINNER).astype(np.int8))
    points = property(lambda self: self._col(hk.POINTS).astype(np.int32))
    knocker_deadwood = property(lambda self: self._col(hk.KNOCKER_DW).astype(np.int16))
    defender_deadwood = property(lambda self: self._col(hk.DEFENDER_DW).astype(np.int16))
    knock_card = property(lambda self: self._col(hk.KNOCK_CARD).astype(np.int8))
    turns = property(lambda self: self._col(hk.TURNS))

    def result(self, i: int) -> dict[str, Any]:
        """The last result of hand ``i`` as a dict (the scalar ``HandResult`` fields that the arrays hold)."""
        s = self._S[i]
        name = lambda p: None if p < 0 else PLAYER_NAMES[p]  # noqa: E731
        knocked = s[hk.KNOCKER] >= 0
        return {
            "outcome": OUTCOME_NAMES[s[hk.OUTCOME]],
            "knocker": name(s[hk.KNOCKER]),
            "winner": name(s[hk.WINNER]),
            "points": int(s[hk.POINTS]),
            "knocker_deadwood": int(s[hk.KNOCKER_DW]) if knocked else None,
            "defender_deadwood": int(s[hk.DEFENDER_DW]) if knocked else None,
            "knock_discard": card_str(int(s[hk.KNOCK_CARD])) if knocked else None,
        }

    # ------------------------------------------------------------------ moves
    def check_actions(self, actions: Any, rows: np.ndarray | None = None) -> np.ndarray:
        """``actions`` as int64 if each is legal in its hand, else an error naming the hand and the action
        (:class:`BatchActionError`, :class:`HandActionOutOfRangeError`, :class:`IllegalHandActionError`)."""
        where = self._all if rows is None else rows
        acts = action_array(actions, where)
        illegal = self._mask[where, acts] == 0
        if illegal.any():
            k = int(np.flatnonzero(illegal)[0])
            i, a = int(where[k]), int(acts[k])
            legal = ", ".join(f"{x} ({action_str(int(x))})" for x in np.flatnonzero(self._mask[i]))
            raise IllegalHandActionError(
                f"hand {i}: illegal action {a} ({action_str(a)}) for the {PLAYER_NAMES[self._S[i, hk.PLAYER]]} "
                f"in phase {Phase(self._S[i, hk.PHASE]).name}; legal: {legal}", i, a
            )
        return acts

    def apply(self, rows: np.ndarray, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """Play checked ``actions`` in ``rows`` without redealing; returns (rewards (k, 2), outcome codes
        (k,), 0 for hands that go on). Finished hands stay over until :meth:`redeal`."""
        rows = np.asarray(rows, dtype=np.int64)
        acts = self.check_actions(actions, rows)
        rewards = np.zeros((len(rows), 2), dtype=np.float32)
        ended = np.zeros(len(rows), dtype=np.int64)
        hk.apply_rows(rows, acts, self._S, self._M, self._deck, self._pile, self._mask, self._R, rewards, ended)
        return rewards, ended

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play one action per hand; returns (rewards float32 (N, 2) team/box in game points,
        terminated bool (N,), truncated bool (N,)). A hand that ends is dealt again at once."""
        rewards, ended = self.apply(self._all, actions)
        done = ended != 0
        if done.any():
            self.redeal(np.flatnonzero(done))
        return rewards, done & (ended != hk.TRUNCATED), ended == hk.TRUNCATED

    def __repr__(self) -> str:
        return f"VectorHands(num_envs={self.num_envs}, rules={self.rules})"
