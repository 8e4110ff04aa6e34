"""A match of three-handed gin as an OpenSpiel game: ``python_gin3_match``.

Registered by :mod:`gin3_env.interop.openspiel_game`. Each hand is played by the engine's
:class:`~gin3_env.engine.MatchState`, started from the match's roles and totals with the deck
chance dealt; it keeps the scores and turns the roles (``docs/rules.md`` sections 7 and 8).

- **players**: the seats 0, 1, 2; in each hand the captain's seat acts for the team, the
  box's seat for the box, the sitter's never.
- **chance**: first the roles, one of the six ways to give the seats box, captain and sitter,
  each 1/6 (what drawing cards gives, ties drawn again); then each hand's deck, one card at a
  time as in ``python_gin3_hand``.
- **actions**: our 107 action ids.
- **rewards**: at each hand's end its points go to the seats that played it: the scoring
  side's seat ``+points``, the other side's seat ``-points``, the sitter 0 (the match env's
  rewards). ``rewards()`` holds a move's reward until the next move, so it is read at the
  next decision (the deal in between is chance). **Returns**: the sum of a seat's rewards
  (zero-sum).
- **end**: a seat's total reaches the target; or, since OpenSpiel needs a bound on a game's
  length, ``max_hands`` hands (default 200) have been played: the match then stops with the
  returns so far.
- **observation and information-state tensor**: the match observation, ``encode_match``
  (380 floats: the side's hand view, the seat's role, the three totals); zeros while a deck
  is being dealt.
- **information-state string**: the seat's perfect-recall record: the roles of each hand, its
  side's cards as dealt, every move as that side saw it (the sitter sees what the captain
  sees), each result. **Observation string**: the seat's role, the totals, its side's view.
- **resample_from_infostate**: the current hand's deal redrawn as in ``python_gin3_hand``,
  from the view of the seat's side; earlier hands are kept as they were played (nothing in
  them bears on the rest of the match).

Parameters: the rules options (``docs/rules.md`` section 9) and ``max_hands``.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..engine.actions import DRAW_STOCK, NUM_ACTIONS, TAKE_DISCARD, action_str
from ..engine.cards import NUM_CARDS, card_str, cards_str
from ..engine.hand import BOX, TEAM, HandState
from ..engine.match import NUM_SEATS, MatchState, Roles
from ..engine.rules import Rules
from ..observation.encoding import encode_match
from ..observation.layout import MATCH_OBS_SIZE
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

__all__ = ["DEFAULT_MAX_HANDS", "GAME_TYPE", "ROLE_DEALS", "MatchGame", "MatchGameState", "match_game_info"]

DEFAULT_MAX_HANDS = 200
MATCH_PARAMS: dict[str, Any] = dict(RULE_PARAMS, max_hands=DEFAULT_MAX_HANDS)
ROLE_DEALS = tuple(Roles(*seats) for seats in itertools.permutations(range(NUM_SEATS)))  # (box, captain, sitter)

GAME_TYPE = pyspiel.GameType(
    short_name="python_gin3_match",
    long_name="Three-handed gin: a match to the target score (gin3_env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=NUM_SEATS,
    min_num_players=NUM_SEATS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(MATCH_PARAMS),
)


def check_max_hands(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"max_hands must be an int >= 1, got {value!r}")
    return int(value)


def match_game_info(rules: Rules, max_hands: int) -> Any:
    """The ``pyspiel.GameInfo`` of a match: a seat wins at most its last total plus a hand, and
    concedes at most what the two others can total."""
    points = max_hand_points(rules)
    below = rules.target_score - 1
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=NUM_CARDS,
        num_players=NUM_SEATS,
        min_utility=-float(2 * below + points),
        max_utility=float(below + points),
        utility_sum=0.0,
        max_game_length=max_hands * max_hand_moves(rules),
    )


def side_of(roles: Roles, seat: int) -> int:
    """The hand side whose view ``seat`` gets: the box's seat the box's, the captain and the sitter the team's."""
    return BOX if seat == roles.box else TEAM


class MatchGame(pyspiel.Game):
    """``pyspiel.load_game("python_gin3_match", params)``: a match (module doc)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(MATCH_PARAMS, **(params or {}))
        self.max_hands = check_max_hands(params["max_hands"])
        self.rules = rules_of(params, extra=("max_hands",))
        super().__init__(GAME_TYPE, match_game_info(self.rules, self.max_hands), params)

    def new_initial_state(self) -> MatchGameState:
        return MatchGameState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        if isinstance(iig_obs_type, dict):  # called with the parameters only
            iig_obs_type, params = None, iig_obs_type
        return Observer(iig_obs_type, params, MATCH_OBS_SIZE)


class MatchTable:
    """Everything a match state holds; copied without deep-copying the engine's objects."""

    __slots__ = (
        "dealt", "hand_roles", "hand_start", "hands_played", "last", "last_rewards", "match", "max_hands",
        "moves", "over", "records", "returns", "roles", "rules", "scores", "truncated",
    )

    def __init__(self, rules: Rules, max_hands: int) -> None:
        self.rules = rules
        self.max_hands = max_hands
        self.roles: Roles | None = None  # of the hand being dealt or played; None before the draw
        self.hand_roles: Roles | None = None  # of the hand last played (for the end of the match)
        self.scores = [0, 0, 0]  # per-person totals
        self.returns = [0.0, 0.0, 0.0]  # zero-sum, per seat
        self.last_rewards = [0.0, 0.0, 0.0]
        self.dealt: list[int] | None = None  # the deck being dealt, None while a hand is played
        self.match: MatchState | None = None  # the engine's match playing the current hand
        self.last: HandState | None = None  # the hand last finished
        self.hands_played = 0
        self.moves = 0  # actions applied, chance ones included (OpenSpiel's history length)
        self.hand_start = 0  # where the current hand's deal starts in the history
        self.over = False
        self.truncated = False
        self.records: tuple[list[str], ...] = ([], [], [])

    def __deepcopy__(self, memo: dict[int, Any]) -> MatchTable:
        copy = MatchTable.__new__(MatchTable)
        for name in self.__slots__:
            setattr(copy, name, getattr(self, name))  # immutable, or replaced (not changed) by the moves
        copy.scores, copy.returns, copy.last_rewards = list(self.scores), list(self.returns), list(self.last_rewards)
        copy.dealt = None if self.dealt is None else list(self.dealt)
        copy.records = tuple(list(r) for r in self.records)
        if self.match is not None:
            m = self.match
            copy.match = MatchState(m.rules, m.roles, list(m.scores), m.hand.clone(), m.rng, [], list(m.history),
                                    m.winner)
            copy.match.hand_roles = m.hand_roles
        return copy

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name in self.__slots__:
            setattr(self, name, state[name])

    # ------------------------------------------------------------ moves
    def _note(self, token: str) -> None:
        for record in self.records:
            record.append(token)

    def draw_roles(self, outcome: int) -> None:
        if not 0 <= outcome < len(ROLE_DEALS):
            raise ValueError(f"the roles are drawn as one of 0..{len(ROLE_DEALS) - 1}, got {outcome}")
        self.roles = ROLE_DEALS[outcome]
        self._start_deal()

    def _start_deal(self) -> None:
        assert self.roles is not None
        self.dealt = []
        self.hand_start = self.moves + 1  # called while the move before the deal is applied
        r = self.roles
        self._note(f"hand {self.hands_played + 1}: box {r.box} captain {r.captain} sitter {r.sitter}")

    def deal_card(self, card: int) -> None:
        dealt, roles = self.dealt, self.roles
        assert dealt is not None and roles is not None
        if card in dealt or not 0 <= card < NUM_CARDS:
            raise ValueError(f"card {card} cannot be dealt: it is not one of the cards left")
        index = len(dealt)
        dealt.append(card)
        for seat, record in enumerate(self.records):
            record.append(deal_token(index, card, side_of(roles, seat)))
        if len(dealt) == NUM_CARDS:
            spare = np.random.default_rng(0)  # deals the engine's next hand, which chance replaces
            self.match = MatchState.start(self.rules, rng=spare, roles=roles, scores=self.scores, decks=[dealt])
            self.dealt = None

    def play(self, action: int) -> None:
        match, roles = self.match, self.roles
        assert match is not None and roles is not None
        hand = match.hand
        actor = hand.player
        top = hand.discards[-1] if action == TAKE_DISCARD and hand.discards else None
        drawn = hand.stock[-1] if action == DRAW_STOCK and hand.stock else None
        result = match.apply(action)
        for seat, record in enumerate(self.records):
            record.append(move_token(actor, action, side_of(roles, seat), top, drawn))
        self.last_rewards = [0.0, 0.0, 0.0]
        if result is None:
            return
        self._note(result_token(result))
        team, box = result.returns
        self.last_rewards[roles.captain] = float(team)
        self.last_rewards[roles.box] = float(box)
        self.returns = [a + b for a, b in zip(self.returns, self.last_rewards, strict=True)]
        self.scores = list(match.scores)
        self.hands_played += 1
        self.last, self.hand_roles = hand, roles
        if match.is_over:
            self.over = True
        elif self.hands_played >= self.max_hands:
            self.over = self.truncated = True
        else:
            self.roles = match.roles
            self._start_deal()

    # ------------------------------------------------------------ what is seen
    def final_match(self) -> MatchState:
        """The match as it ended, for the observation at the end (the engine's match may hold a spare deal)."""
        assert self.last is not None and self.hand_roles is not None and self.match is not None
        final = MatchState(self.rules, self.roles or self.hand_roles, list(self.scores), self.last,
                           self.match.rng, [], list(self.match.history), self.match.winner)
        final.hand_roles = self.hand_roles
        return final


class MatchGameState(pyspiel.State):
    """A state of ``python_gin3_match``: chance draws the roles and deals each deck, the engine plays."""

    def __init__(self, game: MatchGame) -> None:
        super().__init__(game)
        self._table = MatchTable(game.rules, game.max_hands)

    # ------------------------------------------------------------ our accessors
    @property
    def match(self) -> MatchState | None:
        """The engine's match playing the current hand; at the end, the match as it ended; ``None``
        while a deck is being dealt. Read it, do not play on it."""
        t = self._table
        if t.over:
            return t.final_match()
        return None if t.dealt is not None or t.roles is None else t.match

    @property
    def scores(self) -> list[int]:
        """The three per-person totals."""
        return list(self._table.scores)

    @property
    def hands_played(self) -> int:
        return self._table.hands_played

    @property
    def truncated(self) -> bool:
        """Whether the match stopped at ``max_hands`` with no seat at the target."""
        return self._table.truncated

    def winner(self) -> int | None:
        """The seat that reached the target, once the match is over (``None`` before, or if truncated)."""
        t = self._table
        return t.match.winner if t.over and t.match is not None else None

    # ------------------------------------------------------------ OpenSpiel API
    def current_player(self) -> int:
        t = self._table
        if t.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if t.roles is None or t.dealt is not None or t.match is None:
            return int(pyspiel.PlayerId.CHANCE)
        seat = t.match.acting_seat
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        match = self._table.match
        assert match is not None and player == match.acting_seat  # OpenSpiel asks only the seat to act
        return list(match.hand.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        t = self._table
        if t.roles is None:
            return [(i, 1.0 / len(ROLE_DEALS)) for i in range(len(ROLE_DEALS))]
        dealt = set(t.dealt or ())
        left = [c for c in range(NUM_CARDS) if c not in dealt]
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        t = self._table
        action = int(action)
        if t.roles is None:
            t.draw_roles(action)
        elif t.dealt is not None:
            t.deal_card(action)
        else:
            t.play(action)
        t.moves += 1

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._table.roles is None:
                r = ROLE_DEALS[action]
                return f"roles: box {r.box}, captain {r.captain}, sitter {r.sitter}"
            return f"deal {card_str(action)}"
        return action_str(action)

    def is_terminal(self) -> bool:
        return bool(self._table.over)

    def returns(self) -> list[float]:
        return list(self._table.returns)

    def rewards(self) -> list[float]:
        return list(self._table.last_rewards)

    def __str__(self) -> str:
        t = self._table
        head = f"hands {t.hands_played} | totals {t.scores[0]} {t.scores[1]} {t.scores[2]}"
        if t.roles is None:
            return f"{head} | drawing roles"
        r = t.roles
        head += f" | box {r.box} captain {r.captain} sitter {r.sitter}"
        if t.over:
            how = "stopped at max_hands" if t.truncated else f"won by seat {self.winner()}"
            return f"{head} | over, {how}"
        if t.dealt is not None:
            return f"{head} | dealing {len(t.dealt)}/52: {cards_str(t.dealt)}"
        assert t.match is not None
        hand = t.match.hand
        return (
            f"{head} | team {cards_str(hand.hand_cards(0))} | box {cards_str(hand.hand_cards(1))} | "
            f"pile {cards_str(hand.discards)} | stock {cards_str(reversed(hand.stock))} | "
            f"{hand.phase.name} | to act {SIDE_NAMES[hand.player]} | turns {hand.turns}"
        )

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> MatchGameState:
        """A state seat ``player_id`` cannot tell from this one (module doc); ``probability_sampler``
        is OpenSpiel's (one draw seeds the shuffle) or a ``numpy.random.Generator``."""
        seat = check_player(player_id, NUM_SEATS)
        rng = rng_of(probability_sampler)
        t = self._table
        if t.over:
            raise ValueError("the match is over: there is nothing left to resample")
        history = [int(a) for a in self.history()]
        if t.roles is None:
            moves: list[int] = []
        elif t.dealt is not None:
            moves = history[: t.hand_start] + resample_partial_deal(t.dealt, side_of(t.roles, seat), rng)
        else:
            assert t.match is not None
            hand = t.match.hand
            deck = resample_deck(hand, side_of(t.roles, seat), rng)
            moves = history[: t.hand_start] + deck + list(hand.actions)
        state = self.get_game().new_initial_state()
        for action in moves:
            state.apply_action(action)
        return state

    # ------------------------------------------------------------ what the observer reads
    def _observation_vector(self, seat: int) -> np.ndarray:
        seat = check_player(seat, NUM_SEATS)
        t = self._table
        if t.over:
            return encode_match(t.final_match(), seat)
        if t.dealt is not None or t.match is None:
            return np.zeros(MATCH_OBS_SIZE, dtype=np.float32)
        return encode_match(t.match, seat)

    def _information_state_string(self, seat: int) -> str:
        seat = check_player(seat, NUM_SEATS)
        return f"seat {seat}: " + " ".join(self._table.records[seat])

    def _observation_string(self, seat: int) -> str:
        seat = check_player(seat, NUM_SEATS)
        t = self._table
        totals = f"totals {t.scores[seat]} {t.scores[(seat + 1) % 3]} {t.scores[(seat + 2) % 3]}"
        if t.roles is None:
            return f"seat {seat} | drawing roles"
        if t.over:
            assert t.hand_roles is not None
            return f"seat {seat} | {totals} | over | {t.hand_roles.role_of(seat)} | last hand: " + view_text(
                t.final_match().hand.view(side_of(t.hand_roles, seat)))
        role = t.roles.role_of(seat)
        if t.dealt is not None or t.match is None:
            return f"seat {seat} ({role}) | {totals} | " + dealing_text(t.dealt or [], side_of(t.roles, seat))
        return f"seat {seat} ({role}) | {totals} | " + view_text(t.match.hand.view(side_of(t.roles, seat)))
