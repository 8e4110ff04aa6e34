"""Logs of a few evaluation games, for ``gin3 replay`` (text, ``--video``, ``--html``).

``gin3 evaluate A B --save-logs DIR`` writes, for the first ``count`` deals of the
evaluation (the same decks as :func:`~gin3_env.evaluation.hands.evaluate_hands`,
from the same seed), one hand log per seating: ``hand_000_a_team.json`` (A the
team, B the box) and ``hand_000_a_box.json``; and, when matches are played, the
first ``count`` matches as :func:`~gin3_env.evaluation.matches.evaluate_matches`
seeds them (``match_000_a_seat0.json``, A in seat 0, then seats 1, 2, ...). Each
log names its players (``"players"``: the specs of the team and the box, or of
seats 0, 1 and 2), which ``gin3 replay``, its video and its viewer page show. The
games are played again after the evaluation, by the same policies loaded afresh:
for policies that draw no random numbers (heuristic, gated) they are the
evaluation's own first games; a random policy may play them differently. Files of
the same name in ``DIR`` are replaced (a link there is replaced by the file, its
target left alone); a ``DIR`` that is a symbolic link is refused, and every log is written through
the folder's descriptor (:class:`~gin3_env.files.HeldFolder`), so a ``DIR`` swapped for a link while
the logs are written gets no more of them: the rest are refused in one line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.match import NUM_SEATS
from ..engine.rules import Rules
from ..files import HeldFolder
from ..game.policy import Policy
from .hands import play_deal
from .matches import play_seats

__all__ = ["save_game_logs"]


def check_log_folder(folder: str | Path) -> Path:
    """The ``--save-logs`` folder as a path, or a ``ValueError``: a symbolic link, or a file, is refused
    (checked before anything is played; :func:`save_game_logs` checks it again)."""
    folder = Path(folder)
    if folder.is_symlink():
        raise ValueError(f"--save-logs {folder}: is a symbolic link; the logs are written only into a real folder")
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--save-logs {folder}: exists and is not a folder")
    return folder


def log_file_names(hands: int, matches: int) -> list[str]:
    """The names of the logs :func:`save_game_logs` writes for ``hands`` deals and ``matches`` matches."""
    return [*(f"hand_{i:03d}_a_{side}.json" for i in range(hands) for side in ("team", "box")),
            *(f"match_{i:03d}_a_seat{i % NUM_SEATS}.json" for i in range(matches))]


def save_game_logs(
    folder: str | Path,
    policy_a: Policy,
    policy_b: Policy,
    *,
    hands: int = 3,
    matches: int = 0,
    seed: int = 0,
    rules: Rules | None = None,
    names: tuple[str, str] = ("A", "B"),
) -> list[Path]:
    """Play and save ``hands`` deals (both seatings) and ``matches`` matches; returns the files written.

    ``names`` are how the logs name A and B (``gin3 evaluate`` gives the specs typed)."""
    for name, value in (("hands", hands), ("matches", matches)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an int >= 0, got {value!r}")
    folder = check_log_folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    held = HeldFolder(check_log_folder(folder), "--save-logs folder")  # every log through its descriptor
    rules = rules or Rules()
    written: list[Path] = []

    def save(name: str, log: dict[str, Any]) -> None:
        held.write(name, (json.dumps(log, indent=1) + "\n").encode("utf-8"))
        written.append(folder / name)

    try:
        _play_and_save(save, policy_a, policy_b, hands, matches, seed, rules, names)
    finally:
        held.close()
    return written


def _play_and_save(save: Callable[[str, dict[str, Any]], None], policy_a: Policy, policy_b: Policy, hands: int,
                   matches: int, seed: int, rules: Rules, names: tuple[str, str]) -> None:
    """Play the games of :func:`save_game_logs` in order, each log handed to ``save(name, log)``."""
    name_a, name_b = (str(n) for n in names)
    rng = np.random.default_rng(seed)  # the decks of evaluate_hands, in order
    for i in range(hands):
        deck = [int(c) for c in rng.permutation(52)]
        a_team = play_deal(policy_a, policy_b, deck, rules).log()
        save(f"hand_{i:03d}_a_team.json", {**a_team, "players": [name_a, name_b]})
        a_box = play_deal(policy_b, policy_a, deck, rules).log()
        save(f"hand_{i:03d}_a_box.json", {**a_box, "players": [name_b, name_a]})
    for i in range(matches):
        a_seat = i % NUM_SEATS
        seats = [policy_a if s == a_seat else policy_b for s in range(NUM_SEATS)]
        match = play_seats(seats, np.random.default_rng([seed, i // NUM_SEATS]), rules)
        players = [name_a if s == a_seat else name_b for s in range(NUM_SEATS)]
        save(f"match_{i:03d}_a_seat{a_seat}.json", {**match.log(), "players": players})
