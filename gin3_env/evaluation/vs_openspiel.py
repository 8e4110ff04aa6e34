"""A gin3 policy against OpenSpiel's simple gin bot, in OpenSpiel's two-player gin.

Hands use the duplicate format: each deck is played with our policy as
OpenSpiel player 0 (moves first: our "team" role) and then as player 1 (the
dealer: our "box" role); the overall interval comes from the pair means.
Points are OpenSpiel's returns. Matches are two-player games to
``target`` (100) points scored as OpenSpiel scores hands: the winner of a hand
adds its return to its total. The first player alternates from hand to hand;
matches come in pairs sharing a random stream, our policy moving first in the
first hand of one and second in the other. See :mod:`gin3_env.interop.openspiel`
for how the games are bridged.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import numpy as np

from ..game.policy import Policy, policy_name
from ..interop.openspiel import OPENSPIEL_PARAMS, OpenSpielHand, load_game, play_openspiel_hand
from .hands_report import HandsReport
from .matches import MatchesReport
from .stats import mean_ci, wilson_ci
from .util import progress_bar

OPPONENT_NAME = "openspiel-simple"
DEFAULT_MAX_HANDS = 500


def _outcome(hand: OpenSpielHand) -> str:
    """``a_gin`` / ``a_knock`` / ``a_undercut`` (we scored so), ``b_...``, ``tie``, ``none``."""
    if not any(hand.knocked):
        return "none"
    knocker = 0 if hand.knocked[0] else 1
    if hand.points == 0:
        return "tie"
    if hand.final_deadwood[knocker] == 0:
        kind = "gin"
    else:
        kind = "knock" if hand.returns[knocker] > 0 else "undercut"
    return ("a_" if hand.points > 0 else "b_") + kind


def _bot(game: Any, player: int) -> Any:
    from ..interop.openspiel import import_pyspiel

    return import_pyspiel().make_simple_gin_rummy_bot(game.get_parameters(), player)


def evaluate_openspiel_hands(
    policy: Policy, n_hands: int, seed: int = 0, progress: bool = False, params: dict[str, int] | None = None
) -> HandsReport:
    """``n_hands`` decks, each played from both seats against the simple bot."""
    if isinstance(n_hands, bool) or not isinstance(n_hands, int | np.integer) or n_hands < 1:
        raise ValueError(f"n_hands must be an int >= 1, got {n_hands!r}")
    game = load_game(params)
    rng = np.random.default_rng(seed)
    first: list[float] = []
    second: list[float] = []
    counter: Counter[str] = Counter()
    moves = 0
    start = time.perf_counter()
    for _ in progress_bar(range(int(n_hands)), progress, "openspiel deals, each played twice"):
        deck = [int(c) for c in rng.permutation(52)]
        for player, out in ((0, first), (1, second)):
            hand = play_openspiel_hand(game, policy, player, deck, _bot(game, 1 - player))
            out.append(hand.points)
            counter[_outcome(hand)] += 1
            moves += hand.turns
    keys = [f"{side}_{o}" for side in "ab" for o in ("gin", "knock", "undercut")] + ["tie", "none"]
    return HandsReport(
        policy_a=policy_name(policy),
        policy_b=OPPONENT_NAME,
        n_deals=int(n_hands),
        seed=seed,
        rules=dict(params or OPENSPIEL_PARAMS),
        overall=mean_ci([(a + b) / 2 for a, b in zip(first, second, strict=True)]),
        as_team=mean_ci(first),
        as_box=mean_ci(second),
        wins={
            "a": sum(v for k, v in counter.items() if k.startswith("a_")),
            "b": sum(v for k, v in counter.items() if k.startswith("b_")),
            "none": counter["tie"] + counter["none"],
        },
        outcomes={k: counter[k] for k in keys},
        mean_turns=moves / (2 * n_hands),
        seconds=time.perf_counter() - start,
        kind="openspiel_hands",
        title="OpenSpiel gin_rummy hands",
        role_names=("player 0 (first)", "player 1 (dealer)"),
    )


def play_openspiel_match(
    game: Any,
    policy: Policy,
    rng: np.random.Generator,
    first: int,
    target: int = 100,
    max_hands: int = DEFAULT_MAX_HANDS,
) -> tuple[list[float], int]:
    """One two-player match to ``target``; returns ([our total, bot total], hands played).

    Our policy is OpenSpiel player ``first`` in the first hand, then seats alternate."""
    totals = [0.0, 0.0]
    hands = 0
    while max(totals) < target and hands < max_hands:
        player = (first + hands) % 2
        deck = [int(c) for c in rng.permutation(52)]
        hand = play_openspiel_hand(game, policy, player, deck, _bot(game, 1 - player))
        if hand.points > 0:
            totals[0] += hand.points
        elif hand.points < 0:
            totals[1] -= hand.points
        hands += 1
    return totals, hands


def evaluate_openspiel_matches(
    policy: Policy,
    n_matches: int,
    seed: int = 0,
    progress: bool = False,
    target: int = 100,
    params: dict[str, int] | None = None,
) -> MatchesReport:
    """``n_matches`` two-player matches to ``target`` against the simple bot."""
    if isinstance(n_matches, bool) or not isinstance(n_matches, int | np.integer) or n_matches < 1:
        raise ValueError(f"n_matches must be an int >= 1, got {n_matches!r}")
    game = load_game(params)
    wins = unfinished = hands = 0
    ours: list[float] = []
    theirs: list[float] = []
    start = time.perf_counter()
    for i in progress_bar(range(int(n_matches)), progress, "openspiel matches"):
        totals, played = play_openspiel_match(game, policy, np.random.default_rng([seed, i // 2]), i % 2, target)
        if max(totals) < target:
            unfinished += 1
        wins += totals[0] >= target
        ours.append(totals[0])
        theirs.append(totals[1])
        hands += played
    return MatchesReport(
        policy_a=policy_name(policy),
        policy_b=OPPONENT_NAME,
        n_matches=int(n_matches),
        seed=seed,
        rules={**(params or OPENSPIEL_PARAMS), "target_score": target},
        win_rate=wilson_ci(wins, int(n_matches)),
        a_score=mean_ci(ours),
        b_score=mean_ci(theirs),
        mean_hands=hands / n_matches,
        unfinished=unfinished,
        seconds=time.perf_counter() - start,
        kind="openspiel_matches",
        even_rate=0.5,
        title="OpenSpiel two-player matches",
        setup=f"to {target}, hand points as OpenSpiel returns them, first player alternating",
    )
