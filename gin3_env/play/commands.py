"""``gin3 play`` and ``gin3 replay``: from parsed arguments to the loops of :mod:`gin3_env.play`."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any

import numpy as np

from ..engine.cards import card_str
from ..engine.hand import BOX, TEAM, HandState
from ..engine.match import MatchState, Roles, draw_roles
from ..engine.rules import Rules
from ..files import check_output_file, read_json, save_json
from ..game.policy import Policy
from ..signals import exit_code
from .console import Console, Quit, play_hand, play_match
from .replay import MAX_LOG_BYTES, load_log, replay_log

GOODBYE = "Goodbye."
PERSON = "you"  # how a saved log names the person who played


def use_color(no_color: bool, stream: Any = None) -> bool:
    """Colours only on a terminal, without NO_COLOR (https://no-color.org) or --no-color."""
    stream = stream if stream is not None else sys.stdout
    if no_color or os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def use_symbols(ascii_only: bool, stream: Any = None) -> bool:
    """Suit symbols unless --ascii or the output cannot encode them."""
    if ascii_only:
        return False
    stream = stream if stream is not None else sys.stdout
    try:
        "♣♦♥♠".encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def read_decks(deck: str | None, deck_json: str | None) -> list[list[int]]:
    """The stacked decks given on the command line (maybe none); ``ValueError`` if malformed."""
    from ..engine.cards import parse_cards
    from ..engine.hand import check_deck

    def one(item: Any) -> list[int]:
        if isinstance(item, str):
            return check_deck(parse_cards(item))
        if isinstance(item, list):
            return check_deck(parse_cards(item) if all(isinstance(c, str) for c in item) else item)
        raise ValueError(f"a deck must be a list of 52 cards or a string of them, got {item!r:.60}")

    if deck is not None:
        return [one(deck)]
    if deck_json is None:
        return []
    data = read_json(deck_json, "--deck-json", MAX_LOG_BYTES)  # a hand log serves as a deck file
    if isinstance(data, dict) and "decks" in data:
        return [one(d) for d in data["decks"]]
    if isinstance(data, dict) and "deck" in data:
        return [one(data["deck"])]
    return [one(data)]


def load_opponent(spec: str, seed: int | None, rules: Rules | None = None) -> Policy:
    """A policy by name or path through ``gin3_env.policies.load_policy``, built for the game's ``rules``
    (None: the rule book's; ``random`` is seeded)."""
    try:
        from ..policies import load_policy
    except ImportError as exc:
        raise ValueError(f"the policies package (gin3_env.policies) is not available: {exc}") from None
    try:
        return load_policy(spec, seed=seed) if spec == "random" else load_policy(spec, rules=rules)
    except (OSError, ImportError) as exc:  # a missing file too: FileNotFoundError is an OSError
        raise ValueError(f"cannot load the opponent {spec!r}: {exc}") from None


def check_opponent(spec: str) -> None:
    """Refuse an unusable ``--opponent`` at once (:func:`~gin3_env.policies.check_policy_spec`), as a ``ValueError``."""
    from ..policies import check_policy_spec

    try:
        check_policy_spec(spec)
    except (OSError, ValueError) as exc:
        raise ValueError(f"--opponent {spec}: {exc}") from None


def _console(args: argparse.Namespace) -> Console:
    piped = not sys.stdin.isatty()
    return Console(symbols=use_symbols(args.ascii), color=use_color(args.no_color), echo=piped)


def _rules(args: argparse.Namespace) -> Rules:
    from ..evaluation.cli import parse_rules  # the same --rules JSON as gin3 evaluate's

    given = parse_rules(getattr(args, "rules", None))
    options: dict[str, Any] = given.to_dict() if given is not None else {}
    if args.target_score is not None:
        options["target_score"] = args.target_score
    if args.knock_limit is not None:
        options["knock_limit"] = args.knock_limit
    return Rules.from_dict(options)


def _seat_names(person: int) -> list[str]:
    return ["You" if s == person else f"Player {s}" for s in range(3)]


def role_draw_text(roles: Roles, draws: list[list[int]], seat_names: list[str], symbols: bool) -> list[str]:
    """What the draw for roles shows: every round (ties draw again, and say so) and which card gave which role."""
    lines: list[str] = []
    last: dict[int, int] = {}
    for i, round_ in enumerate(draws):
        pairs = list(zip(round_[::2], round_[1::2], strict=True))
        cards = ", ".join(f"{seat_names[s]} {card_str(c, symbols)}" for s, c in pairs)
        if i == 0:
            lines.append(f"Draw for roles (highest rank is the box, next the captain; suits do not count): {cards}")
        else:
            tied = " and ".join(seat_names[s] for s, _ in pairs)
            lines.append(f"Tie: {tied} draw again: {cards}")
        last.update(pairs)
    if last:
        def who(seat: int) -> str:
            return f"{seat_names[seat]} ({card_str(last[seat], symbols)})"

        lines.append(f"So {who(roles.box)} in the box, {who(roles.captain)} captain, {who(roles.sitter)} sitter.")
    return lines


def _start_match(args: argparse.Namespace, rules: Rules, decks: list[list[int]], io: Console) -> MatchState:
    rng = np.random.default_rng(args.seed)
    person = 0
    seat_names = _seat_names(person)
    if args.role is None:
        roles, draws = draw_roles(rng)
        for line in role_draw_text(roles, draws, seat_names, io.symbols):
            io.say(line)
    else:
        others = [1, 2]
        if args.role == "team":
            roles = Roles(box=others[0], captain=person, sitter=others[1])
        elif args.role == "box":
            roles = Roles(box=person, captain=others[0], sitter=others[1])
        else:
            roles = Roles(box=others[0], captain=others[1], sitter=person)
    return MatchState.start(rules, rng=rng, roles=roles, decks=decks)


def run_play(args: argparse.Namespace) -> int:
    """``gin3 play``: returns the exit code (0 also when the person quits; 130 on Ctrl-C)."""
    io = _console(args)
    rules = _rules(args)
    decks = read_decks(args.deck, args.deck_json)
    if not args.match and args.role == "sitter":
        raise ValueError("--role sitter needs --match (a single hand has only the captain and the box)")
    check_opponent(args.opponent)  # before anything is shown or loaded
    if args.save_log:
        from ..policies import policy_spec_files

        inputs = (*([args.deck_json] if args.deck_json else []), *policy_spec_files(args.opponent))
        check_output_file(args.save_log, "--save-log", inputs=inputs)  # before the game; never an input
    base_seed = args.seed
    log: dict[str, Any] | None = None
    code = 0
    try:
        if args.match:
            match = _start_match(args, rules, decks, io)
            policies = {
                seat: load_opponent(args.opponent, None if base_seed is None else base_seed + seat, rules)
                for seat in (1, 2)
            }
            try:
                play_match(io, match, 0, policies, seat_names=_seat_names(0))
            finally:
                log = {**match.log(), "players": [PERSON, args.opponent, args.opponent]}
        else:
            person = BOX if args.role == "box" else TEAM
            policy = load_opponent(args.opponent, None if base_seed is None else base_seed + 1, rules)
            rng = np.random.default_rng(base_seed)
            state = HandState.deal(rules, deck=decks[0] if decks else None, rng=rng)
            try:
                play_hand(io, state, person, policy)
            finally:
                players = [PERSON, args.opponent] if person == TEAM else [args.opponent, PERSON]
                log = {**state.log(), "players": players}
    except (Quit, KeyboardInterrupt) as exc:
        io.say("")
        io.say(GOODBYE)
        code = stopped_code(exc)
    finally:
        if log is not None and args.save_log:
            save_json(args.save_log, log, indent=1)
            print(f"Log saved to {args.save_log}", flush=True)
    return code


def run_replay(args: argparse.Namespace) -> int:
    """``gin3 replay FILE [--all] [--video OUT] [--html OUT]``."""
    data = load_log(args.file)
    if getattr(args, "video", None) or getattr(args, "html", None):
        from ..render.export import export_replay

        title = f"gin3 replay {os.path.basename(args.file)}"
        return export_replay(data, video=args.video, html=args.html, fps=args.fps, title=title,
                             inputs=(args.file,))
    io = _console(args)
    code = 0
    try:
        replay_log(io, data, step=not args.all)
    except (Quit, KeyboardInterrupt) as exc:
        io.say("")
        io.say(GOODBYE)
        code = stopped_code(exc)
    sys.stdout.flush()
    return code


def stopped_code(exc: BaseException) -> int:
    """0 when the person quit (``quit``, end of input), 130 on Ctrl-C (as every ``gin3`` command)."""
    if isinstance(exc, KeyboardInterrupt) or (isinstance(exc, Quit) and exc.interrupted):
        return exit_code(signal.SIGINT)
    return 0
