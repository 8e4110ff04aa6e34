"""How good a belief over the opponent's hidden cards is, on heuristic-against-heuristic hands.

:func:`evaluate_belief` plays ``n_deals`` seeded hands with :class:`HeuristicPolicy` in both
seats (the engine directly) and lets a :class:`~gin3_env.policies.belief.HandTracker` follow
each seat from its own observations. At every decision of a seat it reads the belief's chance
of each unseen card being in the opponent's hidden cards and scores it against the truth:

- ``log_loss``: the mean binary log-loss (nats) over the unseen cards of each decision point;
- ``uniform_log_loss``: the same for the uniform belief (hidden / unseen for every card),
  on the same points (the figure 0.577 of ``docs/beating_the_heuristic.md`` is this baseline);
- ``calibration``: predicted chance against observed frequency in ten equal-width bins.

Used by ``tests/test_belief.py`` and ``experiments/belief_report.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.hand import HandState
from ..engine.rules import Rules
from ..observation.decoding import decode
from ..observation.encoding import action_mask, encode
from ..policies.belief import BeliefConfig, HandTracker
from ..policies.heuristic import HeuristicPolicy

BINS = 10


@dataclass
class BeliefReport:
    n_deals: int
    seed: int
    points: int  # decision points scored
    cards: int  # (point, unseen card) pairs scored
    log_loss: float
    uniform_log_loss: float
    bin_mean_p: list[float]
    bin_freq: list[float]
    bin_count: list[int]
    config: dict[str, Any]
    seconds: float

    @property
    def calibration_error(self) -> float:
        """Largest |predicted - observed| over bins holding at least 200 cards."""
        gaps = [abs(p - f) for p, f, n in zip(self.bin_mean_p, self.bin_freq, self.bin_count, strict=True) if n >= 200]
        return max(gaps) if gaps else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "belief",
            "n_deals": self.n_deals,
            "seed": self.seed,
            "decision_points": self.points,
            "cards_scored": self.cards,
            "log_loss": self.log_loss,
            "uniform_log_loss": self.uniform_log_loss,
            "calibration": {"mean_p": self.bin_mean_p, "frequency": self.bin_freq, "count": self.bin_count},
            "calibration_error": self.calibration_error,
            "config": self.config,
            "seconds": self.seconds,
        }


def _bce(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def evaluate_belief(n_deals: int, seed: int = 0, config: BeliefConfig | None = None,
                    rules: Rules | None = None) -> BeliefReport:
    """Score the particle belief on ``n_deals`` heuristic-vs-heuristic hands (see the module doc)."""
    if n_deals < 1:
        raise ValueError(f"n_deals must be >= 1, got {n_deals}")
    config = config or BeliefConfig()
    rules = rules or Rules()
    rng = np.random.default_rng(seed)
    policy = HeuristicPolicy()
    losses: list[float] = []
    uniform: list[float] = []
    preds: list[np.ndarray] = []
    truths: list[np.ndarray] = []
    start = time.perf_counter()
    for _ in range(n_deals):
        deck = [int(c) for c in rng.permutation(52)]
        state = HandState.deal(rules, deck=deck)
        trackers = [HandTracker(rules, config, np.random.default_rng(rng.integers(1 << 31))) for _ in range(2)]
        while not state.is_over:
            p = state.player
            obs = encode(state.view(p))
            mask = action_mask(state.view(p))
            tracker = trackers[p]
            view = tracker.observe(decode(obs, rules))
            unseen = np.array([c for c in range(52) if view.unseen >> c & 1])
            hidden = state.hands[1 - p] & ~state.known[1 - p]
            y = np.array([hidden >> int(c) & 1 for c in unseen], dtype=float)
            prob = tracker.belief.card_probabilities()[unseen]
            base = np.full(len(unseen), view.opponent_hidden / len(unseen))
            losses.append(float(_bce(prob, y).mean()))
            uniform.append(float(_bce(base, y).mean()))
            preds.append(prob)
            truths.append(y)
            action = policy.act({"observation": obs, "action_mask": mask})
            tracker.record(action)
            state.apply(action)
    pr = np.concatenate(preds)
    tr = np.concatenate(truths)
    idx = np.minimum((pr * BINS).astype(int), BINS - 1)
    count = np.bincount(idx, minlength=BINS)
    mean_p = np.bincount(idx, weights=pr, minlength=BINS) / np.maximum(count, 1)
    freq = np.bincount(idx, weights=tr, minlength=BINS) / np.maximum(count, 1)
    cfg = {"n_particles": config.n_particles, "tau": config.tau, "eps_take": config.eps_take,
           "eps_knock": config.eps_knock}
    return BeliefReport(
        n_deals=n_deals, seed=seed, points=len(losses), cards=len(pr), log_loss=float(np.mean(losses)),
        uniform_log_loss=float(np.mean(uniform)), bin_mean_p=[float(x) for x in mean_p],
        bin_freq=[float(x) for x in freq], bin_count=[int(x) for x in count], config=cfg,
        seconds=time.perf_counter() - start,
    )
