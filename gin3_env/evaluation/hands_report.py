"""The report of :func:`gin3_env.evaluation.evaluate_hands` (the scalar and the batched loop both fill it)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .stats import MeanCI, mean_ci, signed, too_few_note

OUTCOMES = ("gin", "knock", "undercut")
# The text report's notes on keys that do not say who did what to whom (a_undercut: A scored by undercutting).
OUTCOME_NOTES = {"a_undercut": " (B knocked, A undercut)", "b_undercut": " (A knocked, B undercut)"}


@dataclass
class HandsReport:
    """A's results over ``n_deals`` duplicate deals (``2 * n_deals`` hands)."""

    policy_a: str
    policy_b: str
    n_deals: int
    seed: int
    rules: dict[str, Any]
    overall: MeanCI  # A's points per hand; CI from the pair means
    as_team: MeanCI
    as_box: MeanCI
    wins: dict[str, int]  # hands won by "a", by "b", and "none" (dead or truncated)
    outcomes: dict[str, int]  # "a_gin", "a_knock", "a_undercut" (A scored so), "b_...", "dead", ...
    mean_turns: float
    seconds: float
    seat_adjusted: tuple[MeanCI, MeanCI] | None = None  # A minus B in the same seat (team, box)
    kind: str = field(default="hands")
    title: str = field(default="Hands")
    role_names: tuple[str, str] = field(default=("team", "box"))

    @classmethod
    def of_deals(
        cls,
        names: tuple[str, str],
        seed: int,
        rules: dict[str, Any],
        team_pts: Sequence[float],
        box_pts: Sequence[float],
        base_team: Sequence[float] | None,
        counter: Counter[str],
        turns: int,
        start: float,
    ) -> HandsReport:
        """The report of deals played: A's points per deal as the team and as the box, B's as the
        team on the same deal against itself (``seat_baseline``, else None), the outcome counts
        (``"a_gin"``, ..., ``"dead"``), the turns of A's hands and the ``perf_counter`` at the start."""
        n = len(team_pts)
        seat_adjusted = None
        if base_team is not None:  # B's box points on the deal are minus its team points
            seat_adjusted = (
                mean_ci([a - b for a, b in zip(team_pts, base_team, strict=True)]),
                mean_ci([a + b for a, b in zip(box_pts, base_team, strict=True)]),
            )
        keys = [f"{side}_{o}" for side in "ab" for o in OUTCOMES] + ["dead", "truncated"]
        return cls(
            policy_a=names[0],
            policy_b=names[1],
            n_deals=n,
            seed=seed,
            rules=rules,
            overall=mean_ci([(t + b) / 2 for t, b in zip(team_pts, box_pts, strict=True)]),
            as_team=mean_ci(list(team_pts)),
            as_box=mean_ci(list(box_pts)),
            seat_adjusted=seat_adjusted,
            wins={
                "a": sum(counter[f"a_{o}"] for o in OUTCOMES),
                "b": sum(counter[f"b_{o}"] for o in OUTCOMES),
                "none": counter["dead"] + counter["truncated"],
            },
            outcomes={k: counter[k] for k in keys},
            mean_turns=turns / (2 * n),
            seconds=time.perf_counter() - start,
        )

    @property
    def n_hands(self) -> int:
        return 2 * self.n_deals

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "policy_a": self.policy_a,
            "policy_b": self.policy_b,
            "n_deals": self.n_deals,
            "n_hands": self.n_hands,
            "seed": self.seed,
            "rules": dict(self.rules),
            "points_per_hand": self.overall.to_dict(),
            "as_team": self.as_team.to_dict(),
            "as_box": self.as_box.to_dict(),
            "seat_adjusted": None
            if self.seat_adjusted is None
            else {"team": self.seat_adjusted[0].to_dict(), "box": self.seat_adjusted[1].to_dict()},
            "wins": dict(self.wins),
            "outcomes": dict(self.outcomes),
            "mean_turns": self.mean_turns,
            "seconds": self.seconds,
        }

    def to_text(self) -> str:
        a, b = self.policy_a, self.policy_b
        rows = [
            ("overall (pair means)", self.overall),
            (f"{a} as {self.role_names[0]}", self.as_team),
            (f"{a} as {self.role_names[1]}", self.as_box),
        ]
        if self.seat_adjusted is not None:
            rows += [
                (f"{a} minus {b} as {self.role_names[0]}", self.seat_adjusted[0]),
                (f"{a} minus {b} as {self.role_names[1]}", self.seat_adjusted[1]),
            ]
        width = max(len(r[0]) for r in rows)
        lines = [
            f"{self.title}: {a} (A) vs {b} (B), {self.n_deals} deals x 2 seats = {self.n_hands} hands,"
            f" seed {self.seed}",
            f"{'A points per hand':<{width}}  {'mean':>7}  {'95% CI':>18}  {'n':>6}",
        ]
        for name, ci in rows:
            lines.append(
                f"{name:<{width}}  {signed(ci.mean):>7}  {ci.interval(width=7)}  {ci.n:>6}"
            )
        if not all(ci.stated for _, ci in rows):
            lines.append(too_few_note(self.n_deals))
        w = self.wins
        lines.append(f"hands won: A {w['a']}, B {w['b']}, none {w['none']}; mean turns {self.mean_turns:.1f}")
        lines.append("outcomes: " + ", ".join(f"{k} {v}{OUTCOME_NOTES.get(k, '')}" for k, v in self.outcomes.items()))
        lines.append(f"({self.seconds:.1f} s)")
        return "\n".join(lines)
