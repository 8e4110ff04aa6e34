"""What one player knows: :class:`PlayerView`, built by :meth:`HandState.view`.

A view holds exactly what that player may know of a hand, and nothing of the
hidden state (the opponent's unseen cards, the stock order, the deal). Two states
the player could not tell apart give equal views; everything a player acts on (the
observation vector, the action mask, the card features, a search's sampled states)
is derived from a view. Cards are ints 0..51, sets of cards 52-bit masks.

| field               | what it holds                                                              |
|---------------------|----------------------------------------------------------------------------|
| `player`            | whose view: 0 the team (captain), 1 the box                                |
| `to_act`            | whose decision it is (0 or 1), None once the hand is over                  |
| `phase`             | the hand's :class:`Phase`                                                  |
| `hand`              | own cards (mask)                                                           |
| `top`               | top of the discard pile (the upcard in the opening), or None               |
| `pile`              | the rest of the discard pile, bottom first (a tuple: the order is public)  |
| `opponent_known`    | cards the opponent took from the pile and still holds (mask)               |
| `opponent_declined` | cards the opponent refused: the passed upcard, discards he drew over      |
| `own_declined`      | cards this player refused                                                  |
| `taken`             | the card the player to act took from the pile this turn, else None (1)     |
| `opponent_hand_size`| how many cards the opponent holds (10, or 11 in his discard phase)         |
| `stock_size`        | cards left in the stock                                                    |
| `turns`             | completed turns                                                            |
| `stock_only`        | both refused the upcard: the captain must draw from the stock             |
| `rules`             | the :class:`Rules`                                                         |
| `own_known`         | own cards taken from the pile and still held (2)                           |

(1) He may not discard it this turn. Both players saw it taken, so both views hold
it (not only the taker's): a sample of the other player's view must know
it too, or its opponent could discard the card back.
(2) The player also remembers what he took, which is what the
opponent knows of his hand; :func:`~gin3_env.engine.determinise` needs it so that a
sample's opponent knows it too. The observation vector does not encode it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import FULL_MASK
from .melds import deadwood_of_mask as _deadwood_of_mask
from .melds import knock_deadwoods as _knock_deadwoods
from .phases import Phase, legal_in_phase
from .rules import Rules

__all__ = ["PlayerView"]


@dataclass(frozen=True, kw_only=True)
class PlayerView:
    """What ``player`` knows of a hand (see the module table). Frozen; compares by value."""

    player: int
    to_act: int | None
    phase: Phase
    hand: int
    top: int | None
    pile: tuple[int, ...]
    opponent_known: int
    opponent_declined: int
    own_declined: int
    taken: int | None
    opponent_hand_size: int
    stock_size: int
    turns: int
    stock_only: bool
    rules: Rules
    own_known: int = 0
    # Derived from the fields above, cached, not compared: the deadwood left by each
    # discard of the own hand, and the legal actions.
    _knock_dw: dict[int, int] | None = field(default=None, compare=False, repr=False)
    _legal: tuple[int, ...] | None = field(default=None, compare=False, repr=False)
    _deadwood: int | None = field(default=None, compare=False, repr=False)
    _pile_mask: int | None = field(default=None, compare=False, repr=False)

    # ------------------------------------------------------------ derived
    @property
    def is_acting(self) -> bool:
        """Whether this player is to decide now."""
        return self.to_act == self.player

    @property
    def opponent(self) -> int:
        return 1 - self.player

    @property
    def pile_mask(self) -> int:
        """The cards of :attr:`pile` (the discards below the top) as a mask."""
        mask = self._pile_mask
        if mask is None:
            mask = 0
            for card in self.pile:
                mask |= 1 << card
            object.__setattr__(self, "_pile_mask", mask)
        return mask

    @property
    def seen(self) -> int:
        """Cards whose place this player knows: own hand, the discard pile, the opponent's known cards."""
        top = 0 if self.top is None else 1 << self.top
        return self.hand | self.pile_mask | top | self.opponent_known

    @property
    def unseen(self) -> int:
        """Cards in the stock or among the opponent's hidden cards."""
        return FULL_MASK & ~self.seen

    @property
    def opponent_hidden(self) -> int:
        """How many of the opponent's cards this player has not seen."""
        return self.opponent_hand_size - self.opponent_known.bit_count()

    @property
    def deadwood(self) -> int:
        """Own deadwood: after the best discard when this player holds 11 cards and is to act."""
        dw = self._deadwood
        if dw is None:
            if self.to_act == self.player and self.phase is Phase.DISCARD:
                dw = min(self._knock_deadwoods().values())
            else:
                dw = _deadwood_of_mask(self.hand)
            object.__setattr__(self, "_deadwood", dw)
        return dw

    def knock_deadwoods(self) -> dict[int, int]:
        """The deadwood of the own hand without each of its cards (a copy of the view's cache)."""
        return dict(self._knock_deadwoods())

    def _knock_deadwoods(self) -> dict[int, int]:
        kd = self._knock_dw
        if kd is None:
            kd = _knock_deadwoods(self.hand)
            object.__setattr__(self, "_knock_dw", kd)
        return kd

    def legal_actions(self) -> list[int]:
        """This player's legal actions, ascending (empty unless he is to act)."""
        if self.to_act != self.player:
            return []
        if self._legal is not None:
            return list(self._legal)
        legal = legal_in_phase(
            self.phase,
            stock_only=self.stock_only,
            has_top=self.top is not None,
            hand=self.hand,
            taken=self.taken,
            rules=self.rules,
            knock_deadwoods=self._knock_deadwoods,
        )
        object.__setattr__(self, "_legal", tuple(legal))
        return legal
