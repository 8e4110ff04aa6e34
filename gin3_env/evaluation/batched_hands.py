""":func:`~gin3_env.evaluation.evaluate_hands` played by the batched core.

Used when both policies have a deterministic batched form (``HeuristicPolicy`` ->
:class:`~gin3_env.vector.HeuristicBatch`, a ``GatedPolicy`` -> :class:`~gin3_env.vector.GatedBatch`,
a ``NetPolicy`` -> :class:`~gin3_env.vector.NetBatch`,
a deterministic saved model -> :class:`~gin3_env.vector.ModelBatch`): the same decks (deck ``i`` is the ``i``-th
``rng.permutation(52)`` of ``default_rng(seed)``), the same seats, the same report, field for
field, as the scalar loop (for a model: up to the float rounding of a batched forward). Random
policies keep the scalar loop by default, whose random draws the batched player would not
repeat; asked for explicitly (``batched=True``), a ``RandomPolicy`` plays batched too, as a
:class:`~gin3_env.vector.RandomBatch` drawing from the policy's own generator: uniform over
the legal actions as before, other draws (training's evaluations play this way).
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import numpy as np

from ..engine.hand import BOX, TEAM
from ..engine.rules import Rules

AUTO_MIN_DEALS = 50  # below this, the scalar loop is quicker than loading the kernels


def batched_form(policy: Any, random_ok: bool = False, rules: Rules | None = None) -> Any:
    """The deterministic batched form of ``policy``, or None; with ``random_ok`` a
    ``RandomPolicy``'s batched form too (same distribution, other draws than the scalar loop).
    With ``rules``, a policy built for other rules is refused in one line (the batched form plays
    the rules its policy was built for: :func:`~gin3_env.game.policy.check_plays_rules`).

    The map itself is :func:`gin3_env.vector.players.as_batch`; this leaves out what would not
    play as the scalar loop does: a sampling ``SB3Policy`` and, unless ``random_ok``, a ``RandomPolicy``."""
    if rules is not None:
        from ..game.policy import check_plays_rules

        check_plays_rules(policy, rules)
    from ..policies.loading import SB3Policy
    from ..policies.random_policy import RandomPolicy
    from ..vector.players import as_batch

    if isinstance(policy, str) or (isinstance(policy, SB3Policy) and not policy.deterministic):
        return None
    if isinstance(policy, RandomPolicy) and not random_ok:
        return None
    return as_batch(policy)


def play_deals(
    a: Any, b: Any, decks: np.ndarray, modes: int, rules: Rules, num_envs: int = 1024
) -> dict[str, np.ndarray]:
    """Play game ``g`` = deck ``g // modes`` in mode ``g % modes`` (0: A team, B box; 1: B team,
    A box; 2: B against B). Returns per game the team's points, winner, outcome code and turns."""
    from ..vector import VectorHands

    games = len(decks) * modes
    n = min(num_envs, games)
    order = np.repeat(np.asarray(decks), modes, axis=0)
    hands = VectorHands(n, rules=rules)
    hands.reset(decks=order[:n])
    hands.queue_decks(order[n:])
    team_points = np.zeros(games, dtype=np.int64)
    winner = np.full(games, -1, dtype=np.int64)
    outcome = np.zeros(games, dtype=np.int64)
    turns = np.zeros(games, dtype=np.int64)
    live = np.ones(n, dtype=bool)
    dealt = n
    while live.any():
        rows = np.flatnonzero(live)
        game = hands.deal_index[rows]
        mode = game % modes
        player = hands.players_view[rows]
        by_a = ((mode == 0) & (player == TEAM)) | ((mode == 1) & (player == BOX))
        obs = hands.observe_rows(rows)
        masks = hands.mask_view[rows]
        acts = np.empty(len(rows), dtype=np.int64)
        if by_a.any():
            acts[by_a] = a.act(obs[by_a], masks[by_a])
        if (~by_a).any():
            acts[~by_a] = b.act(obs[~by_a], masks[~by_a])
        rewards, ended = hands.apply(rows, acts)
        done = ended != 0
        if done.any():
            d, g = rows[done], game[done]
            team_points[g] = rewards[done, 0]
            winner[g] = hands.winner_view[d]
            outcome[g] = ended[done]
            turns[g] = hands.turns_view[d]
            again = d[: max(0, games - dealt)]
            hands.redeal(again)
            dealt += len(again)
            live[d[len(again) :]] = False
    return {"team_points": team_points, "winner": winner, "outcome": outcome, "turns": turns}


def evaluate_hands_batched(policy_a: Any, policy_b: Any, batch_a: Any, batch_b: Any, n_hands: int, seed: int,
                           rules: Rules, seat_baseline: bool) -> Any:
    from ..game.policy import policy_name
    from ..kernels.hands import OUTCOME_NAMES
    from .hands_report import HandsReport

    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    decks = np.array([rng.permutation(52) for _ in range(int(n_hands))])
    modes = 3 if seat_baseline else 2
    played = play_deals(batch_a, batch_b, decks, modes, rules)
    pts = played["team_points"].reshape(-1, modes).astype(float)
    team_pts, box_pts = pts[:, 0], -pts[:, 1]
    counter: Counter[str] = Counter()
    for mode, a_player in ((0, TEAM), (1, BOX)):
        win = played["winner"].reshape(-1, modes)[:, mode]
        out = played["outcome"].reshape(-1, modes)[:, mode]
        for w, o in zip(win, out, strict=True):
            name = OUTCOME_NAMES[o]
            counter[name if w < 0 else ("a_" if w == a_player else "b_") + name] += 1
    turns = int(played["turns"].reshape(-1, modes)[:, :2].sum())
    base_team = list(pts[:, 2]) if seat_baseline else None
    names = (policy_name(policy_a), policy_name(policy_b))
    team, box = list(team_pts), list(box_pts)
    return HandsReport.of_deals(names, seed, rules.to_dict(), team, box, base_team, counter, turns, start)
