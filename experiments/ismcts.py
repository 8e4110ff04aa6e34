"""OpenSpiel's IS-MCTS bot on ``python_gin3_hand`` against our heuristic and our search.

    python -m experiments.ismcts --hands 50 --seed 2026 --out docs/results/ismcts.json

For each leaf evaluation (``--rollouts``: random playouts, OpenSpiel's own evaluator, and
heuristic playouts) and each opponent (``--opponents``: ``heuristic``, ``search``, or any
``load_policy`` spec), it plays ``--hands`` deals in the duplicate format
(:func:`evaluate_bot_hands`, below: each deal from both seats,
the deals ``gin3 evaluate --seed`` plays) with ``--simulations`` IS-MCTS simulations per
decision, and reports the bot's points per hand with 95% intervals (from the pair means) and
the time per bot decision (on this machine, at the time). The JSON file is rewritten after
each match-up (atomically), so a long run can be stopped.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from gin3_env.argparsing import OneLineErrorParser
from gin3_env.engine.hand import BOX, TEAM
from gin3_env.engine.rules import Rules
from gin3_env.evaluation.hands import count_outcome
from gin3_env.evaluation.hands_report import HandsReport
from gin3_env.evaluation.util import progress_bar
from gin3_env.game.policy import Policy, check_policy, policy_name
from gin3_env.interop.openspiel_base import pyspiel
from gin3_env.interop.openspiel_game import HAND_GAME
from gin3_env.interop.openspiel_hand import HandGameState
from gin3_env.observation.encoding import observe


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
            count_outcome(counter, hand.result, bot_player)
            turns += hand.turns
    return HandsReport.of_deals(
        (bot_name, policy_name(policy)), seed, rules.to_dict(), team_pts, box_pts, None, counter, turns, start
    )


DEFAULT_OPPONENTS = ("heuristic", "search")
DEFAULT_SIMULATIONS = 100


def _timed_bot(bot: Any, seconds: list[float]) -> Any:
    """``bot`` behind a ``pyspiel.Bot`` that records the wall time of each ``step``."""
    import pyspiel

    class TimedBot(pyspiel.Bot):
        def __init__(self) -> None:
            pyspiel.Bot.__init__(self)

        def step(self, state: Any) -> int:
            start = time.perf_counter()
            action = bot.step(state)
            seconds.append(time.perf_counter() - start)
            return int(action)

    return TimedBot()


def run(hands: int, seed: int, simulations: int, rollouts: list[str], opponents: list[str],
        uct_c: float, out: Path | None) -> list[dict[str, Any]]:
    from experiments.ismcts_bot import ismcts_bot
    from gin3_env.files import save_json
    from gin3_env.policies import load_policy

    command = "python -m experiments.ismcts " + " ".join(sys.argv[1:])
    rows: list[dict[str, Any]] = []
    for rollout in rollouts:
        for opponent in opponents:
            seconds: list[float] = []

            def make_bot(game: Any, player: int, rollout: str = rollout, seconds: list[float] = seconds) -> Any:
                bot = ismcts_bot(game, simulations, rollout=rollout, uct_c=uct_c, seed=seed + player)
                return _timed_bot(bot, seconds)

            name = f"ismcts-{rollout}-{simulations}"
            policy = load_policy(opponent)
            report = evaluate_bot_hands(make_bot, policy, hands, seed=seed, bot_name=name)
            row = {
                "bot": name,
                "rollout": rollout,
                "simulations": simulations,
                "uct_c": uct_c,
                "opponent": opponent,
                "deals": hands,
                "seed": seed,
                "bot_decisions": len(seconds),
                "median_ms_per_bot_decision": float(np.median(seconds) * 1e3) if seconds else 0.0,
                "report": report.to_dict(),
            }
            rows.append(row)
            d = report.to_dict()
            p = d["points_per_hand"]
            print(
                f"{name:<22} vs {opponent:<10} {p['mean']:+6.2f} [{p['low']:+6.2f}, {p['high']:+6.2f}]  "
                f"team {d['as_team']['mean']:+6.2f}  box {d['as_box']['mean']:+6.2f}  "
                f"won {d['wins']['a']}/{d['n_hands']} lost {d['wins']['b']}  "
                f"median {row['median_ms_per_bot_decision']:.0f} ms/decision  ({d['seconds']:.0f} s)",
                flush=True,
            )
            if out is not None:
                save_json(out, {"kind": "ismcts", "command": command, "runs": rows})
    return rows


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an int >= 1, got {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    p = OneLineErrorParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=positive_int, default=50, help="deals, each played from both seats (default 50)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--simulations", type=positive_int, default=DEFAULT_SIMULATIONS,
                   help=f"IS-MCTS simulations per decision (default {DEFAULT_SIMULATIONS})")
    p.add_argument("--rollouts", nargs="+", choices=("heuristic", "random"), default=["heuristic", "random"])
    p.add_argument("--opponents", nargs="+", default=list(DEFAULT_OPPONENTS),
                   help="load_policy specs (default: heuristic search)")
    p.add_argument("--uct-c", type=float, default=None, help="exploration constant, in points (default 10)")
    p.add_argument("--out", type=Path, help="JSON file to write (e.g. docs/results/ismcts.json)")
    args = p.parse_args(argv)
    from experiments.ismcts_bot import DEFAULT_UCT_C

    uct_c = DEFAULT_UCT_C if args.uct_c is None else args.uct_c
    if uct_c < 0:
        p.error(f"--uct-c must be >= 0, got {uct_c}")
    run(args.hands, args.seed, args.simulations, args.rollouts, args.opponents, uct_c, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
