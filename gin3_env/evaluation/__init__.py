"""Play policies against each other with fixed seeds and report with 95% intervals.

- :func:`evaluate_hands`: single hands in the duplicate format (each deal twice,
  seats swapped), A's mean points per hand overall and per role.
- :func:`evaluate_matches`: three-seat matches, A in one seat and B in two;
  A's match win rate (Wilson interval) and mean final totals.
- :func:`evaluate_openspiel_hands` / :func:`evaluate_openspiel_matches`: a policy
  against OpenSpiel's simple gin bot in OpenSpiel's two-player gin.
- :func:`cli_main`: ``gin3 evaluate A B [--hands N] [--matches N] [--seed S]
  [--json PATH] [--vs-openspiel]``.

Every report has ``to_text()`` (a table) and ``to_dict()`` (JSON-able).
"""

from .cli import Evaluation, cli_main
from .hands import evaluate_hands, play_deal
from .hands_report import HandsReport
from .matches import MatchesReport, evaluate_matches, play_seats
from .stats import MeanCI, RateCI, mean_ci, wilson_ci
from .vs_openspiel import evaluate_openspiel_hands, evaluate_openspiel_matches

__all__ = [
    "Evaluation",
    "HandsReport",
    "MatchesReport",
    "MeanCI",
    "RateCI",
    "cli_main",
    "evaluate_hands",
    "evaluate_matches",
    "evaluate_openspiel_hands",
    "evaluate_openspiel_matches",
    "mean_ci",
    "play_deal",
    "play_seats",
    "wilson_ci",
]
