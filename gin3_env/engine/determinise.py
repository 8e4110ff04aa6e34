"""Full states that agree with what one player knows: :func:`determinise`.

Search and belief models need whole hands to play out, but a player only has his
:class:`~.view.PlayerView`. ``determinise(view, rng)`` deals the cards he has not
seen (the opponent's hidden cards and the stock) at random, and keeps everything
he has seen where he saw it, so that ``determinise(view, rng).view(view.player) ==
view``. It reads nothing but the view.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .cards import NUM_CARDS, cards_of
from .hand import HandState
from .phases import Phase
from .view import PlayerView

__all__ = ["determinise"]


def _check_view(view: PlayerView) -> list[int]:
    """The unseen cards of a view that can be determinised, or a ``ValueError`` saying why not."""
    if not isinstance(view, PlayerView):
        raise ValueError(f"determinise needs a PlayerView (HandState.view(player)), got {type(view).__name__}")
    if view.phase is Phase.OVER or view.to_act is None:
        raise ValueError("the hand is over: there is nothing left to determinise")
    top = 0 if view.top is None else 1 << view.top
    if view.opponent_known & (view.hand | view.pile_mask | top):
        raise ValueError("the view's opponent_known cards overlap the player's hand or the discard pile")
    if view.own_known & ~view.hand:
        raise ValueError("the view's own_known cards are not all in the player's hand")
    unseen = cards_of(view.unseen)
    hidden = view.opponent_hidden
    if hidden < 0:
        raise ValueError(
            f"the view says the opponent holds {view.opponent_hand_size} cards but knows of "
            f"{view.opponent_known.bit_count()}"
        )
    if hidden + view.stock_size != len(unseen):
        raise ValueError(
            f"the view is inconsistent: {len(unseen)} unseen cards, but the opponent hides {hidden} "
            f"and the stock holds {view.stock_size}"
        )
    return unseen


def _opponent_draw(unseen: list[int], hidden: int, weights: Sequence[float] | np.ndarray, rng: np.random.Generator):
    """``hidden`` unseen cards drawn without replacement, each pick proportional to its weight."""
    w = np.asarray(weights, dtype=float)
    if w.shape != (NUM_CARDS,):
        raise ValueError(f"weights must hold one number per card (52), got shape {w.shape}")
    if not np.all(np.isfinite(w)) or (w < 0).any():
        raise ValueError("weights must be finite numbers >= 0")
    p = w[unseen]
    positive = int(np.count_nonzero(p))
    if positive < hidden:
        raise ValueError(
            f"weights give only {positive} of the unseen cards a positive weight; the opponent hides {hidden}"
        )
    if hidden == 0:
        return []
    picks = rng.choice(len(unseen), size=hidden, replace=False, p=p / p.sum())
    return [unseen[int(i)] for i in picks]


def determinise(
    view: PlayerView,
    rng: np.random.Generator,
    weights: Sequence[float] | np.ndarray | None = None,
) -> HandState:
    """A full hand state consistent with ``view``: ``determinise(v, rng).view(v.player) == v``.

    The opponent's hidden cards (``view.opponent_hidden`` of them, beside the known
    ones) and the stock order are drawn from the cards the player has not seen:
    uniformly, or with ``weights`` (one number >= 0 per card 0..51, e.g. a belief)
    biasing which unseen cards the opponent is dealt (drawn one by one without
    replacement, each in proportion to its weight; the stock is the rest, shuffled).
    Everything the player has seen stays as he saw it: his hand, the discard pile
    in order, the cards each side took and refused, whose turn it is, the phase,
    the card just taken, the turn count.

    The sample plays on to the end under the engine's rules (``apply``, legal
    actions, showdown). What it cannot know, it does not pretend to:

    - ``deck`` is ``()``: the real deal is unknown, so the sample has none;
    - the replay log is empty: ``actions`` is ``[]`` and ``log()`` raises
      ``ValueError`` (there is no deal to replay); moves played on the sample are
      appended to ``actions`` as usual;
    - ``upcard`` raises ``ValueError`` (it is a card of the deal); the card that was
      turned up is in the discard pile, or taken, like any other seen card.

    A finished hand (``view.to_act is None``) or an inconsistent view is a ``ValueError``.
    """
    unseen = _check_view(view)
    to_act = view.to_act
    assert to_act is not None  # _check_view refuses a finished hand
    hidden = view.opponent_hidden
    if weights is None:
        order = rng.permutation(np.array(unseen, dtype=np.int64)).tolist()
        opponent_cards, stock = order[:hidden], order[hidden:]
    else:
        opponent_cards = _opponent_draw(unseen, hidden, weights, rng)
        chosen = set(opponent_cards)
        rest = [c for c in unseen if c not in chosen]
        stock = rng.permutation(np.array(rest, dtype=np.int64)).tolist()
    player, opp = view.player, 1 - view.player
    hands = [0, 0]
    hands[player] = view.hand
    hands[opp] = view.opponent_known | sum(1 << c for c in opponent_cards)
    known = [0, 0]
    known[player], known[opp] = view.own_known, view.opponent_known
    declined = [0, 0]
    declined[player], declined[opp] = view.own_declined, view.opponent_declined
    discards = list(view.pile)
    if view.top is not None:
        discards.append(view.top)
    return HandState(
        rules=view.rules,
        deck=(),
        hands=hands,
        stock=stock,
        discards=discards,
        phase=view.phase,
        player=to_act,
        turns=view.turns,
        stock_only=view.stock_only,
        taken=view.taken,
        known=known,
        declined=declined,
        actions=[],
    )
