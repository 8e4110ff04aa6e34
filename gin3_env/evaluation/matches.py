"""Whole three-seat matches played with :class:`~gin3_env.engine.match.MatchState`.

Policy A holds one seat and policy B the other two; a seat's policy acts
whenever its seat is the captain (for the team) or the box, from the match
observation (:func:`~gin3_env.observation.encode_match`), exactly as the
match environment builds it. Matches come in triples: matches ``3k``, ``3k+1``
and ``3k+2`` share one random stream (the role draw and the decks, as long as
play runs alike) and put A in seat 0, 1 and 2 in turn, so A meets every
starting role on the same cards. With equal players A wins a third of the
matches; the report gives A's win rate with a 95% Wilson interval and the
mean final totals.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.match import NUM_SEATS, MatchState
from ..engine.rules import Rules
from ..game.driver import run_match
from ..game.policy import Policy, check_plays_rules, policy_name
from .stats import MeanCI, RateCI, mean_ci, signed, too_few_note, wilson_ci
from .util import progress_bar

DEFAULT_MAX_HANDS = 1000


def play_seats(
    seat_policies: list[Policy],
    rng: np.random.Generator,
    rules: Rules | None = None,
    max_hands: int = DEFAULT_MAX_HANDS,
) -> MatchState:
    """Play one match to its end (or ``max_hands`` hands: then ``winner`` stays None)."""
    if len(seat_policies) != NUM_SEATS:
        raise ValueError(f"a match needs {NUM_SEATS} seat policies, got {len(seat_policies)}")
    match = MatchState.start(rules, rng=rng)
    run_match(match, seat_policies, max_hands=max_hands)
    return match


@dataclass
class MatchesReport:
    """A's results over ``n_matches`` matches (A in one seat, B in two)."""

    policy_a: str
    policy_b: str
    n_matches: int
    seed: int
    rules: dict[str, Any]
    win_rate: RateCI  # A's match wins; 1/3 for equal players
    a_score: MeanCI  # A's final total
    b_score: MeanCI  # mean final total of B's two seats
    mean_hands: float
    unfinished: int  # matches stopped at the hand cap (no winner)
    seconds: float
    kind: str = field(default="matches")
    even_rate: float = field(default=1 / 3)  # A's win rate if both policies were equal
    title: str = field(default="Matches")
    setup: str = field(default="A holds one seat, B the other two")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "policy_a": self.policy_a,
            "policy_b": self.policy_b,
            "n_matches": self.n_matches,
            "seed": self.seed,
            "rules": dict(self.rules),
            "win_rate": self.win_rate.to_dict(),
            "a_final_score": self.a_score.to_dict(),
            "b_final_score": self.b_score.to_dict(),
            "even_rate": self.even_rate,
            "mean_hands": self.mean_hands,
            "unfinished": self.unfinished,
            "seconds": self.seconds,
        }

    def to_text(self) -> str:
        a, b = self.policy_a, self.policy_b
        w = self.win_rate
        return "\n".join(
            [
                f"{self.title}: {a} (A) vs {b} (B), {self.n_matches} matches, seed {self.seed}; {self.setup}",
                f"{'':<22}  {'value':>7}  {'95% CI':>18}",
                f"{'A match win rate':<22}  {w.rate:>7.3f}  [{w.low:7.3f}, {w.high:7.3f}]"
                f"   ({w.successes}/{w.n}; {self.even_rate:.3f} = even)",
                f"{'A final total':<22}  {unsigned(self.a_score.mean):>7}  {self.a_score.interval(unsigned, 7)}",
                f"{'B final total':<22}  {unsigned(self.b_score.mean):>7}  {self.b_score.interval(unsigned, 7)}",
                *([] if self.a_score.stated else [too_few_note(self.n_matches, "matches")]),
                f"mean hands per match {self.mean_hands:.1f}; unfinished {self.unfinished}",
                f"({self.seconds:.1f} s)",
            ]
        )


def unsigned(value: float) -> str:
    """A total with one decimal, ``-0.0`` shown as ``0.0``."""
    return signed(value, 1).lstrip("+")


def evaluate_matches(
    policy_a: Policy,
    policy_b: Policy,
    n_matches: int,
    seed: int = 0,
    rules: Rules | None = None,
    progress: bool = False,
    max_hands: int = DEFAULT_MAX_HANDS,
) -> MatchesReport:
    """Play ``n_matches`` matches, A's seat cycling 0, 1, 2 over triples sharing a seed. Both players must
    have been built for ``rules`` (None: the rule book's; :func:`~gin3_env.game.policy.check_plays_rules`)."""
    if isinstance(n_matches, bool) or not isinstance(n_matches, int | np.integer) or n_matches < 1:
        raise ValueError(f"n_matches must be an int >= 1, got {n_matches!r}")
    rules = rules or Rules()
    check_plays_rules(policy_a, rules)
    check_plays_rules(policy_b, rules)
    wins = 0
    unfinished = 0
    a_scores: list[float] = []
    b_scores: list[float] = []
    hands = 0
    start = time.perf_counter()
    for i in progress_bar(range(int(n_matches)), progress, "matches"):
        a_seat = i % NUM_SEATS
        seats = [policy_a if s == a_seat else policy_b for s in range(NUM_SEATS)]
        match = play_seats(seats, np.random.default_rng([seed, i // NUM_SEATS]), rules, max_hands)
        if match.winner is None:
            unfinished += 1
        wins += match.winner == a_seat
        a_scores.append(match.scores[a_seat])
        b_scores.append(sum(match.scores[s] for s in range(NUM_SEATS) if s != a_seat) / 2)
        hands += len(match.history)
    return MatchesReport(
        policy_a=policy_name(policy_a),
        policy_b=policy_name(policy_b),
        n_matches=int(n_matches),
        seed=seed,
        rules=rules.to_dict(),
        win_rate=wilson_ci(wins, int(n_matches)),
        a_score=mean_ci(a_scores, lower=0.0),  # totals are never negative: the interval stops at 0
        b_score=mean_ci(b_scores, lower=0.0),
        mean_hands=hands / n_matches,
        unfinished=unfinished,
        seconds=time.perf_counter() - start,
    )
