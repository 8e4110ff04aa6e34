"""``gin3 ladder``: every pair of a roster of players on the same duplicate deals.

Each pair ``(A, B)`` (A before B in the roster) plays the deals of ``gin3 evaluate A B --hands N
--matches 0 --seed S`` (deal ``i`` is the ``i``-th ``rng.permutation(52)`` of
``numpy.random.default_rng(S)``, each deal twice with the seats swapped), so every pair meets the
same deck orders, and a pair's figure is the one ``gin3 evaluate`` prints for it: A's mean points
per hand with the 95% interval over the per-deal pair means (:func:`~.hands.evaluate_hands`).
Each pair loads its two players afresh (A with seed ``S``, B with ``S + 1``, as ``gin3 evaluate``
does), so a pair's result does not depend on the rest of the roster; with ``--rules JSON`` every pair
plays that game, its players loaded for those rules (``openspiel-simple``, whose game's rules are fixed,
is then left out).

Two kinds of pair differ, and the table says so:

- a pair with a ``search`` player plays the first ``search_hands`` deals only (the search takes
  a tenth of a second per decision; by default a tenth of ``hands``);
- ``openspiel-simple`` (OpenSpiel's simple gin bot) plays only OpenSpiel's two-player
  ``gin_rummy`` (knock 10, gin 25, undercut 10), through
  :func:`~.vs_openspiel.evaluate_openspiel_hands`: the same deck orders, another game.

Outputs: a table (:meth:`Ladder.to_text`), a JSON (:meth:`Ladder.to_dict`, written atomically)
and a picture (:func:`plot_ladder`: the row player's mean against each column player as a heat
map, and every pair's mean with its 95% interval). The output paths and every spec are checked
before anything plays (:func:`check_outputs`, :func:`check_roster`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..argparsing import OneLineErrorParser
from ..engine.rules import Rules
from ..files import atomic_output, check_output_file, save_json
from ..policies import check_policy_spec, policy_spec_files, policy_spec_help
from ..policies.loading import importable, install_hint, missing_module
from ..policies.model_file import add_trust_flag, trust_from_args
from ..policies.registry import find_row, ladder_players
from .cli import add_rules_flag, parse_rules
from .exploit import DEFAULT_SEARCH, ExploitReport, can_exploit, check_exploit_search, exploit, rules_note
from .hands import evaluate_hands
from .hands_report import HandsReport
from .stats import MIN_INTERVAL_N, signed, too_few_note
from .util import run_command
from .vs_openspiel import OPPONENT_NAME


def default_roster() -> tuple[str, ...]:
    """The default roster of ``gin3 ladder``: the shipped players weakest first by expectation (the registry rows'
    ``ladder``), then OpenSpiel's simple bot."""
    return (*ladder_players(), OPPONENT_NAME)


DEFAULT_ROSTER: tuple[str, ...] = default_roster()
DEFAULT_HANDS = 1000
SEARCH_SHARE = 10  # pairs with a search player play hands // SEARCH_SHARE deals unless told
GIN3_GAME = "gin3"
OPENSPIEL_GAME = "openspiel gin_rummy"


def is_search(spec: str) -> bool:
    row = find_row(spec)
    return row is not None and row.name == "search"


def default_search_hands(hands: int) -> int:
    """The deals a pair with a search player plays when ``--search-hands`` is not given."""
    return max(1, hands // SEARCH_SHARE)


@dataclass(frozen=True)
class LadderPair:
    """One pair's result: A's points per hand against B (``report`` is the full hands report)."""

    a: str
    b: str
    game: str
    report: HandsReport

    @property
    def deals(self) -> int:
        return self.report.n_deals

    def to_dict(self) -> dict[str, Any]:
        ci = self.report.overall
        return {"a": self.a, "b": self.b, "game": self.game, "deals": self.deals, "mean": ci.mean,
                "low": ci.low, "high": ci.high, "std": ci.std, "report": self.report.to_dict()}


@dataclass
class Ladder:
    """Every pair of ``players``; ``hands`` deals a pair, ``search_hands`` for pairs with a search player."""

    players: list[str]
    hands: int
    search_hands: int
    seed: int
    pairs: list[LadderPair] = field(default_factory=list)
    # each player's exploitability bound (gin3 exploit), over exploit_hands deals; empty when not asked for
    exploit_hands: int = 0
    exploit: dict[str, ExploitReport] = field(default_factory=dict)
    rules: Rules = field(default_factory=Rules)  # the game's, which every player is loaded for

    def pair(self, a: str, b: str) -> LadderPair | None:
        for p in self.pairs:
            if (p.a, p.b) in ((a, b), (b, a)):
                return p
        return None

    def matrix(self) -> list[list[float | None]]:
        """``m[i][j]``: player ``i``'s mean points per hand against player ``j`` (None: not played)."""
        out: list[list[float | None]] = []
        for row in self.players:
            line: list[float | None] = []
            for col in self.players:
                p = None if row == col else self.pair(row, col)
                line.append(None if p is None else p.report.overall.mean * (1 if p.a == row else -1))
            out.append(line)
        return out

    def standing(self) -> list[tuple[str, float, int]]:
        """(player, mean of its pair means against the others, pairs), best first."""
        rows = []
        for name, line in zip(self.players, self.matrix(), strict=True):
            values = [v for v in line if v is not None]
            if values:
                rows.append((name, sum(values) / len(values), len(values)))
        return sorted(rows, key=lambda r: -r[1])

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "hands": self.hands,
            "search_hands": self.search_hands,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "unit": "points per hand of a against b; 95% interval over the per-deal means of the two seatings",
            "pairs": [p.to_dict() for p in self.pairs],
            "matrix": self.matrix(),
            "standing": [{"player": n, "mean_vs_field": m, "pairs": k} for n, m, k in self.standing()],
            "exploit_hands": self.exploit_hands,
            "exploitability": {n: r.to_dict() for n, r in self.exploit.items()},
        }

    def to_text(self) -> str:
        wa = max([len("A")] + [len(p.a) for p in self.pairs])
        wb = max([len("B")] + [len(p.b) for p in self.pairs])
        lines = [
            f"Ladder: {len(self.players)} players, seed {self.seed}, {self.hands} deals a pair "
            f"({self.search_hands} for pairs with search), each deal played twice with the seats swapped"
            + rules_note(self.rules.to_dict()),
            f"{'A':<{wa}}  {'B':<{wb}}  {'game':<19}  {'deals':>6}  {'A pts/hand':>10}  {'95% interval':>18}",
        ]
        for p in self.pairs:
            ci = p.report.overall
            lines.append(f"{p.a:<{wa}}  {p.b:<{wb}}  {p.game:<19}  {p.deals:>6}  {signed(ci.mean):>10}  "
                         f"{ci.interval(width=7)}")
        notes = []
        if any(is_search(p.a) or is_search(p.b) for p in self.pairs):
            notes.append(f"pairs with search play the first {self.search_hands} of the deals (--search-hands)")
        if any(p.game == OPENSPIEL_GAME for p in self.pairs):
            notes.append(f"pairs with {OPPONENT_NAME} play OpenSpiel's two-player gin_rummy (knock 10, gin 25, "
                         "undercut 10) on the same deck orders, not this package's game")
        if not all(p.report.overall.stated for p in self.pairs):
            notes.append(too_few_note(min(p.deals for p in self.pairs)))
        lines += [f"note: {n}" for n in notes]
        width = max(len(n) for n in self.players)
        cell = max(9, width)
        lines.append("")
        lines.append("row player's points per hand against the column player")
        lines.append(" " * width + "  " + "  ".join(f"{n:>{cell}}" for n in self.players))
        for name, line in zip(self.players, self.matrix(), strict=True):
            cells = ["." if v is None else signed(v) for v in line]
            lines.append(f"{name:<{width}}  " + "  ".join(f"{c:>{cell}}" for c in cells))
        lines.append("")
        lines.append("standing (mean of a player's pair means; pairs differ in deals and game, see above)")
        bounds = self.exploit
        if bounds:
            lines.append(f"{'':<{width + 4}}  {'':>7}  {'':<{len('over 0 pairs')}}  exploitability >= (95% interval)")
        for rank, (name, mean, k) in enumerate(self.standing(), start=1):
            bound = bounds.get(name)
            extra = "" if bound is None else f"  {signed(bound.bound.mean):>7} {bound.bound.interval()}"
            lines.append(f"{rank:>2}. {name:<{width}}  {signed(mean):>7}  over {k} pairs{extra}")
        if bounds:
            search = next(iter(bounds.values())).search
            lines.append(f"exploitability: a lower bound in points per hand over {self.exploit_hands} deals, "
                         f"each in both seats (gin3 exploit PLAYER --hands {self.exploit_hands} --seed {self.seed} "
                         f"--search {search}; docs/exploitability.md)")
            if self.exploit_hands < MIN_INTERVAL_N:
                lines.append(f"exploitability: {too_few_note(self.exploit_hands)}")
        return "\n".join(lines)


# ------------------------------------------------------------------ checks before any play
def check_roster(players: Sequence[str]) -> None:
    """Refuse a roster that cannot play, before any player is loaded: fewer than two players, a
    name given twice, an unknown spec (:func:`~gin3_env.policies.check_policy_spec`), or
    ``openspiel-simple`` without open-spiel installed."""
    if len(players) < 2:
        raise ValueError(f"a ladder needs at least two players, got {list(players)}")
    seen: set[str] = set()
    for spec in players:
        if not spec:
            raise ValueError("--players holds an empty name (two commas in a row?)")
        if spec in seen:
            raise ValueError(f"--players names {spec!r} twice")
        seen.add(spec)
    for spec in players:
        if spec == OPPONENT_NAME:
            from ..interop.openspiel import import_pyspiel

            import_pyspiel()
        else:
            check_policy_spec(spec, (OPPONENT_NAME,))


def left_out(players: Sequence[str]) -> dict[str, str]:
    """The players of the roster whose optional library is not installed here: spec -> that module
    (``openspiel-simple`` needs pyspiel, a network player torch)."""
    out: dict[str, str] = {}
    for spec in players:
        module = ("pyspiel" if not importable("pyspiel") else None) if spec == OPPONENT_NAME else missing_module(spec)
        if module is not None:
            out[spec] = module
    return out


def check_outputs(json_path: str | None, plot_path: str | None, players: Sequence[str] = (),
                  exploit_search: str | None = None) -> None:
    """Refuse output paths that could not be written, before any play: a folder, a place under a
    file or in a folder that cannot be written in, a name too long, a file of one of ``players`` or named in
    ``exploit_search`` (a gate file, a model or its description: an input is never an output), a picture
    not named ``.png``, both the same file, or matplotlib missing when a picture is asked for."""
    specs = [*players, *([f"search:{exploit_search}"] if exploit_search else [])]
    inputs = tuple(name for spec in specs for name in policy_spec_files(spec))
    if json_path is not None:
        check_output_file(json_path, "--json", create_folders=True, inputs=inputs)
    if plot_path is not None:
        if Path(plot_path).suffix.lower() != ".png":
            raise ValueError(f"--plot {plot_path}: the picture is a PNG; name it NAME.png")
        check_output_file(plot_path, "--plot", create_folders=True, inputs=inputs)
        if json_path is not None and Path(json_path).resolve() == Path(plot_path).resolve():
            raise ValueError(f"--json and --plot name the same file {json_path}")
        try:
            import matplotlib  # noqa: F401
        except ImportError as exc:
            raise ImportError(f"--plot needs matplotlib (pip install 'gin3_env[train]'): {exc}") from None


# ------------------------------------------------------------------ play
def _load(spec: str, seed: int, rules: Rules | None = None) -> Any:
    from .cli import _load as load

    return load(spec, seed, rules)


def play_pair(a: str, b: str, deals: int, seed: int, progress: bool = False, rules: Rules | None = None) -> LadderPair:
    """One pair on the first ``deals`` deals of ``seed``: our game under ``rules`` (None: the rule book's), both
    players loaded for them, or OpenSpiel's when one is the simple bot (its rules are fixed: no other rules)."""
    if a == OPPONENT_NAME and b == OPPONENT_NAME:
        raise ValueError(f"{OPPONENT_NAME} cannot play itself")
    if OPPONENT_NAME in (a, b):
        if rules is not None and rules != Rules():
            raise ValueError(f"{OPPONENT_NAME} plays OpenSpiel's gin_rummy (knock 10, gin 25, undercut 10): "
                             "--rules does not apply to it")
        from .vs_openspiel import evaluate_openspiel_hands

        ours = b if a == OPPONENT_NAME else a
        report = evaluate_openspiel_hands(_load(ours, seed), deals, seed, progress)
        report.policy_a, report.policy_b = ours, OPPONENT_NAME
        return LadderPair(ours, OPPONENT_NAME, OPENSPIEL_GAME, report)
    report = evaluate_hands(_load(a, seed, rules), _load(b, seed + 1, rules), deals, seed, rules, progress)
    report.policy_a, report.policy_b = a, b
    return LadderPair(a, b, GIN3_GAME, report)


def ladder_plan(players: Sequence[str], hands: int, search_hands: int | None = None) -> list[tuple[str, str, int]]:
    """The pairs a ladder plays, in order, each with its deals."""
    search = default_search_hands(hands) if search_hands is None else search_hands
    return [(a, b, search if is_search(a) or is_search(b) else hands)
            for i, a in enumerate(players) for b in players[i + 1 :]]


def run_ladder(
    players: Sequence[str],
    hands: int,
    seed: int = 0,
    search_hands: int | None = None,
    progress: bool = False,
    on_pair: Callable[[LadderPair, int, int], None] | None = None,
    on_plan: Callable[[list[tuple[str, str, int]]], None] | None = None,
    exploit_hands: int = 0,
    exploit_search: str = DEFAULT_SEARCH,
    rules: Rules | None = None,
) -> Ladder:
    """Every pair of ``players`` (module doc); ``on_plan(pairs)`` once the roster is checked, before any
    play, ``on_pair(pair, done, total)`` after each pair; with ``exploit_hands``, each player's
    exploitability bound too (``gin3 exploit``, :mod:`.exploit`). Every player is loaded for ``rules`` (None:
    the rule book's)."""
    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
        raise ValueError(f"--hands must be an int >= 1, got {hands!r}")
    if search_hands is None:
        search_hands = default_search_hands(hands)
    if isinstance(search_hands, bool) or not isinstance(search_hands, int) or search_hands < 1:
        raise ValueError(f"--search-hands must be an int >= 1, got {search_hands!r}")
    check_roster(players)
    if isinstance(exploit_hands, bool) or not isinstance(exploit_hands, int) or exploit_hands < 0:
        raise ValueError(f"--exploit-hands must be an int >= 0, got {exploit_hands!r}")
    ladder = Ladder(list(players), hands, search_hands, seed, exploit_hands=exploit_hands, rules=rules or Rules())
    todo = ladder_plan(players, hands, search_hands)
    if on_plan is not None:
        on_plan(todo)
    for done, (a, b, deals) in enumerate(todo, start=1):
        pair = play_pair(a, b, deals, seed, progress, rules)
        ladder.pairs.append(pair)
        if on_pair is not None:
            on_pair(pair, done, len(todo))
    for spec in players if exploit_hands else ():
        if can_exploit(spec):
            ladder.exploit[spec] = exploit(spec, exploit_hands, seed, exploit_search, progress, rules=rules)
    return ladder


# ------------------------------------------------------------------ the picture
def plot_ladder(ladder: Ladder, path: str | os.PathLike[str]) -> None:
    """A PNG: left, the row player's mean points per hand against each column player (a heat map,
    each cell with its mean and the interval's half-width); right, every pair's mean with its 95%
    interval. Written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    names = ladder.players
    m = np.array([[np.nan if v is None else v for v in line] for line in ladder.matrix()], dtype=float)
    n = len(names)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(6 + 1.1 * n, 1.2 + 0.9 * n + 0.1 * len(ladder.pairs)),
                                 gridspec_kw={"width_ratios": [1.15, 1]})
    limit = max(1.0, float(np.nanmax(np.abs(m)))) if np.isfinite(m).any() else 1.0
    # a symmetric log scale: the gaps of a few points between strong players stay visible beside random's -50
    norm = matplotlib.colors.SymLogNorm(linthresh=1.0, vmin=-limit, vmax=limit, base=10)
    image = ax.imshow(m, cmap="RdBu", norm=norm)
    for i, row in enumerate(names):
        for j, col in enumerate(names):
            pair = None if i == j else ladder.pair(row, col)
            if pair is None:
                continue
            half = pair.report.overall.half_width
            dark = abs(m[i, j]) > limit ** 0.7
            ax.text(j, i, f"{signed(m[i, j], 1)}\n±{half:.1f}", ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")
    ax.set_xticks(range(n), names, rotation=35, ha="right")
    ax.set_yticks(range(n), names)
    ax.set_title("row's points per hand vs column")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)

    labels = [f"{p.a} vs {p.b}" + (" *" if p.game == OPENSPIEL_GAME else "") + f" ({p.deals})"
              for p in ladder.pairs]
    means = np.array([p.report.overall.mean for p in ladder.pairs])
    lows = means - np.array([p.report.overall.low for p in ladder.pairs])
    highs = np.array([p.report.overall.high for p in ladder.pairs]) - means
    y = np.arange(len(ladder.pairs))[::-1]
    bx.errorbar(means, y, xerr=[lows, highs], fmt="o", color="black", ecolor="tab:blue", capsize=3)
    bx.axvline(0.0, color="grey", lw=0.8)
    bx.set_yticks(y, labels, fontsize=8)
    bx.set_xlabel("A's points per hand (95% interval)")
    title = "pairs: A vs B (deals)"
    if any(p.game == OPENSPIEL_GAME for p in ladder.pairs):
        title += "; * OpenSpiel gin_rummy"
    bx.set_title(title, fontsize=9)
    fig.suptitle(f"gin3 ladder, seed {ladder.seed}: duplicate deals, seats swapped", fontsize=10)
    fig.tight_layout()
    with atomic_output(path) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)


# ------------------------------------------------------------------ the command
def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="gin3 ladder",
        description="Play every pair of a roster of players on the same duplicate deals (each deal twice, "
        "seats swapped) and report each pair's mean points per hand with its 95% interval: a table on "
        "stdout, and with --json a JSON and a picture beside it.",
    )
    parser.add_argument(
        "--players",
        default=",".join(default_roster()),
        metavar="A,B,...",
        help=f"the roster, comma-separated (default {','.join(default_roster())}): {policy_spec_help()}, or "
        f"{OPPONENT_NAME} (OpenSpiel's simple bot, in OpenSpiel's gin_rummy)",
    )
    parser.add_argument("--hands", type=int, default=DEFAULT_HANDS,
                        help=f"deals a pair plays, each twice (default {DEFAULT_HANDS})")
    parser.add_argument("--search-hands", type=int, default=None, metavar="N",
                        help=f"deals for a pair with a search player (default: --hands / {SEARCH_SHARE})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and random players (default 0)")
    parser.add_argument("--exploit-hands", type=int, default=None, metavar="N",
                        help="deals of each player's exploitability bound (gin3 exploit; default: --search-hands; "
                        "0: none)")
    parser.add_argument("--exploit-search", default=DEFAULT_SEARCH, metavar="OPTIONS",
                        help=f"the exploiting searcher's options (default {DEFAULT_SEARCH!r})")
    add_rules_flag(parser)
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON to PATH (e.g. results/ladder.json)")
    parser.add_argument("--plot", metavar="PNG",
                        help="write the picture to PNG (default: beside --json, same name with .png)")
    parser.add_argument("--no-plot", action="store_true", help="no picture")
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="progress on stderr: a line after each pair and the evaluation's own progress (default: on)",
    )
    add_trust_flag(parser)
    return parser


def plot_path_of(args: argparse.Namespace) -> str | None:
    if args.no_plot:
        return None
    if args.plot is not None:
        return str(args.plot)
    return None if args.json is None else str(Path(args.json).with_suffix(".png"))


def cli_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``gin3 ladder``; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    trust_from_args(args)
    players = [s.strip() for s in args.players.split(",")]
    plot = plot_path_of(args)
    missing = left_out(players)
    try:
        rules = parse_rules(args.rules)
    except ValueError as exc:
        parser.error(str(exc))
    if rules is not None and rules != Rules() and OPPONENT_NAME in players:  # its game's rules are fixed
        missing[OPPONENT_NAME] = ""
    if missing and len(players) - len(missing) >= 2:  # play the others; with fewer, check_roster says why not
        for spec, module in missing.items():
            why = (f"{module} is not installed ({install_hint(module)})" if module else
                   "it plays OpenSpiel's gin_rummy, whose rules --rules does not change")
            print(f"gin3 ladder: leaving out {spec}: {why}", file=sys.stderr)
        players = [p for p in players if p not in missing]

    plan: list[tuple[str, str, int]] = []
    started = time.monotonic()

    def announce(pairs: list[tuple[str, str, int]]) -> None:
        plan[:] = pairs
        if args.progress:
            print(f"[ladder] {len(pairs)} pairs, {sum(d for _, _, d in pairs):,} deals in all (each played twice): "
                  + ", ".join(f"{a} vs {b} ({d:,})" for a, b, d in pairs), file=sys.stderr, flush=True)

    def report(pair: LadderPair, done: int, total: int) -> None:
        if args.progress:
            played = sum(d for _, _, d in plan[:done])
            left = sum(d for _, _, d in plan[done:])
            seconds = (time.monotonic() - started) * left / played if played else 0.0
            eta = "" if not left else (f"; about {seconds:.0f} s left" if seconds < 120 else
                                       f"; about {seconds / 60:.0f} min left")
            print(f"[ladder] {done}/{total}: {pair.a} vs {pair.b}: {pair.report.overall} "
                  f"over {pair.deals} deals{eta}", file=sys.stderr, flush=True)

    def work() -> Ladder:
        check_outputs(args.json, plot, players, args.exploit_search)
        exploit_hands = args.exploit_hands
        if exploit_hands is None:
            exploit_hands = args.search_hands if args.search_hands is not None else default_search_hands(args.hands)
        check_exploit_search(args.exploit_search)
        return run_ladder(players, args.hands, args.seed, args.search_hands, args.progress, report, announce,
                          exploit_hands, args.exploit_search, rules)

    ladder = run_command("gin3 ladder", work)
    if isinstance(ladder, int):
        return ladder
    print(ladder.to_text(), flush=True)
    try:
        if args.json:
            path = Path(args.json)
            path.parent.mkdir(parents=True, exist_ok=True)
            save_json(path, ladder.to_dict())
            print(f"results written to {path}")
        if plot is not None:
            Path(plot).parent.mkdir(parents=True, exist_ok=True)
            plot_ladder(ladder, plot)
            print(f"picture written to {plot}")
    except OSError as exc:  # checked before the play; a disk that fills or a folder removed since
        print(f"gin3 ladder: error: cannot write {exc.filename or 'the results'} ({exc.strerror or exc}); "
              "the results are above", file=sys.stderr)
        return 1
    return 0
