"""Shared test helpers: stacked decks, moves in words, state snapshots, brute-force melds; the
Hypothesis profiles.

Other test modules may import these (``from conftest import stacked_deck``) as pytest puts
``tests/`` on the import path.

Hypothesis runs the profile ``repeatable`` by default: a fixed seed (``derandomize``) and no
example database, so ``pytest -q`` checks the same examples on every machine and every run, and
examples a clone saved in ``.hypothesis/`` cannot turn it red. ``GIN3_HYPOTHESIS=wide`` selects
``wide``: a fresh random search on each run, ten times the examples (:func:`examples`), failures
kept in ``.hypothesis/`` and replayed first next time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations
from typing import Any

import numpy as np
from hypothesis import settings

from gin3_env.engine.actions import DRAW_STOCK, PASS, TAKE_DISCARD, discard_action, knock_action
from gin3_env.engine.cards import CARD_POINTS, NUM_CARDS, card_str, parse_card, parse_cards
from gin3_env.engine.hand import HandState
from gin3_env.engine.rules import Rules

CardsLike = str | Iterable[str | int]

# The cold-compile note (gin3_env.kernels.jit) is said on stderr on a terminal or not: on a fresh install the
# first test of a process to compile would see it in a command's stderr. The tests are silent about it
# (their processes inherit this); tests/test_numba_cache.py sets it for its own.
os.environ.setdefault("GIN3_COMPILE_NOTE", "0")

HYPOTHESIS_PROFILE = os.environ.get("GIN3_HYPOTHESIS", "repeatable")
WIDE_FACTOR = 10
settings.register_profile("repeatable", derandomize=True, database=None, print_blob=True)
settings.register_profile("wide", derandomize=False, max_examples=100 * WIDE_FACTOR, print_blob=True)
if HYPOTHESIS_PROFILE not in ("repeatable", "wide"):
    raise ValueError(f"GIN3_HYPOTHESIS must be 'repeatable' or 'wide', got {HYPOTHESIS_PROFILE!r}")
settings.load_profile(HYPOTHESIS_PROFILE)


SLOW_ENV = "GIN3_SLOW"  # "ci": the slow tests at the smaller sizes .ci/run gives them; unset: their full sizes
if os.environ.get(SLOW_ENV, "full") not in ("full", "ci"):
    raise ValueError(f"{SLOW_ENV} must be 'full' or 'ci', got {os.environ[SLOW_ENV]!r}")


def slow_size(full: int, ci: int) -> int:
    """A slow test's size: ``full``, or ``ci`` under ``GIN3_SLOW=ci`` (.ci/run, to fit its 30 minutes)."""
    return ci if os.environ.get(SLOW_ENV) == "ci" else full


def examples(n: int) -> int:
    """``n`` examples, or ten times as many under the ``wide`` profile."""
    return n * WIDE_FACTOR if HYPOTHESIS_PROFILE == "wide" else n


def _cards(cards: CardsLike) -> list[int]:
    return parse_cards(cards)


def stacked_deck(team: CardsLike, box: CardsLike, upcard: str | int, stock: CardsLike = ()) -> list[int]:
    """A 52-card deck order that deals these hands (§4.3).

    ``team`` and ``box`` are the 10 cards of the captain and the box, ``upcard`` the
    first discard, ``stock`` the first stock cards in drawing order (``stock[0]`` is
    drawn first). The rest of the stock is every other card, ascending.
    """
    team_cards, box_cards = _cards(team), _cards(box)
    up = parse_card(upcard) if isinstance(upcard, str) else int(upcard)
    first = _cards(stock)
    if len(team_cards) != 10 or len(box_cards) != 10:
        raise ValueError(f"hands must hold 10 cards, got {len(team_cards)} and {len(box_cards)}")
    given = [*team_cards, *box_cards, up, *first]
    twice = sorted({x for x in given if given.count(x) > 1})
    if twice:
        raise ValueError(f"cards given twice: {' '.join(card_str(x) for x in twice)}")
    deck: list[int] = []
    for t, b in zip(team_cards, box_cards, strict=True):
        deck += [t, b]
    deck.append(up)
    deck += first
    deck += [c for c in range(NUM_CARDS) if c not in set(given)]
    assert sorted(deck) == list(range(NUM_CARDS))
    return deck


def deal(
    team: CardsLike,
    box: CardsLike,
    upcard: str | int,
    stock: CardsLike = (),
    rules: Rules | None = None,
    **options: Any,
) -> HandState:
    """Deal a stacked hand; keyword options build the rules (``knock_limit=0``...)."""
    if options:
        rules = (rules or Rules()).replace(**options)
    return HandState.deal(rules, deck=stacked_deck(team, box, upcard, stock))


def action(move: str | int) -> int:
    """``"draw"``, ``"take"``, ``"pass"``, ``"7S"`` / ``"discard 7S"``, ``"knock 7S"`` -> action id."""
    if isinstance(move, int):
        return move
    words = move.lower().split()
    if words == ["draw"]:
        return DRAW_STOCK
    if words == ["take"]:
        return TAKE_DISCARD
    if words == ["pass"]:
        return PASS
    if len(words) == 2 and words[0] == "knock":
        return knock_action(parse_card(words[1]))
    if len(words) == 2 and words[0] == "discard":
        return discard_action(parse_card(words[1]))
    if len(words) == 1:
        return discard_action(parse_card(words[0]))
    raise ValueError(f"not a move: {move!r}")


def play(state: HandState, *moves: str | int) -> HandState:
    """Apply moves in words or ids, in order; returns the state."""
    for move in moves:
        state.apply(action(move))
    return state


def snapshot(state: HandState) -> dict[str, Any]:
    """Every field of a hand that an action may change, as plain values."""
    return {
        "log": state.log(),
        "hands": list(state.hands),
        "stock": list(state.stock),
        "discards": list(state.discards),
        "phase": state.phase,
        "player": state.player,
        "turns": state.turns,
        "stock_only": state.stock_only,
        "taken": state.taken,
        "known": list(state.known),
        "declined": list(state.declined),
        "result": state.result,
        "legal": list(state.legal_actions()),
    }


def mask(cards: CardsLike) -> int:
    out = 0
    for c in _cards(cards):
        out |= 1 << c
    return out


# ------------------------------------------------------------ brute force
def all_melds_in(cards: Sequence[int]) -> list[frozenset[int]]:
    """Every set (3 or 4 of a rank) and run (3+ consecutive ranks of a suit, Ace low) in ``cards``."""
    held = set(cards)
    melds: list[frozenset[int]] = []
    for rank in range(13):
        same = [s * 13 + rank for s in range(4) if s * 13 + rank in held]
        for size in (3, 4):
            melds += [frozenset(c) for c in combinations(same, size)]
    for suit in range(4):
        for lo in range(13):
            for hi in range(lo + 2, 13):
                run = [suit * 13 + r for r in range(lo, hi + 1)]
                if all(c in held for c in run):
                    melds.append(frozenset(run))
    return melds


def is_valid_meld(cards: Iterable[int]) -> bool:
    """Independent meld check: 3-4 cards of one rank, or 3+ consecutive ranks in one suit."""
    cs = sorted(cards)
    if len(cs) < 3 or len(set(cs)) != len(cs):
        return False
    ranks = [c % 13 for c in cs]
    suits = [c // 13 for c in cs]
    if len(set(ranks)) == 1:
        return len(cs) <= 4
    return len(set(suits)) == 1 and ranks == list(range(ranks[0], ranks[0] + len(cs)))


def brute_deadwood(cards: Iterable[int]) -> int:
    """Minimum deadwood by trying every collection of disjoint melds (memoised)."""
    hand = frozenset(cards)
    melds = all_melds_in(sorted(hand))

    @cache
    def best(left: frozenset[int]) -> int:
        value = sum(CARD_POINTS[c] for c in left)
        for m in melds:
            if m <= left:
                value = min(value, best(left - m))
        return value

    return best(hand)


def rng_for(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def rows_of_play(hands: Any, player: Any, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every live row with a legal move over up to ``steps`` moves of ``player`` (a
    batched player) on the reset batched ``hands`` (a :class:`~gin3_env.vector.VectorHands`)."""
    from gin3_env.kernels.hand_kernels import OVER  # the compiled core: imported here, not with the tests

    obs, masks = [], []
    for _ in range(steps):
        live = np.flatnonzero(hands.phase != OVER)
        live = live[hands.mask_view[live].any(axis=1)]
        if not len(live):
            break
        o, m = hands.observe_rows(live), np.ascontiguousarray(hands.mask_view[live])
        obs.append(o)
        masks.append(m)
        hands.apply(live, player.act(o, m))
    return np.concatenate(obs), np.concatenate(masks)


# ------------------------------------------------------------ numba, once
WARM_ENV = "GIN3_WARM_KERNELS"  # "0": leave the kernels to the tests that use them


def pytest_configure(config: Any) -> None:
    """In the xdist controller, before the workers start: compile the numba kernels the suite uses into
    numba's cache (:mod:`kernel_warmup`, two processes at once), so that the workers load them instead of
    each compiling them. Not in a worker, nor without workers (``-n 0``: one process compiles once anyway)."""
    if hasattr(config, "workerinput") or os.environ.get(WARM_ENV) == "0":
        return
    if not getattr(config.option, "numprocesses", None) or config.option.collectonly:
        return
    import sys

    from kernel_warmup import warm

    for line in warm():
        print(line, file=sys.stderr)


def as_from_a_shell() -> None:
    """``preexec_fn`` of a child a test sends Ctrl-C: the signal handling a shell starts a command with (SIGINT
    and SIGTERM at their defaults, no signal blocked). A child inherits an ignored or blocked SIGINT (a suite run
    as a background job, say), and Python then leaves it so: the Ctrl-C would do nothing."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])

