"""The ``gin3`` command line: ``train``, ``train-gate``, ``evaluate``, ``ladder``, ``exploit``, ``bench``, ``dataset``,
``play``, ``replay``.

``train``, ``evaluate``, ``ladder``, ``exploit`` and ``bench`` hand their arguments to
``gin3_training.train.main``, ``gin3_env.evaluation.cli_main``,
``gin3_env.evaluation.ladder.cli_main``, ``gin3_env.evaluation.exploit_cli.cli_main`` and
``gin3_env.benchmarks.main``, imported only when asked for (they need the
optional extras). ``play`` and ``replay`` are in :mod:`gin3_env.play` (its
``commands`` module runs them from the parsed arguments). This module only builds
the parser and dispatches; ``python -m gin3_env`` runs it too.

Exit codes: 0 on success (also when the person quits), 2 on a usage error or a
missing optional part, 1 on an unexpected failure, 130 (143) when Ctrl-C (SIGTERM)
stops a delegated command before it handles the signal itself (while its libraries
load, say): one line, no traceback. The console script is :func:`entry`: a
command stopped by a signal ends the process at once (see there).
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from . import __version__
from .argparsing import OneLineErrorParser
from .engine.rules import Rules
from .policies.loading import policy_spec_help
from .policies.model_file import add_trust_flag, trust_from_args
from .policies.registry import PLAYER_ROWS
from .signals import Interrupted, exit_code, stop_signals_after

# subcommand -> (module, function, one-line help)
DELEGATED: dict[str, tuple[str, str, str]] = {
    "train": ("gin3_training.train", "main", "train an agent (needs the 'train' extra)"),
    "evaluate": ("gin3_env.evaluation", "cli_main", "play policies against each other and report"),
    "bench": ("gin3_env.benchmarks", "main", "speed benchmarks (needs the 'bench' extra)"),
    "ladder": ("gin3_env.evaluation.ladder", "cli_main", "every pair of a roster of players on the same deals"),
    "exploit": ("gin3_env.evaluation.exploit_cli", "cli_main",
                "a lower bound on a player's exploitability (a duplicate local best response)"),
    "dataset": ("gin3_env.evaluation.dataset", "cli_main",
                "record a Minari dataset of a player's play (needs the 'dataset' extra)"),
    "train-gate": ("gin3_training.gates.train", "main",
                   f"make the 'gated' player ({PLAYER_ROWS['gated'].description}) from labels on the true deal"),
}
ROLES = {"team": 0, "box": 1}
# gin3 train --backend NAME: the trainers other than the default (sb3) one
TRAIN_BACKENDS: dict[str, tuple[str, str, str]] = {
    "rllib": ("gin3_training.ppo.rllib.train", "main", "train with Ray RLlib (needs the 'rllib' extra)"),
}


def split_backend(argv: list[str]) -> tuple[str, list[str]]:
    """``gin3 train``'s ``--backend NAME`` (or ``--backend=NAME``) and the other arguments."""
    for i, arg in enumerate(argv):
        if arg == "--backend" and i + 1 < len(argv):
            return argv[i + 1], argv[:i] + argv[i + 2 :]
        if arg.startswith("--backend="):
            return arg.split("=", 1)[1], argv[:i] + argv[i + 1 :]
    return "sb3", argv


def _delegate(command: str, argv: list[str]) -> int:
    if command == "train":
        backend, rest = split_backend(argv)
        if backend in TRAIN_BACKENDS:
            return _run(f"train --backend {backend}", TRAIN_BACKENDS[backend], rest)
        if backend != "sb3":
            print(f"gin3 train: unknown --backend {backend!r} (choose sb3 or {', '.join(TRAIN_BACKENDS)})",
                  file=sys.stderr)
            return 2
        argv = rest
    return _run(command, DELEGATED[command], argv)


def _run(command: str, target: tuple[str, str, str], argv: list[str]) -> int:
    try:
        with stop_signals_after():  # a signal while torch loads stops after the import (the command then
            func = _load(command, target, argv)  # installs its own handling)
        if isinstance(func, int):
            return func
        code = func(argv)
    except Interrupted as exc:
        print(f"gin3 {command}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"gin3 {command}: stopped by SIGINT", file=sys.stderr)
        return exit_code(signal.SIGINT)
    return code if isinstance(code, int) else 0


# the extra each command needs: only that one is named (the 'bench' extra's OpenSpiel and RLCard, say, have
# no place in the RLlib virtual environment, whose pins the 'train' extra keeps)
COMMAND_EXTRAS = {"train": "train", "bench": "bench", "dataset": "dataset", "train --backend rllib": "rllib"}


def _install_hint(command: str) -> str:
    extra = COMMAND_EXTRAS.get(command)
    if extra is None:
        return "Reinstall or update the package."
    where = " in a virtual environment of its own (see the README)" if extra == "rllib" else ""
    return (f"Install its extra{where}: pip install 'gin3_env[{extra}]' (in a checkout: pip install -e '.[{extra}]'), "
            "or update the package.")


def _load(command: str, target: tuple[str, str, str], argv: list[str]) -> Callable[[list[str]], Any] | int:
    """The command's function, or the exit code when its module cannot be loaded (said on stderr)."""
    module_name, func_name, summary = target
    try:
        module = importlib.import_module(module_name)
        func: Callable[[list[str]], Any] = getattr(module, func_name)
    except (ImportError, AttributeError) as exc:
        print(
            f"gin3 {command}: {summary}.\n"
            f"gin3 {command} is not available: {module_name}.{func_name} could not be loaded ({exc}).\n"
            f"{_install_hint(command)}",
            file=sys.stderr,
        )
        return 0 if any(a in ("-h", "--help") for a in argv) else 2
    return func


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="gin3",
        description="Three-handed gin rummy ('in the box'): train, evaluate, benchmark, play, replay.",
    )
    parser.add_argument("--version", action="version", version=f"gin3 {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, func, summary) in DELEGATED.items():
        sub.add_parser(name, help=summary, add_help=False, description=f"{summary} ({module}.{func})")

    play = sub.add_parser(
        "play",
        help="play against a policy in the terminal",
        description="Play one hand (or, with --match, a whole match) against policies. At each decision "
        "type the number of a move or the move in words: draw, take, pass, 7S (discard), knock 7S; "
        "help; quit.",
    )
    play.add_argument(
        "--opponent",
        default="heuristic",
        metavar="SPEC",
        help=f"the policy you play against (default heuristic): {policy_spec_help()}. It is loaded for the "
        "game's rules (--rules)",
    )
    play.add_argument(
        "--rules", metavar="JSON",
        help="rules options as JSON, e.g. '{\"knock_limit\": 5}' (" + ", ".join(Rules.option_names()) + "); the "
        "opponents are loaded for these rules, and one that cannot play them is refused in one line (default: the "
        "rule book's)",
    )
    play.add_argument(
        "--role",
        choices=["team", "box", "sitter"],
        default=None,
        help="your role: team (captain, default) or box; with --match also sitter (default: drawn by card)",
    )
    add_trust_flag(play)
    play.add_argument("--match", action="store_true", help="play a whole match to the target score")
    play.add_argument("--seed", type=int, default=None, help="seed for the deal, the draw for roles and the policies")
    deck = play.add_mutually_exclusive_group()
    deck.add_argument("--deck", metavar="CARDS", help='a stacked deck of 52 cards, top first: "AC 2C ..."')
    deck.add_argument(
        "--deck-json",
        metavar="FILE",
        help='a JSON file: a list of 52 cards (ints or texts), a hand log, or {"decks": [...]} for a match',
    )
    play.add_argument("--no-color", action="store_true", help="no ANSI colours (also when NO_COLOR is set)")
    play.add_argument("--ascii", action="store_true", help="cards as 7S instead of 7♠")
    play.add_argument("--save-log", metavar="FILE", help="write the hand or match log as JSON at the end")
    play.add_argument("--target-score", type=int, default=None, help=argparse.SUPPRESS)
    play.add_argument("--knock-limit", type=int, default=None, help=argparse.SUPPRESS)

    replay = sub.add_parser(
        "replay",
        help="step through a saved hand or match log",
        description="Show a saved hand log or match log (from gin3 evaluate A B --save-logs DIR, or gin3 play "
        "--save-log FILE) move by move with both hands visible: "
        "Enter for the next move, a to print the rest, q to quit. With --video or --html, write a "
        "video or a browser viewer page of it instead.",
    )
    replay.add_argument(
        "file",
        help="a JSON log: gin3 evaluate A B --save-logs DIR writes some of its games there (hand_000_a_team.json, "
        "match_000_a_seat0.json, ...), gin3 play --save-log FILE the game played; or HandState.log() / "
        "MatchState.log() saved as JSON",
    )
    replay.add_argument("--all", action="store_true", help="print every step without waiting")
    replay.add_argument("--no-color", action="store_true", help="no ANSI colours")
    replay.add_argument("--ascii", action="store_true", help="cards as 7S instead of 7♠")
    replay.add_argument("--video", metavar="OUT", help="write a video of it: OUT.mp4 or OUT.gif (the 'video' extra)")
    replay.add_argument("--html", metavar="OUT", help="write a self-contained viewer page OUT.html for a browser")
    replay.add_argument("--fps", type=float, default=2.0, help="moves per second in the video (default 2)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in DELEGATED:
        return _delegate(args_list[0], args_list[1:])
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 0
    from .play.commands import run_play, run_replay

    try:
        if args.command == "play":
            trust_from_args(args)
            return run_play(args)
        return run_replay(args)
    except ValueError as exc:
        print(f"gin3 {args.command}: error: {exc}", file=sys.stderr)
        return 2


def entry() -> NoReturn:
    """The ``gin3`` console script (and ``python -m gin3_env``): :func:`main`, then exit with its code.

    A command stopped by a signal (130, 143: its checkpoint written, its workers stopped) ends the
    process at once, output flushed: Python's own finalization, a second or more once torch and
    Ray are loaded, runs with the default signal actions, so a second Ctrl-C or ``kill`` there
    would end it without its exit code."""
    code = main()
    if code in (exit_code(signal.SIGINT), exit_code(signal.SIGTERM)):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
