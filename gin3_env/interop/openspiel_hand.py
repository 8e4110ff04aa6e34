"""One hand of three-handed gin as an OpenSpiel game: ``python_gin3_hand``.

Registered by :mod:`gin3_env.interop.openspiel_game`; the engine plays it (a
:class:`~gin3_env.engine.HandState` inside every state, nothing of the rules here).

- **players**: 0 the team (the captain, who moves first), 1 the box (the dealer).
- **chance**: the 52 cards of the deck, one outcome each, drawn uniformly among those left,
  in the order the engine deals them (``docs/rules.md`` section 4): ``deck[0], deck[2], ...,
  deck[18]`` to the captain, the odd ones to the box, ``deck[20]`` the upcard, ``deck[21:]``
  the stock with ``deck[21]`` on top.
- **actions**: our 107 action ids (:mod:`gin3_env.engine.actions`): 0 draw, 1 take, 2 pass,
  3 + c discard c, 55 + c knock discarding c.
- **returns**: the hand's points, zero-sum (the scorer ``+points``, the other ``-points``;
  dead and truncated hands 0), at the end only.
- **observation tensor**: our observation vector, ``encode(view)`` (374 floats); zeros while
  the deck is being dealt. **Information-state tensor**: the same vector (the view is all of
  a player's information that bears on the rest of the hand; it does not keep the order of
  his own earlier moves).
- **information-state string**: the player's perfect-recall record: his cards as dealt, the
  upcard, every move as he saw it, the result. **Observation string**: his view, one line.
- **resample_from_infostate**: a whole deal the player cannot tell from the real one
  (:func:`~gin3_env.interop.deals.resample_deck`, around a
  :func:`~gin3_env.engine.determinise` sample), with the same moves replayed on it.

Parameters: the rules options (``docs/rules.md`` section 9), e.g.
``pyspiel.load_game("python_gin3_hand", {"knock_limit": 0})``.

``state.resample_from_infostate(player, sampler)`` is a Python method: OpenSpiel's Python
IS-MCTS bot (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) uses it; the C++ bots
(``pyspiel.ISMCTSBot``) cannot reach it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.actions import DRAW_STOCK, NUM_ACTIONS, TAKE_DISCARD, action_str
from ..engine.cards import NUM_CARDS, card_str, cards_str
from ..engine.hand import HandState
from ..engine.rules import Rules
from ..engine.view import PlayerView
from ..observation.encoding import encode
from ..observation.layout import OBS_SIZE
from .deals import resample_deck, resample_partial_deal
from .openspiel_base import (
    RULE_PARAMS,
    SIDE_NAMES,
    Observer,
    check_player,
    deal_token,
    dealing_text,
    max_hand_moves,
    max_hand_points,
    move_token,
    pyspiel,
    result_token,
    rng_of,
    rules_of,
    view_text,
)

__all__ = ["GAME_TYPE", "HandGame", "HandGameState", "HandTable", "hand_game_info"]

NUM_PLAYERS = 2

GAME_TYPE = pyspiel.GameType(
    short_name="python_gin3_hand",
    long_name="Three-handed gin: one hand (gin3_env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=NUM_PLAYERS,
    min_num_players=NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(RULE_PARAMS),
)


def hand_game_info(rules: Rules) -> Any:
    """The ``pyspiel.GameInfo`` of a hand under ``rules``."""
    bound = float(max_hand_points(rules))
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=NUM_CARDS,
        num_players=NUM_PLAYERS,
        min_utility=-bound,
        max_utility=bound,
        utility_sum=0.0,
        max_game_length=max_hand_moves(rules),
    )


class HandGame(pyspiel.Game):
    """``pyspiel.load_game("python_gin3_hand", params)``: one hand (module doc)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(RULE_PARAMS, **(params or {}))
        self.rules = rules_of(params)
        super().__init__(GAME_TYPE, hand_game_info(self.rules), params)

    def new_initial_state(self) -> HandGameState:
        return HandGameState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        if isinstance(iig_obs_type, dict):  # called with the parameters only
            iig_obs_type, params = None, iig_obs_type
        return Observer(iig_obs_type, params, OBS_SIZE)


class HandTable:
    """Everything a hand state holds: the deck dealt so far, the engine's hand once dealt, and each
    side's record. Copied with :meth:`HandState.clone` (OpenSpiel deep-copies a state's attributes)."""

    __slots__ = ("dealt", "hand", "records", "rules")

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.dealt: list[int] = []
        self.hand: HandState | None = None
        self.records: tuple[list[str], list[str]] = ([], [])

    def __deepcopy__(self, memo: dict[int, Any]) -> HandTable:
        copy = HandTable.__new__(HandTable)
        copy.rules = self.rules  # frozen
        copy.dealt = list(self.dealt)
        copy.hand = None if self.hand is None else self.hand.clone()
        copy.records = (list(self.records[0]), list(self.records[1]))
        return copy

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name in self.__slots__:
            setattr(self, name, state[name])

    # ------------------------------------------------------------ moves
    def deal_card(self, card: int) -> None:
        if card in self.dealt or not 0 <= card < NUM_CARDS:
            raise ValueError(f"card {card} cannot be dealt: it is not one of the cards left")
        index = len(self.dealt)
        self.dealt.append(card)
        for side in (0, 1):
            self.records[side].append(deal_token(index, card, side))
        if len(self.dealt) == NUM_CARDS:
            self.hand = HandState.deal(self.rules, deck=self.dealt)

    def play(self, action: int) -> None:
        hand = self.hand
        assert hand is not None  # the state routes moves here only once the deck is dealt
        actor = hand.player
        top = hand.discards[-1] if action == TAKE_DISCARD and hand.discards else None
        drawn = hand.stock[-1] if action == DRAW_STOCK and hand.stock else None
        result = hand.apply(action)
        for side in (0, 1):
            self.records[side].append(move_token(actor, action, side, top, drawn))
            if result is not None:
                self.records[side].append(result_token(result))


class HandGameState(pyspiel.State):
    """A state of ``python_gin3_hand``: chance deals the deck, then the engine plays the hand."""

    def __init__(self, game: HandGame) -> None:
        super().__init__(game)
        self._table = HandTable(game.rules)

    # ------------------------------------------------------------ our accessors
    @property
    def hand(self) -> HandState | None:
        """The engine's hand (``None`` while the deck is being dealt). Read it, do not play on it."""
        return self._table.hand

    def view(self, player: int) -> PlayerView | None:
        """``player``'s view of the hand (``None`` while the deck is being dealt)."""
        player = check_player(player, NUM_PLAYERS)
        hand = self._table.hand
        return None if hand is None else hand.view(player)

    # ------------------------------------------------------------ OpenSpiel API
    def current_player(self) -> int:
        hand = self._table.hand
        if hand is None:
            return int(pyspiel.PlayerId.CHANCE)
        if hand.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return hand.player

    def _legal_actions(self, player: int) -> list[int]:
        hand = self._table.hand
        assert hand is not None and player == hand.player  # OpenSpiel asks only the player to act
        return list(hand.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        dealt = set(self._table.dealt)
        left = [c for c in range(NUM_CARDS) if c not in dealt]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        if self._table.hand is None:
            self._table.deal_card(int(action))
        else:
            self._table.play(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_str(action)}"
        return action_str(action)

    def is_terminal(self) -> bool:
        hand = self._table.hand
        return hand is not None and hand.is_over

    def returns(self) -> list[float]:
        hand = self._table.hand
        if hand is None or hand.result is None:
            return [0.0, 0.0]
        team, box = hand.result.returns
        return [float(team), float(box)]

    def __str__(self) -> str:
        t = self._table
        hand = t.hand
        if hand is None:
            return f"dealing {len(t.dealt)}/52: {cards_str(t.dealt)}"
        to_act = "over" if hand.is_over else SIDE_NAMES[hand.player]
        return (
            f"team {cards_str(hand.hand_cards(0))} | box {cards_str(hand.hand_cards(1))} | "
            f"pile {cards_str(hand.discards)} | stock {cards_str(reversed(hand.stock))} | "
            f"{hand.phase.name} | to act {to_act} | turns {hand.turns} | moves {len(hand.actions)}"
        )

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> HandGameState:
        """A state ``player_id`` cannot tell from this one, drawn uniformly (module doc).

        ``probability_sampler`` is OpenSpiel's (``pyspiel.UniformProbabilitySampler``; one draw
        seeds the shuffle) or a ``numpy.random.Generator``."""
        player = check_player(player_id, NUM_PLAYERS)
        rng = rng_of(probability_sampler)
        t = self._table
        if t.hand is None:
            deck = resample_partial_deal(t.dealt, player, rng)
            moves: list[int] = []
        else:
            deck = resample_deck(t.hand, player, rng)
            moves = t.hand.actions
        state = self.get_game().new_initial_state()
        for card in deck:
            state.apply_action(card)
        for action in moves:
            state.apply_action(action)
        return state

    # ------------------------------------------------------------ what the observer reads
    def _observation_vector(self, player: int) -> np.ndarray:
        view = self.view(player)
        if view is None:
            return np.zeros(OBS_SIZE, dtype=np.float32)
        return encode(view)

    def _information_state_string(self, player: int) -> str:
        player = check_player(player, NUM_PLAYERS)
        return f"{SIDE_NAMES[player]}: " + " ".join(self._table.records[player])

    def _observation_string(self, player: int) -> str:
        view = self.view(player)
        return dealing_text(self._table.dealt, player) if view is None else view_text(view)
