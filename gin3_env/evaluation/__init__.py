"""Evaluation of policies against each other (placeholder init, filled below)."""

from .hands import HandsReport, evaluate_hands, play_hand

__all__ = ["HandsReport", "evaluate_hands", "play_hand"]
