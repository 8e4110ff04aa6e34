"""One hand of three-handed gin: the captain (for the team) against the box.

Compiled twin: :mod:`gin3_env.kernels.hand_kernels` (``VectorHands``), tied by ``tests/test_vector_core.py``.

Players inside a hand are ``TEAM = 0`` (the captain, who plays first) and
``BOX = 1`` (the dealer). The hand moves through explicit phases::

    OFFER_TEAM --take--> DISCARD (team) ...
        |pass
    OFFER_BOX  --take--> DISCARD (box) ...
        |pass
    DRAW (team, stock only) -> DISCARD -> DRAW (other player) -> ... -> OVER

:func:`legal_actions` is the one place that decides legality, per phase.
:meth:`HandState.apply` checks an action against it before touching anything,
so a refused action leaves the state as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import IllegalActionError  # the usage errors' module, below the engine
from .actions import (
    DISCARD_BASE,
    DRAW_STOCK,
    KNOCK_BASE,
    NUM_ACTIONS,
    PASS,
    TAKE_DISCARD,
    action_str,
    check_action,
)
from .cards import NUM_CARDS, card_str, cards_of
from .melds import deadwood_of_mask, knock_deadwoods
from .phases import Phase, legal_in_phase
from .result import BOX, PLAYER_NAMES, TEAM, HandResult, Spread
from .rules import Rules
from .showdown import showdown
from .view import PlayerView

LOG_VERSION = 1
HAND_SIZE = 10
UPCARD = 2 * HAND_SIZE  # the deck's cards 0..19 are dealt alternately (team first), card 20 is the upcard
_OVER, _DISCARD = Phase.OVER, Phase.DISCARD


def check_deck(deck: Sequence[int]) -> list[int]:
    """Return the deck as a list of ints if it is a permutation of 0..51, else raise."""
    try:
        cards = [int(c) for c in deck]
    except (TypeError, ValueError):
        raise ValueError(f"deck must be a sequence of 52 card ints, got {deck!r:.80}") from None
    if any(not isinstance(c, int | np.integer) or isinstance(c, bool) for c in deck):
        raise ValueError("deck must hold ints 0..51")
    bad = [c for c in cards if not 0 <= c < NUM_CARDS]
    if bad:
        raise ValueError(f"deck holds a value that is not a card 0..51: {bad[0]}")
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise ValueError(f"deck repeats card {card_str(c)} ({c})")
        seen.add(c)
    if len(cards) != NUM_CARDS:
        missing = sorted(set(range(NUM_CARDS)) - seen)
        raise ValueError(
            f"deck must hold all 52 cards once, got {len(cards)}"
            f" (missing {' '.join(card_str(c) for c in missing[:5])}{'...' if len(missing) > 5 else ''})"
        )
    return cards


@dataclass
class HandState:
    """The full (hidden) state of one hand. Build with :meth:`deal`."""

    rules: Rules
    deck: tuple[int, ...]
    hands: list[int]  # 52-bit masks, per player
    stock: list[int]  # stock[-1] is the next card drawn
    discards: list[int]  # discards[-1] is the top
    phase: Phase = Phase.OFFER_TEAM
    player: int = TEAM
    turns: int = 0  # completed turns (a take or draw followed by a discard)
    stock_only: bool = False  # both refused the upcard: the captain must draw from the stock
    taken: int | None = None  # card taken from the discard pile this turn
    known: list[int] = field(default_factory=lambda: [0, 0])  # taken from the pile, still held
    declined: list[int] = field(default_factory=lambda: [0, 0])  # passed upcard, drawn-over discards
    actions: list[int] = field(default_factory=list)
    result: HandResult | None = None
    _legal: list[int] | None = field(default=None, repr=False)
    _knock_dw: dict[int, int] | None = field(default=None, repr=False)
    _deadwood: list[int | None] = field(default_factory=lambda: [None, None], repr=False)  # per player, cached
    _pile: int = field(default=-1, repr=False)  # mask of the discards (top included); -1: not yet counted

    # ---------------------------------------------------------------- setup
    @classmethod
    def deal(
        cls,
        rules: Rules | None = None,
        deck: Sequence[int] | None = None,
        rng: np.random.Generator | None = None,
    ) -> HandState:
        """Deal from an explicit deck order (§4.3) or a shuffle by ``rng``."""
        rules = rules or Rules()
        if deck is None:
            rng = rng if rng is not None else np.random.default_rng()
            order = [int(c) for c in rng.permutation(NUM_CARDS)]
        else:
            order = check_deck(deck)
        team = sum(1 << c for c in order[0:UPCARD:2])
        box = sum(1 << c for c in order[1:UPCARD:2])
        return cls(
            rules=rules,
            deck=tuple(order),
            hands=[team, box],
            stock=order[:UPCARD:-1],
            discards=[order[UPCARD]],
        )

    def clone(self) -> HandState:
        """An independent copy (lists copied; rules, deck and result are immutable and shared)."""
        return HandState(
            rules=self.rules,
            deck=self.deck,
            hands=list(self.hands),
            stock=list(self.stock),
            discards=list(self.discards),
            phase=self.phase,
            player=self.player,
            turns=self.turns,
            stock_only=self.stock_only,
            taken=self.taken,
            known=list(self.known),
            declined=list(self.declined),
            actions=list(self.actions),
            result=self.result,
            _legal=None if self._legal is None else list(self._legal),
            _knock_dw=None if self._knock_dw is None else dict(self._knock_dw),
            _deadwood=list(self._deadwood),
            _pile=self._pile,
        )

    # -------------------------------------------------------------- queries
    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def top_discard(self) -> int | None:
        return self.discards[-1] if self.discards else None

    @property
    def upcard(self) -> int:
        """The card turned up at the deal (``deck[20]``)."""
        self._require_deal("upcard")
        return self.deck[20]

    def _require_deal(self, what: str) -> None:
        if len(self.deck) != NUM_CARDS:
            raise ValueError(f"this state has no deal, so no {what} (a determinised sample: the deal is unknown)")

    def hand_cards(self, player: int) -> list[int]:
        return cards_of(self.hands[player])

    def knock_deadwoods(self) -> dict[int, int]:
        """Deadwood left by discarding each card (discard phase only, cached)."""
        if self._knock_dw is None:
            self._knock_dw = knock_deadwoods(self.hands[self.player])
        return self._knock_dw

    def legal_actions(self) -> list[int]:
        """The legal action ids of the player to act, ascending (cached)."""
        if self._legal is None:
            self._legal = legal_actions(self)
        return self._legal

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def view(self, player: int) -> PlayerView:
        """What ``player`` (TEAM or BOX) knows of this hand (see :mod:`.view`)."""
        if player != TEAM and player != BOX:
            raise ValueError(f"player must be 0 (team) or 1 (box), got {player!r}")
        opp = 1 - player
        phase = self.phase
        over = phase is _OVER
        discards = self.discards
        acting = self.player == player and not over
        legal = tuple(self.legal_actions()) if acting else None  # computes the knock deadwoods it needs
        kd = self._knock_dw if acting and phase is _DISCARD else None
        if kd is not None:
            dw = min(kd.values())
        else:
            cached = self._deadwood[player]
            dw = deadwood_of_mask(self.hands[player]) if cached is None else cached
            self._deadwood[player] = dw
        pile = self._pile
        if pile < 0:
            pile = self._pile = sum(1 << c for c in discards)
        view = object.__new__(PlayerView)
        # The frozen dataclass's fields, set in one go (its __init__ costs several times more).
        view.__dict__.update(
            player=player,
            to_act=None if over else self.player,
            phase=phase,
            hand=self.hands[player],
            top=discards[-1] if discards else None,
            pile=tuple(discards[:-1]),
            _pile_mask=pile & ~(1 << discards[-1]) if discards else 0,
            opponent_known=self.known[opp],
            opponent_declined=self.declined[opp],
            own_declined=self.declined[player],
            taken=None if over else self.taken,
            opponent_hand_size=self.hands[opp].bit_count(),
            stock_size=len(self.stock),
            turns=self.turns,
            stock_only=self.stock_only,
            rules=self.rules,
            own_known=self.known[player],
            _knock_dw=kd,  # shared, never changed in place (the state replaces it; the view hands out copies)
            _legal=legal,
            _deadwood=dw,
        )
        return view

    # --------------------------------------------------------------- moves
    def apply(self, action: int) -> HandResult | None:
        """Play ``action`` for the player to act; return the result if the hand ends with it.

        An action that is not legal raises ``IllegalActionError`` and changes nothing."""
        if type(action) is not int:  # plain ints are checked by the membership test below
            action = check_action(action)
        if action not in self.legal_actions():
            raise IllegalActionError(self._illegal_message(action))
        self._legal = None
        p = self.player
        self.actions.append(action)
        if action == PASS:
            self.declined[p] |= 1 << self.discards[-1]
            if self.phase is Phase.OFFER_TEAM:
                self.phase, self.player = Phase.OFFER_BOX, BOX
            else:
                self.phase, self.player, self.stock_only = Phase.DRAW, TEAM, True
        elif action == TAKE_DISCARD:
            card = self.discards.pop()
            if self._pile >= 0:
                self._pile &= ~(1 << card)
            self.hands[p] |= 1 << card
            self.known[p] |= 1 << card
            self.taken = card
            self._to_discard_phase()
        elif action == DRAW_STOCK:
            if self.discards:
                self.declined[p] |= 1 << self.discards[-1]
            self.hands[p] |= 1 << self.stock.pop()
            self.taken = None
            self.stock_only = False
            self._to_discard_phase()
        elif action < KNOCK_BASE:
            self._discard(action - DISCARD_BASE)
        else:
            self._knock(action - KNOCK_BASE)
        return self.result

    def _to_discard_phase(self) -> None:
        self.phase = Phase.DISCARD
        self._knock_dw = None
        self._deadwood[self.player] = None

    def _discard(self, card: int) -> None:
        p = self.player
        bit = 1 << card
        kd = self._knock_dw  # of the 11 cards before this discard, if computed: kd[card] is what is left
        self._deadwood[p] = None if kd is None else kd[card]
        self.hands[p] &= ~bit
        self.known[p] &= ~bit
        self.discards.append(card)
        if self._pile >= 0:
            self._pile |= bit
        self.taken = None
        self.turns += 1
        if len(self.stock) <= self.rules.dead_stock:
            self._end(HandResult("dead"))
        elif self.turns >= self.rules.max_turns:
            self._end(HandResult("truncated"))
        else:
            self.phase, self.player = Phase.DRAW, 1 - p

    def _knock(self, card: int) -> None:
        p = self.player
        self.hands[p] &= ~(1 << card)
        self.known[p] &= ~(1 << card)
        self._deadwood[p] = None
        self.turns += 1
        s = showdown(self.hands[p], self.hands[1 - p], self.rules)
        spreads = [Spread.of(s.knocker_spread), Spread.of(s.defender_spread, s.layoffs)]
        if p == BOX:
            spreads.reverse()
        self._end(
            HandResult(
                outcome=s.outcome,
                knocker=p,
                winner=p if s.knocker_won else 1 - p,
                points=s.points,
                knocker_deadwood=s.knocker_deadwood,
                defender_deadwood=s.defender_deadwood,
                spreads=(spreads[0], spreads[1]),
                knock_discard=card,
            )
        )

    def _end(self, result: HandResult) -> None:
        self.result = result
        self.phase = Phase.OVER

    def _illegal_message(self, action: int) -> str:
        if self.phase is Phase.OVER:
            return f"illegal action {action} ({action_str(action)}): the hand is over"
        legal = ", ".join(f"{a} ({action_str(a)})" for a in self.legal_actions())
        return (
            f"illegal action {action} ({action_str(action)}) for the {PLAYER_NAMES[self.player]} "
            f"in phase {self.phase.name}; legal: {legal}"
        )

    # --------------------------------------------------------------- replay
    def log(self) -> dict[str, Any]:
        """A JSON-able record (rules, deck, actions) that :func:`replay_hand` reproduces exactly."""
        self._require_deal("replay log")
        return {
            "version": LOG_VERSION,
            "rules": self.rules.to_dict(),
            "deck": list(self.deck),
            "actions": list(self.actions),
        }

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_legal"] = state["_knock_dw"] = None
        state["_deadwood"] = [None, None]
        return state


def legal_actions(state: HandState) -> list[int]:
    """The legal actions of the player to act (§5), by :func:`~.phases.legal_in_phase`."""
    return legal_in_phase(
        state.phase,
        stock_only=state.stock_only,
        has_top=bool(state.discards),
        hand=state.hands[state.player],
        taken=state.taken,
        rules=state.rules,
        knock_deadwoods=state.knock_deadwoods,
    )


def replay_hand(log: dict[str, Any]) -> HandState:
    """Rebuild a hand from :meth:`HandState.log`; raises ``ValueError`` on a bad log."""
    if not isinstance(log, dict) or "deck" not in log or "actions" not in log:
        raise ValueError("a hand log is a dict with 'deck' and 'actions'")
    rules = Rules.from_dict(log.get("rules", {}))
    state = HandState.deal(rules, deck=log["deck"])
    for i, action in enumerate(log["actions"]):
        try:
            state.apply(action)
        except ValueError as exc:
            raise ValueError(f"hand log action #{i}: {exc}") from None
    return state
