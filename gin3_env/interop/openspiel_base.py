"""What the OpenSpiel hand and match games share: parameters, bounds, the observer, the records.

- The game parameters are the rules options of ``docs/rules.md`` section 9 (the match adds
  ``max_hands``); :func:`rules_of` builds the :class:`~gin3_env.engine.Rules`, which checks them.
- :class:`Observer` is the ``make_py_observer`` object of both games: its tensor is what the
  state writes for that player (our observation vector), its string the state's
  information-state string (perfect recall) or observation string.
- The record tokens: a player's perfect-recall record of a hand is his own cards as they are
  dealt (the others as ``-``), the upcard, every move as everyone saw it (a card drawn from
  the stock only for the player who drew it) and the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..engine.actions import DRAW_STOCK, TAKE_DISCARD, action_str
from ..engine.cards import card_str, cards_of, cards_str
from ..engine.result import HandResult
from ..engine.rules import Rules
from ..engine.view import PlayerView
from .openspiel import import_pyspiel

__all__ = [
    "RULE_PARAMS",
    "SIDE_NAMES",
    "Observer",
    "check_player",
    "deal_token",
    "dealing_text",
    "max_hand_moves",
    "max_hand_points",
    "move_token",
    "result_token",
    "rng_of",
    "rules_of",
    "view_text",
]

pyspiel = import_pyspiel()

RULE_PARAMS: dict[str, Any] = Rules().to_dict()  # the rules options and their defaults
SIDE_NAMES = ("team", "box")
MAX_DEADWOOD = 100  # ten cards of at most 10 points each


def rules_of(params: Mapping[str, Any], extra: tuple[str, ...] = ()) -> Rules:
    """The rules of a game's parameters (those named in ``extra`` are not rules options)."""
    return Rules.from_dict({k: v for k, v in params.items() if k not in extra})


def max_hand_points(rules: Rules) -> int:
    """An upper bound on the points of one hand: gin against ten unmelded cards, a knock, an undercut."""
    return max(rules.gin_bonus + MAX_DEADWOOD, MAX_DEADWOOD, rules.undercut_bonus + rules.knock_limit)


def max_hand_moves(rules: Rules) -> int:
    """At most two decisions a turn (take or draw, discard or knock) and the two opening passes."""
    return 2 * rules.max_turns + 2


# ------------------------------------------------------------------ records
def deal_token(index: int, card: int, side: int) -> str:
    """What ``side`` sees of the ``index``-th card dealt: his own, the upcard, or ``-``."""
    if (index < 20 and index % 2 == side) or index == 20:
        return ("up " if index == 20 else "") + card_str(card)
    return "-"


def move_token(actor: int, action: int, side: int, top: int | None, drawn: int | None) -> str:
    """A move as ``side`` saw it: the card taken from the pile is public, a stock card is the drawer's."""
    text = f"{SIDE_NAMES[actor]}:{action_str(action)}"
    if action == TAKE_DISCARD and top is not None:
        return f"{text} {card_str(top)}"
    if action == DRAW_STOCK and actor == side and drawn is not None:
        return f"{text} {card_str(drawn)}"
    return text


def result_token(result: HandResult) -> str:
    """The end of a hand, public to both sides (the showdown shows both hands)."""
    if result.winner is None:
        return f"over:{result.outcome}"
    return f"over:{result.outcome} {SIDE_NAMES[result.winner]} +{result.points}"


def view_text(view: PlayerView) -> str:
    """A player's view as one line (every field two different views can differ in)."""
    to_act = "nobody" if view.to_act is None else SIDE_NAMES[view.to_act]
    top = "-" if view.top is None else card_str(view.top)
    taken = "-" if view.taken is None else card_str(view.taken)
    return (
        f"{SIDE_NAMES[view.player]} | hand {cards_str(cards_of(view.hand))} | top {top} | "
        f"pile {cards_str(view.pile)} | opponent holds {view.opponent_hand_size}, known "
        f"{cards_str(cards_of(view.opponent_known))} | declined by opponent "
        f"{cards_str(cards_of(view.opponent_declined))}, by me {cards_str(cards_of(view.own_declined))} | "
        f"mine taken {cards_str(cards_of(view.own_known))} | just taken {taken} | stock {view.stock_size}"
        f"{' (stock only)' if view.stock_only else ''} | turns {view.turns} | {view.phase.name} | to act {to_act}"
    )


def dealing_text(dealt: list[int], side: int) -> str:
    """A side's observation while the deck is being dealt: its cards so far and the upcard."""
    tokens = [deal_token(i, c, side) for i, c in enumerate(dealt)]
    return f"{SIDE_NAMES[side]} | dealing {len(dealt)}/52 | " + " ".join(t for t in tokens if t != "-")


# ------------------------------------------------------------------ observer
class Observer:
    """OpenSpiel's Python observer for our games: the state writes the tensor and the strings.

    The tensor is the state's ``_observation_vector(player)`` (our observation encoding, the
    same for the information state and the observation: it is built from the player's view);
    the string is ``_information_state_string(player)`` for a perfect-recall observation type,
    ``_observation_string(player)`` otherwise."""

    def __init__(self, iig_obs_type: Any, params: Mapping[str, Any] | None, size: int) -> None:
        if params:
            raise ValueError(f"the gin3 games' observers take no parameters, got {dict(params)!r}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError(
                "the gin3 games observe for one player with the public information (public_info=True, "
                f"private_info=SINGLE_PLAYER); got public_info={iig_obs_type.public_info}, "
                f"private_info={iig_obs_type.private_info}"
            )
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: Any, player: int) -> None:
        self.tensor[:] = state._observation_vector(player)

    def string_from(self, state: Any, player: int) -> str:
        if self.perfect_recall:
            return str(state._information_state_string(player))
        return str(state._observation_string(player))


def check_player(player: Any, num_players: int) -> int:
    """``player`` as an int 0..num_players-1, else a ``ValueError``."""
    if isinstance(player, bool) or not isinstance(player, int | np.integer) or not 0 <= player < num_players:
        raise ValueError(f"player must be 0..{num_players - 1}, got {player!r}")
    return int(player)


def rng_of(sampler: Any) -> np.random.Generator:
    """A generator seeded from OpenSpiel's probability sampler (one draw), or the generator itself."""
    if isinstance(sampler, np.random.Generator):
        return sampler
    if not callable(sampler):
        raise ValueError(f"expected a probability sampler (pyspiel.UniformProbabilitySampler) or a Generator, "
                         f"got {sampler!r}")
    return np.random.default_rng(int(float(sampler()) * 2**53))

