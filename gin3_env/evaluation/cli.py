"""``gin3 evaluate A [B] ...``: policies against each other, as text and JSON.

A and B are :func:`gin3_env.policies.load_policy` specs (``random``,
``heuristic``, ``search``, ``gated``, ``rllib:PATH`` or a model path; the help lists
them from :func:`~gin3_env.policies.policy_spec_help`), both checked before either is
loaded, and both loaded for the game's rules (``--rules JSON``; ``load_policy(spec, rules=...)``).
B may be ``openspiel-simple``: then A plays OpenSpiel's two-player gin against OpenSpiel's simple
bot (needs the ``openspiel`` extra). ``--vs-openspiel`` adds that evaluation to an A-vs-B one (B may
then be left out).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..argparsing import OneLineErrorParser
from ..engine.rules import Rules
from ..files import check_output_file, parse_json, same_file, save_json
from ..policies import check_policy_spec, policy_spec_files, policy_spec_help
from ..policies.model_file import add_trust_flag, trust_from_args
from ..signals import Interrupted, raise_on_stop_signals
from .hands import evaluate_hands
from .hands_report import HandsReport
from .matches import MatchesReport, evaluate_matches
from .util import run_command
from .vs_openspiel import OPPONENT_NAME, evaluate_openspiel_hands, evaluate_openspiel_matches

Report = HandsReport | MatchesReport
RULES_EXAMPLE = """'{"knock_limit": 5}'"""


@dataclass
class Evaluation:
    """Every report of one ``gin3 evaluate`` run."""

    policy_a: str
    policy_b: str | None
    seed: int
    reports: list[Report] = field(default_factory=list)
    log_files: list[Path] = field(default_factory=list)  # --save-logs (not part of the results)

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy_a": self.policy_a,
            "policy_b": self.policy_b,
            "seed": self.seed,
            "reports": {r.kind: r.to_dict() for r in self.reports},
        }

    def to_text(self) -> str:
        return "\n\n".join(r.to_text() for r in self.reports)


DEFAULT_MATCHES = 60


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="gin3 evaluate",
        description="Play policy A against policy B over seeded hands (duplicate format: each deal "
        "twice, seats swapped) and whole matches, and report A's results with 95% confidence "
        "intervals.",
    )
    parser.add_argument("a", metavar="A", help=f"policy A: {policy_spec_help()}")
    parser.add_argument(
        "b",
        metavar="B",
        nargs="?",
        default=None,
        help=f"policy B (same choices), or {OPPONENT_NAME} for OpenSpiel's simple gin bot",
    )
    parser.add_argument("--hands", type=int, default=500, help="deals to play, each twice (default 500)")
    parser.add_argument("--matches", type=int, default=None,
                        help=f"matches to play (default {DEFAULT_MATCHES}; 0: none); --hands 0 --matches N plays only "
                        "matches")
    parser.add_argument("--seed", type=int, default=0, help="seed of the decks and random policies (default 0)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    parser.add_argument(
        "--vs-openspiel",
        action="store_true",
        help=f"also play A against {OPPONENT_NAME} in OpenSpiel's gin_rummy (needs open-spiel)",
    )
    parser.add_argument(
        "--seat-baseline",
        action="store_true",
        help="also play B against itself on every deal and report A minus B in each seat (the seats "
        "are not worth the same: the captain moves first)",
    )
    add_trust_flag(parser)
    add_rules_flag(parser)
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="progress on stderr: a bar on a terminal, else a line after 1 s, then every 10 s (default: on)",
    )
    parser.add_argument(
        "--save-logs",
        metavar="DIR",
        help="also save logs of the first deals (both seatings) and matches in DIR, for gin3 replay "
        "(--html, --video)",
    )
    parser.add_argument(
        "--log-games", type=int, default=3, metavar="N", help="with --save-logs: how many deals and matches (default 3)"
    )
    return parser


def _load(spec: str, seed: int, rules: Rules | None = None) -> Any:
    """The player of ``spec`` built for the game's ``rules`` (None: the default rules); ``random`` and
    ``search`` seeded with ``seed``."""
    from ..policies import load_policy
    from ..policies.registry import takes_seed

    if takes_seed(spec):
        return load_policy(spec, seed=seed, rules=rules)
    return load_policy(spec, rules=rules)


def add_rules_flag(parser: argparse.ArgumentParser) -> None:
    """``--rules JSON``: the game's rules options, which every player is loaded for."""
    parser.add_argument(
        "--rules", metavar="JSON",
        help="rules options as JSON, e.g. '{\"knock_limit\": 5}' (" + ", ".join(Rules.option_names()) + "); every "
        "player is loaded for these rules, and one that cannot play them is refused in one line (default: the rule "
        "book's)",
    )


def parse_rules(text: str | None) -> Rules | None:
    """``--rules`` JSON as :class:`Rules`; a ``ValueError`` naming ``--rules`` if it is not that."""
    if not text:
        return None
    try:
        options = parse_json(text, "--rules", max_depth=4)
    except ValueError as exc:
        raise ValueError(f"--rules must be a JSON object, e.g. {RULES_EXAMPLE}; got {text[:80]!r} ({exc})") from None
    if not isinstance(options, dict):
        raise ValueError(f"--rules must be a JSON object, e.g. {RULES_EXAMPLE}; got {text!r}")
    try:
        return Rules.from_dict(options)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"--rules: {exc}") from None


def _labelled(report: Report, a: str, b: str | None) -> Report:
    """The report with A and B named as the user typed them (not a model file's stem)."""
    return dataclasses.replace(report, policy_a=a, policy_b=b if b is not None else report.policy_b)


def check_args(args: argparse.Namespace) -> Rules | None:
    """Every refusal of ``gin3 evaluate`` that its flags alone decide, before anything is loaded or played:
    a ``ValueError`` (or ``ImportError`` for a missing extra) naming the flag; returns the rules."""
    if args.hands < 0:
        raise ValueError(f"--hands must be >= 1, got {args.hands}")
    if args.hands == 0 and args.matches is None:  # only matches: asked for in so many words
        raise ValueError("--hands must be >= 1, got 0 (to play only matches, give --hands 0 --matches N)")
    if args.matches is None:
        args.matches = DEFAULT_MATCHES
    if args.matches < 0:
        raise ValueError(f"--matches must be >= 0, got {args.matches}")
    if args.hands == 0 and args.matches == 0:
        raise ValueError("nothing to play: --hands and --matches are both 0")
    if args.b is None and not args.vs_openspiel:
        raise ValueError(f"give policy B (or {OPPONENT_NAME}, or --vs-openspiel)")
    ours = args.b is not None and args.b != OPPONENT_NAME  # B is a policy of this package
    if args.seat_baseline and not ours:
        raise ValueError("--seat-baseline needs a policy B of this package (B plays itself on every deal)")
    rules = parse_rules(args.rules)
    vs_openspiel = args.vs_openspiel or args.b == OPPONENT_NAME
    if vs_openspiel and rules is not None:
        raise ValueError("--rules does not apply to OpenSpiel's game (knock 10, gin 25, undercut 10)")
    inputs = tuple(name for spec in (args.a, args.b) if spec is not None and spec != OPPONENT_NAME
                   for name in policy_spec_files(spec))
    if args.save_logs:
        if not ours:
            raise ValueError("--save-logs needs a policy B of this package (the logs are of our own game)")
        if args.log_games < 1:
            raise ValueError(f"--log-games must be >= 1, got {args.log_games}")
        from .logs import check_log_folder, log_file_names

        folder = check_log_folder(args.save_logs)
        for name in log_file_names(min(args.log_games, args.hands), min(args.log_games, args.matches)):
            for source in inputs:  # a log written over a file played: an input is never an output
                if os.path.lexists(source) and same_file(folder / name, source):
                    raise ValueError(f"--save-logs {args.save_logs}: its log {name} is an input of this command "
                                     f"({source}); an input is never overwritten, give another folder")
    if args.json:  # never one of the files played (a gate or model file): an input is never an output
        check_output_file(args.json, "--json", inputs=inputs)
    for spec, also in ((args.a, ()), (args.b, (OPPONENT_NAME,))):  # every spec refused before any is loaded
        if spec is not None and spec != OPPONENT_NAME:
            check_policy_spec(spec, also)
    if vs_openspiel:
        from ..interop.openspiel import import_pyspiel

        import_pyspiel()  # the extra is missing: said now, not after A has played B
    return rules


def run(args: argparse.Namespace) -> Evaluation:
    """Run the evaluations an argument namespace asks for (its flags checked first: :func:`check_args`);
    the game logs of ``--save-logs`` are written by :func:`save_logs`."""
    rules = check_args(args)
    policy_a = _load(args.a, args.seed, rules)
    result = Evaluation(args.a, args.b, args.seed)
    if args.progress:
        stages = evaluation_stages(args)
        if len(stages) > 1:
            print("[evaluate] stages: " + "; ".join(f"{i}. {s}" for i, s in enumerate(stages, 1))
                  + " (each with its progress and time left)", file=sys.stderr, flush=True)
    if args.b is not None and args.b != OPPONENT_NAME:
        policy_b = _load(args.b, args.seed + 1, rules)
        if args.hands:
            result.reports.append(
                evaluate_hands(policy_a, policy_b, args.hands, args.seed, rules, args.progress, args.seat_baseline)
            )
        if args.matches:
            result.reports.append(evaluate_matches(policy_a, policy_b, args.matches, args.seed, rules, args.progress))
    if args.vs_openspiel or args.b == OPPONENT_NAME:
        if args.hands:
            result.reports.append(evaluate_openspiel_hands(policy_a, args.hands, args.seed, args.progress))
        if args.matches:
            result.reports.append(evaluate_openspiel_matches(policy_a, args.matches, args.seed, args.progress))
    result.reports = [_labelled(r, args.a, None if r.policy_b == OPPONENT_NAME else args.b) for r in result.reports]
    return result


def evaluation_stages(args: argparse.Namespace) -> list[str]:
    """What ``gin3 evaluate`` will play, in order."""
    stages = []
    if args.b is not None and args.b != OPPONENT_NAME:
        if args.hands:
            stages.append(f"{args.hands:,} deals, each played twice")
        if args.matches:
            stages.append(f"{args.matches:,} three-seat matches")
    if args.vs_openspiel or args.b == OPPONENT_NAME:
        if args.hands:
            stages.append(f"{args.hands:,} hands of OpenSpiel's gin_rummy against its simple bot")
        if args.matches:
            stages.append(f"{args.matches:,} matches against OpenSpiel's simple bot")
    return stages


def save_logs(args: argparse.Namespace, result: Evaluation) -> None:
    """``--save-logs``: replay the first deals and matches and write their logs (``result.log_files``)."""
    from .logs import save_game_logs

    rules = parse_rules(args.rules)
    result.log_files = save_game_logs(
        args.save_logs,
        _load(args.a, args.seed, rules),
        _load(args.b, args.seed + 1, rules),
        hands=min(args.log_games, args.hands),
        matches=min(args.log_games, args.matches),
        seed=args.seed,
        rules=rules,
        names=(args.a, args.b),
    )


def cli_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``gin3 evaluate``; returns the exit status.

    Every flag is checked before anything is played; the report is printed as soon as it is measured, so a
    JSON file or a log folder that cannot be written afterwards costs that file, not the results."""
    parser = build_parser()
    args = parser.parse_args(argv)
    trust_from_args(args)
    result = run_command("gin3 evaluate", lambda: run(args))  # Ctrl-C or kill: one line, exit 130/143
    if isinstance(result, int):
        return result
    print(result.to_text(), flush=True)
    status = 0
    if args.json:
        try:
            save_json(args.json, result.to_dict())
        except OSError as exc:
            print(f"gin3 evaluate: error: cannot write --json {args.json} ({exc}); the results are above",
                  file=sys.stderr)
            status = 1
        else:
            print(f"results written to {args.json}")
    if args.save_logs:
        try:
            with raise_on_stop_signals():
                save_logs(args, result)
        except (ValueError, OSError) as exc:
            print(f"gin3 evaluate: error: the game logs were not written ({exc})", file=sys.stderr)
            return 1
        except Interrupted as exc:
            print(f"\ngin3 evaluate: {exc}; the game logs were not all written", file=sys.stderr)
            return exc.exit_code
    if result.log_files:
        folder = result.log_files[0].parent
        print(f"{len(result.log_files)} game logs written to {folder} (gin3 replay FILE [--html OUT.html])")
    return status
