"""Let any gin3 policy play OpenSpiel's two-player ``gin_rummy`` (extra ``openspiel``).

The game is ``pyspiel.load_game("gin_rummy", {"knock_card": 10, "gin_bonus": 25,
"undercut_bonus": 10})`` (:data:`OPENSPIEL_PARAMS`), the usual opponent OpenSpiel's
``pyspiel.make_simple_gin_rummy_bot(params, player_id)`` (it takes the upcard when
it melds or allows a knock, discards its highest-rank deadwood card, knocks at
once, never lays off).

**Roles.** OpenSpiel player 0 moves first (the non-dealer): it plays as our
``"team"`` (captain); player 1, the dealer, as our ``"box"``. The two-player game
has the same opening (non-dealer, then dealer, may take the upcard).

**Cards.** OpenSpiel numbers cards ``suit * 13 + rank`` with suits in the order
spades, clubs, diamonds, hearts; ours are clubs, diamonds, hearts, spades:
:func:`to_openspiel` / :func:`from_openspiel` translate.

**Actions.** OpenSpiel ids: 0..51 a card (a dealt card, a discard, the knocker's
discard or a layoff), 52 draw the upcard, 53 draw from the stock, 54 pass, 55 knock,
56 + m lay meld ``m`` (185 melds; runs of 3 to 5 cards). Our ``TAKE_DISCARD`` is 52,
``DRAW_STOCK`` 53, ``PASS`` 54, ``discard c`` the card ``c``, ``knock c`` is 55 then
``c`` (OpenSpiel knocks before discarding). The phases our rules do not have are
played by the adapter, optimally for our side and without asking the policy: the
knocker lays the melds of his best arrangement (runs longer than 5 split); the
defender searches every sequence of layoffs OpenSpiel allows for the one leaving
the least deadwood, then lays his best melds; at the "wall" (2 stock cards left,
where our rules end the hand as dead) it knocks whenever OpenSpiel allows it.

**Observation.** A :class:`~gin3_env.engine.PlayerView` built from public
information only, followed action by action (:class:`PublicTracker`: the discard
pile with the upcard on top, the cards each side took from the pile, the cards
each side refused, the stock size and the turn count); our hand comes from
OpenSpiel's observation tensor for our player. No hand state is faked: the view
is built directly, and the observation and the mask come from it exactly as in
our envs (:func:`gin3_env.observation.observe`), so the mask follows our rules (a
policy never discards the card it just took, which OpenSpiel would allow).

**Scores.** A hand's points are OpenSpiel's ``state.returns()``. OpenSpiel scores
like our rules except that a knock with equal deadwoods scores 0 (ours: an
undercut) and that the wall can end a hand with a knock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.actions import DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD, action_str
from ..engine.cards import CARD_POINTS, cards_of
from ..engine.melds import best_arrangement, deadwood_of_mask, knock_deadwoods
from ..engine.phases import Phase
from ..engine.rules import Rules
from ..engine.view import PlayerView
from ..observation.encoding import observe

_RULE_BOOK = Rules()
# OpenSpiel's gin_rummy set to the rule book's values (the game's rules are fixed at these)
OPENSPIEL_PARAMS: dict[str, int] = {"knock_card": _RULE_BOOK.knock_limit, "gin_bonus": _RULE_BOOK.gin_bonus,
                                    "undercut_bonus": _RULE_BOOK.undercut_bonus}
OS_DRAW_UPCARD, OS_DRAW_STOCK, OS_PASS, OS_KNOCK, OS_MELD_BASE = 52, 53, 54, 55, 56
MAX_RUN = 5  # OpenSpiel's meld ids cover runs of 3 to 5 cards
STOCK_BEFORE_UPCARD = 52 - 20  # stock size when the upcard is dealt (before it is turned)


def import_pyspiel() -> Any:
    """Import ``pyspiel`` or raise ImportError naming the extra to install."""
    try:
        import pyspiel
    except ImportError as exc:
        raise ImportError(
            f"the OpenSpiel adapter needs open-spiel: pip install 'gin3_env[openspiel]' ({exc})"
        ) from None
    return pyspiel


def to_openspiel(card: int) -> int:
    """Our card id (suits C D H S) to OpenSpiel's (suits s c d h)."""
    return ((card // 13 + 1) % 4) * 13 + card % 13


def from_openspiel(card: int) -> int:
    """OpenSpiel's card id (suits s c d h) to ours (suits C D H S)."""
    return ((card // 13 + 3) % 4) * 13 + card % 13


def load_game(params: dict[str, int] | None = None) -> Any:
    """``pyspiel.load_game("gin_rummy", params)`` with :data:`OPENSPIEL_PARAMS` by default."""
    return import_pyspiel().load_game("gin_rummy", dict(params or OPENSPIEL_PARAMS))


def rules_for(game: Any) -> Rules:
    """Our rules with the same knock limit and bonuses as an OpenSpiel gin game."""
    p = game.get_parameters()
    return Rules(
        knock_limit=int(p["knock_card"]), gin_bonus=int(p["gin_bonus"]), undercut_bonus=int(p["undercut_bonus"])
    )


def hand_of(state: Any, player: int) -> int:
    """``player``'s own cards (our ids, as a mask), read from his observation tensor."""
    tensor = np.asarray(state.observation_tensor(player))
    row = tensor[2 + 52 * player : 2 + 52 * (player + 1)]
    mask = 0
    for os_card in np.flatnonzero(row > 0.5):
        mask |= 1 << from_openspiel(int(os_card))
    return mask


def split_meld(meld: Sequence[int]) -> list[tuple[int, ...]]:
    """A meld as OpenSpiel can lay it: runs longer than 5 cut into runs of 3 to 5."""
    cards = tuple(sorted(meld))
    if len(cards) <= MAX_RUN:
        return [cards]
    parts = []
    while len(cards) > MAX_RUN:
        take = MAX_RUN if len(cards) - MAX_RUN >= 3 else len(cards) - 3
        parts.append(cards[:take])
        cards = cards[take:]
    parts.append(cards)
    return parts


_UTILS: Any = None


def meld_action(meld: Sequence[int]) -> int:
    """OpenSpiel's action id laying ``meld`` (our card ids, at most 5 cards)."""
    global _UTILS
    if _UTILS is None:
        _UTILS = import_pyspiel().gin_rummy.GinRummyUtils(13, 4, 10)
    return OS_MELD_BASE + int(_UTILS.meld_to_int(sorted(to_openspiel(c) for c in meld)))


def meld_actions(hand: int) -> list[int]:
    """Meld-laying actions for the best arrangement of ``hand``."""
    return [meld_action(part) for meld in best_arrangement(hand).melds for part in split_meld(meld)]


@dataclass
class PublicTracker:
    """What both players know, followed from the actions (players are OpenSpiel ids)."""

    pile: list[int] = field(default_factory=list)  # our card ids; the upcard on top
    known: list[int] = field(default_factory=lambda: [0, 0])
    declined: list[int] = field(default_factory=lambda: [0, 0])
    taken: int | None = None  # taken from the pile by the player now to act
    turns: int = 0

    def observe(self, state: Any, action: int) -> None:
        """Record ``action`` about to be applied to ``state`` (call before applying it)."""
        phases = import_pyspiel().gin_rummy.Phase
        phase = state.current_phase()
        if state.is_chance_node():
            if phase == phases.DEAL and state.stock_size() == STOCK_BEFORE_UPCARD:
                self.pile = [from_openspiel(action)]  # the upcard is turned face up
            return
        player = state.current_player()
        if phase in (phases.FIRST_UPCARD, phases.DRAW):
            if action == OS_DRAW_UPCARD:
                card = self.pile.pop()
                self.known[player] |= 1 << card
                self.taken = card
            elif action in (OS_PASS, OS_DRAW_STOCK):
                if self.pile:
                    self.declined[player] |= 1 << self.pile[-1]
                self.taken = None
        elif phase == phases.DISCARD and action < 52:
            card = from_openspiel(action)
            self.pile.append(card)
            self.known[player] &= ~(1 << card)
            self.taken = None
            self.turns += 1


class OpenSpielAgent:
    """Plays one OpenSpiel seat with a gin3 policy; ``step(state)`` gives the OpenSpiel action.

    Call :meth:`observe` with every action of the hand (both players' and chance),
    before it is applied, so the public information stays up to date.
    """

    def __init__(self, policy: Any, player: int, rules: Rules | None = None) -> None:
        if player not in (0, 1):
            raise ValueError(f"OpenSpiel gin player must be 0 or 1, got {player!r}")
        self.policy = policy
        self.player = player
        self.rules = rules or Rules()  # the defaults match OPENSPIEL_PARAMS
        self.tracker = PublicTracker()
        self.pending: list[int] = []  # OpenSpiel actions decided earlier (the knocker's discard)
        self.knock_deadwood: int | None = None  # our deadwood when we knocked (for checks)

    def observe(self, state: Any, action: int) -> None:
        self.tracker.observe(state, action)

    # ----------------------------------------------------------- our view
    def view(self, state: Any) -> PlayerView:
        """What this player knows, as our engine's view (built from public information only)."""
        phases = import_pyspiel().gin_rummy.Phase
        t = self.tracker
        os_phase = state.current_phase()
        legal = state.legal_actions()
        stock_only = False
        if os_phase == phases.FIRST_UPCARD:
            if OS_PASS in legal:
                phase = Phase.OFFER_TEAM if self.player == 0 else Phase.OFFER_BOX
            else:  # both passed: the first player draws from the stock
                phase, stock_only = Phase.DRAW, True
        elif os_phase == phases.DRAW:
            phase = Phase.DRAW
        elif os_phase == phases.DISCARD:
            phase = Phase.DISCARD
        else:
            raise ValueError(f"no gin3 decision in OpenSpiel phase {os_phase}")
        me, opp = self.player, 1 - self.player
        return PlayerView(
            player=me,
            to_act=me,
            phase=phase,
            hand=hand_of(state, me),
            top=t.pile[-1] if t.pile else None,
            pile=tuple(t.pile[:-1]),
            opponent_known=t.known[opp],
            opponent_declined=t.declined[opp],
            own_declined=t.declined[me],
            taken=t.taken if phase is Phase.DISCARD else None,
            opponent_hand_size=10,  # the opponent is between turns when we decide
            stock_size=state.stock_size(),
            turns=t.turns,
            stock_only=stock_only,
            rules=self.rules,
            own_known=t.known[me],
        )

    def observation(self, state: Any) -> dict[str, np.ndarray]:
        return observe(self.view(state))

    # ----------------------------------------------------------- decisions
    def step(self, state: Any) -> int:
        phases = import_pyspiel().gin_rummy.Phase
        phase = state.current_phase()
        legal = state.legal_actions()
        if self.pending:
            return self.pending.pop(0)
        if phase in (phases.FIRST_UPCARD, phases.DRAW, phases.DISCARD):
            obs = self.observation(state)
            action = int(self.policy.act(obs))
            if not 0 <= action < len(obs["action_mask"]):
                raise ValueError(f"policy played action {action}, out of range")
            if not obs["action_mask"][action]:
                raise ValueError(f"policy played an illegal action {action} ({action_str(action)})")
            return self._translate(action, state)
        hand = hand_of(state, self.player)
        if phase == phases.WALL:
            return OS_KNOCK if OS_KNOCK in legal else OS_PASS
        if phase == phases.KNOCK:
            if len(cards_of(hand)) == 11:  # knocked at the wall: discard the best card
                kd = knock_deadwoods(hand)
                card = min(cards_of(hand), key=lambda c: (kd[c], -CARD_POINTS[c]))
                self.knock_deadwood = kd[card]
                return to_openspiel(card)
            return self._lay_meld(hand, legal)
        if phase == phases.LAYOFF:
            if not state.finished_layoffs():
                return self._best_layoff(state)
            return self._lay_meld(hand, legal)
        raise ValueError(f"unexpected OpenSpiel phase {phase} for player {self.player}")

    def _translate(self, action: int, state: Any) -> int:
        if action == TAKE_DISCARD:
            return OS_DRAW_UPCARD
        if action == DRAW_STOCK:
            return OS_DRAW_STOCK
        if action == PASS:
            return OS_PASS
        if action < KNOCK_BASE:
            return to_openspiel(action - DISCARD_BASE)
        card = action - KNOCK_BASE
        self.knock_deadwood = knock_deadwoods(hand_of(state, self.player))[card]
        self.pending.append(to_openspiel(card))
        return OS_KNOCK

    @staticmethod
    def _lay_meld(hand: int, legal: list[int]) -> int:
        for action in meld_actions(hand):
            if action in legal:
                return action
        return OS_PASS

    def _best_layoff(self, state: Any) -> int:
        """The first layoff of the sequence that leaves the least deadwood (PASS: none)."""
        memo: dict[int, tuple[int, int]] = {}

        def search(s: Any) -> tuple[int, int]:
            hand = hand_of(s, self.player)
            if hand in memo:
                return memo[hand]
            best = (deadwood_of_mask(hand), OS_PASS)
            for action in s.legal_actions():
                if action < 52:
                    child = s.clone()
                    child.apply_action(action)
                    value = search(child)[0]
                    if value < best[0]:
                        best = (value, action)
            memo[hand] = best
            return best

        return search(state)[1]


@dataclass(frozen=True)
class OpenSpielHand:
    """One finished OpenSpiel hand, from our side."""

    our_player: int
    returns: tuple[float, float]  # OpenSpiel's returns (player 0, player 1)
    knocked: tuple[bool, bool]
    final_deadwood: tuple[int, int]
    our_knock_deadwood: int | None  # our engine's deadwood when we knocked
    turns: int  # discards made (as our rules count turns)
    actions: tuple[int, ...]

    @property
    def points(self) -> float:
        """Our points in the hand (OpenSpiel's return of our player)."""
        return self.returns[self.our_player]


def chance_order(deck: Sequence[int]) -> list[int]:
    """OpenSpiel chance outcomes that deal ``deck`` like our rules (§4.3):
    player 0 gets ``deck[0:20:2]``, player 1 ``deck[1:20:2]``, the upcard is
    ``deck[20]`` and the stock is drawn from ``deck[21]`` on."""
    cards = [int(c) for c in deck]
    if sorted(cards) != list(range(52)):
        raise ValueError("deck must be a permutation of 0..51")
    order = cards[0:20:2] + cards[1:20:2] + cards[20:]
    return [to_openspiel(c) for c in order]


def play_openspiel_hand(
    game: Any,
    policy: Any,
    our_player: int,
    deck: Sequence[int],
    opponent: Any = None,
) -> OpenSpielHand:
    """Play one OpenSpiel hand: ``policy`` as ``our_player`` against ``opponent``
    (a pyspiel bot; default the simple bot). Every action is applied with
    OpenSpiel's legality check, so an illegal one raises."""
    pyspiel = import_pyspiel()
    if opponent is None:
        opponent = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1 - our_player)
    agent = OpenSpielAgent(policy, our_player, rules_for(game))
    chance = iter(chance_order(deck))
    state = game.new_initial_state()
    actions: list[int] = []
    while not state.is_terminal():
        if state.is_chance_node():
            action = next(chance)
        elif state.current_player() == our_player:
            action = agent.step(state)
        else:
            action = int(opponent.step(state))
        agent.observe(state, action)
        state.apply_action_with_legality_check(action)
        actions.append(action)
    returns = state.returns()
    return OpenSpielHand(
        our_player=our_player,
        returns=(float(returns[0]), float(returns[1])),
        knocked=(bool(state.knocked()[0]), bool(state.knocked()[1])),
        final_deadwood=(int(state.deadwood()[0]), int(state.deadwood()[1])),
        our_knock_deadwood=agent.knock_deadwood,
        turns=agent.tracker.turns,
        actions=tuple(actions),
    )
