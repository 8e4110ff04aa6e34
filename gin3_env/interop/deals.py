"""Whole deals consistent with what one player saw: :func:`resample_deck`.

:func:`gin3_env.engine.determinise` draws the cards a player has not seen (the
opponent's hidden cards, the stock order) from his view, but its sample has no deal:
its ``deck`` is ``()``. A game whose history holds the deal (OpenSpiel's, where every
card dealt is a chance outcome) needs more: a whole deck that, dealt and played with the
same moves, reaches a state the player cannot tell from the real one. This module builds
that deck around a ``determinise`` sample, from what the player saw only:

- his own deal positions, the upcard and the cards he drew from the stock keep their cards;
- the cards the opponent holds unseen come from the sample;
- the positions the opponent took cards from (his deal positions, his draws from the stock)
  get those cards and the cards he discarded that nobody had seen before (a card he discards
  must have reached him before that discard: each such card goes, in the order of the
  discards, to a position he had by then, uniformly among those left, and the unseen cards
  fill the rest in random order);
- the rest of the stock keeps the sample's order.

Every such deck is equally likely under a uniform shuffle given what the player saw, and
the construction draws them uniformly (the positions open to each discard grow with time,
so the number of choices at each step does not depend on the earlier ones). The deck is
checked by replaying the hand on it: the player's view must come out the same.
"""

from __future__ import annotations

import numpy as np

from ..engine.actions import DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, TAKE_DISCARD
from ..engine.cards import NUM_CARDS, cards_of
from ..engine.determinise import determinise
from ..engine.hand import BOX, TEAM, HandState

__all__ = ["UPCARD_INDEX", "replay_deck", "resample_deck", "resample_partial_deal"]

UPCARD_INDEX = 20  # deck[20] is turned up; deck[0:20] alternate captain, box; deck[21] tops the stock
_DEALT = 20


def replay_deck(state: HandState, deck: list[int]) -> HandState:
    """``state``'s moves played again on ``deck`` (a ``ValueError`` if one is not legal there)."""
    replay = HandState.deal(state.rules, deck=deck)
    for i, action in enumerate(state.actions):
        try:
            replay.apply(action)
        except ValueError as exc:
            raise ValueError(f"move #{i} of the hand cannot be played on that deck: {exc}") from None
    return replay


def _check(state: HandState, player: int) -> None:
    if not isinstance(state, HandState):
        raise ValueError(f"resample_deck needs a HandState, got {type(state).__name__}")
    if player != TEAM and player != BOX:
        raise ValueError(f"player must be 0 (team) or 1 (box), got {player!r}")
    if len(state.deck) != NUM_CARDS:
        raise ValueError("the state has no deal to resample (a determinised sample): deal it from a deck")
    if state.is_over:
        raise ValueError("the hand is over: there is nothing left to resample")


def resample_deck(state: HandState, player: int, rng: np.random.Generator) -> list[int]:
    """A deck drawn uniformly among those ``player`` cannot tell from ``state.deck`` (module doc).

    Dealing it and playing ``state.actions`` on it gives a state whose ``view(player)``
    equals ``state.view(player)``; nothing of the opponent's hidden cards or of the
    unseen stock is read from ``state``."""
    _check(state, player)
    view = state.view(player)
    sample = determinise(view, rng)
    opp = 1 - player
    true_deck = state.deck
    deck: list[int | None] = [None] * NUM_CARDS
    for i in range(player, _DEALT, 2):
        deck[i] = true_deck[i]
    deck[UPCARD_INDEX] = true_deck[UPCARD_INDEX]

    # Walk the public moves (and the player's own draws), on a replay that tells who moved.
    walk = HandState.deal(state.rules, deck=list(true_deck))
    opp_slots: list[tuple[int, int]] = [(i, -1) for i in range(opp, _DEALT, 2)]  # (position, move it came)
    first_seen: list[tuple[int, int]] = []  # (card, move): opponent discards nobody had seen before
    opp_public = 0  # cards the opponent took from the pile and still holds
    next_stock = UPCARD_INDEX + 1
    for t, action in enumerate(state.actions):
        actor = walk.player
        if action == DRAW_STOCK:
            if actor == player:
                deck[next_stock] = true_deck[next_stock]
            else:
                opp_slots.append((next_stock, t))
            next_stock += 1
        elif actor == opp:
            if action == TAKE_DISCARD:
                opp_public |= 1 << walk.discards[-1]
            elif DISCARD_BASE <= action < KNOCK_BASE:
                card = action - DISCARD_BASE
                if opp_public >> card & 1:
                    opp_public &= ~(1 << card)
                else:
                    first_seen.append((card, t))
        walk.apply(action)

    hidden = cards_of(sample.hands[opp] & ~view.opponent_known)
    if len(opp_slots) != len(first_seen) + len(hidden):  # pragma: no cover - the engine's bookkeeping
        raise RuntimeError(
            f"resample_deck: {len(opp_slots)} opponent positions for {len(first_seen)} discards "
            f"and {len(hidden)} hidden cards"
        )
    free = list(opp_slots)  # in the order the opponent got them: deal first, then his draws
    for card, t in first_seen:  # in the order of the discards
        open_slots = [k for k, (_, came) in enumerate(free) if came < t]
        k = open_slots[int(rng.integers(len(open_slots)))]
        deck[free.pop(k)[0]] = card
    for (pos, _), card in zip(free, rng.permutation(np.array(hidden, dtype=np.int64)).tolist(), strict=True):
        deck[pos] = card
    stock = sample.stock  # stock[-1] is drawn next: deck[next_stock]
    if NUM_CARDS - next_stock != len(stock):  # pragma: no cover - the engine's bookkeeping
        raise RuntimeError(f"resample_deck: {len(stock)} stock cards for {NUM_CARDS - next_stock} positions")
    for i, card in enumerate(stock):
        deck[NUM_CARDS - 1 - i] = card
    full = [int(c) for c in deck if c is not None]
    if len(full) != NUM_CARDS:  # pragma: no cover - every position is filled above
        raise RuntimeError("resample_deck left a deck position empty")
    replay = replay_deck(state, full)
    if replay.view(player) != view:  # pragma: no cover - what the checks above guarantee
        raise RuntimeError("resample_deck built a deck the player could tell from the real one")
    return full


def resample_partial_deal(dealt: list[int], player: int, rng: np.random.Generator) -> list[int]:
    """The first ``len(dealt)`` cards of a deal, redrawn where ``player`` has not seen them.

    While a deck is being dealt the player has seen his own cards and, from the 21st card on,
    the upcard; the other positions dealt so far get cards drawn uniformly from the rest."""
    if player != TEAM and player != BOX:
        raise ValueError(f"player must be 0 (team) or 1 (box), got {player!r}")
    if len(dealt) > NUM_CARDS or len(set(dealt)) != len(dealt):
        raise ValueError(f"a partial deal holds distinct cards, at most 52; got {dealt!r:.80}")
    seen = [i for i in range(len(dealt)) if (i < _DEALT and i % 2 == player) or i == UPCARD_INDEX]
    known = {dealt[i] for i in seen}
    unseen = [c for c in range(NUM_CARDS) if c not in known]
    hidden_positions = [i for i in range(len(dealt)) if i not in set(seen)]
    draw = rng.permutation(np.array(unseen, dtype=np.int64))[: len(hidden_positions)].tolist()
    out = list(dealt)
    for i, card in zip(hidden_positions, draw, strict=True):
        out[i] = int(card)
    return out
