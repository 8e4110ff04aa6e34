"""An OpenSpiel bot against a gin3 policy on ``python_gin3_hand``, in the duplicate format.

Deal ``i`` is the ``i``-th permutation from ``numpy.random.default_rng(seed)``, the same deals
:func:`~gin3_env.evaluation.evaluate_hands` (``gin3 evaluate``) plays. Each deal is played twice
through the OpenSpiel game: the bot as the team (player 0) against the policy as the box,
then the policy as the team against the bot as the box. The chance nodes are given the deck
in order, so both hands start from the engine's deal of that deck. The policy gets the
observation dict our environments give (from its view of the engine's hand); the bot gets
the OpenSpiel state and sees what the game lets it see (IS-MCTS: the information state, and
the states :meth:`resample_from_infostate` draws from it). The report is a
:class:`~gin3_env.evaluation.HandsReport` with the bot as A.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine.hand import BOX, TEAM
from ..engine.result import HandResult
from ..engine.rules import Rules
from ..game.policy import Policy, check_policy, policy_name
from ..interop.openspiel_base import pyspiel
from ..interop.openspiel_game import HAND_GAME
from ..interop.openspiel_hand import HandGameState
from ..observation.encoding import observe
from .hands_report import HandsReport
from .util import progress_bar

__all__ = ["evaluate_bot_hands", "play_bot_deal"]


def play_bot_deal(game: Any, deck: list[int], players: tuple[Any, Any]) -> HandGameState:
    """Deal ``deck`` through the chance nodes of ``game`` and play it to the end.

    ``players`` are (team, box), each an OpenSpiel bot (``step(state) -> action``) or a gin3
    policy (``act(observation) -> action``); returns the finished state."""
    state = game.new_initial_state()
    for card in deck:
        state.apply_action(int(card))
    while not state.is_terminal():
        player = state.current_player()
        who = players[player]
        if isinstance(who, pyspiel.Bot):
            action = int(who.step(state))
        else:
            view = state.view(player)
            action = int(who.act(observe(view)))
        if action not in state.legal_actions():
            raise ValueError(f"{policy_name(who)} (player {player}) chose an illegal action {action}")
        state.apply_action(action)
    return state


def _count(counter: Counter[str], result: HandResult, bot_player: int) -> None:
    if result.winner is None:
        counter[result.outcome] += 1
    else:
        counter[("a_" if result.winner == bot_player else "b_") + result.outcome] += 1


def evaluate_bot_hands(
    make_bot: Callable[[Any, int], Any],
    policy: Policy,
    n_deals: int,
    seed: int = 0,
    rules: Rules | None = None,
    bot_name: str = "bot",
    progress: bool = False,
) -> HandsReport:
    """``n_deals`` deals, each played by the bot from both seats against ``policy`` (module doc).

    ``make_bot(game, player)`` builds the bot for a seat (called once per seat)."""
    if isinstance(n_deals, bool) or not isinstance(n_deals, int | np.integer) or n_deals < 1:
        raise ValueError(f"n_deals must be an int >= 1, got {n_deals!r}")
    check_policy(policy)
    rules = rules or Rules()
    game = pyspiel.load_game(HAND_GAME, rules.to_dict())
    bots = (make_bot(game, TEAM), make_bot(game, BOX))
    rng = np.random.default_rng(seed)
    team_pts: list[float] = []
    box_pts: list[float] = []
    counter: Counter[str] = Counter()
    turns = 0
    start = time.perf_counter()
    for _ in progress_bar(range(int(n_deals)), progress, "hands"):
        deck = [int(c) for c in rng.permutation(52)]
        for bot_player, out in ((TEAM, team_pts), (BOX, box_pts)):
            players = (bots[TEAM], policy) if bot_player == TEAM else (policy, bots[BOX])
            state = play_bot_deal(game, deck, players)
            hand = state.hand
            assert hand is not None and hand.result is not None
            out.append(float(hand.result.returns[bot_player]))
            _count(counter, hand.result, bot_player)
            turns += hand.turns
    return HandsReport.of_deals(
        (bot_name, policy_name(policy)), seed, rules.to_dict(), team_pts, box_pts, None, counter, turns, start
    )
