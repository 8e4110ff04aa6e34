"""Single hands played with the engine directly, in the duplicate format.

Each deal is played twice with the same deck: first policy A as the team
(the captain, who moves first) and B as the box, then A as the box and B as
the team. Luck of the cards cancels within a pair, so the 95% interval of A's
overall mean is computed from the ``n_deals`` pair means (one value per deal:
A's average over its two seats), not from the ``2 * n_deals`` single hands.
Per-role intervals use the ``n_deals`` hands of that role.

The seats are not worth the same: the captain moves first (what each seat is
worth is measured in ``docs/results.md``). With ``seat_baseline=True`` each deal is also played
by B against itself, and A's points in each seat are compared with B's in the
same seat on the same deal against the same opponent (B): "A as box minus B as
box". These paired differences say whether A plays a seat better than B does,
free of the seat's own worth, and with a narrower interval.

Hands are played by the shared driver (:func:`gin3_env.game.driver.run_hand`),
which builds observations from each player's view exactly as the environments do.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..engine.hand import BOX, TEAM, HandState
from ..engine.result import HandResult
from ..engine.rules import Rules
from ..game.driver import run_hand
from ..game.policy import Policy, check_plays_rules, policy_name
from .hands_report import HandsReport
from .util import progress_bar


def play_deal(team: Policy, box: Policy, deck: Sequence[int], rules: Rules | None = None) -> HandState:
    """Play one hand to its end from a given deck; return the finished state."""
    state = HandState.deal(rules, deck=deck)
    run_hand(state, (team, box))
    return state


def count_outcome(counter: Counter[str], result: HandResult, a_player: int) -> None:
    """Count ``result`` in ``counter`` under the report's outcome keys: ``a_gin``, ``b_knock``, ... by whether
    ``a_player`` won it, or the plain outcome (``dead``, ``truncated``) where nobody did."""
    if result.winner is None:
        counter[result.outcome] += 1
    else:
        counter[("a_" if result.winner == a_player else "b_") + result.outcome] += 1


def evaluate_hands(
    policy_a: Policy,
    policy_b: Policy,
    n_hands: int,
    seed: int = 0,
    rules: Rules | None = None,
    progress: bool = False,
    seat_baseline: bool = False,
    batched: bool | None = None,
) -> HandsReport:
    """Play ``n_hands`` seeded deals twice each (duplicate format, see the module doc).

    Deck ``i`` is the ``i``-th permutation drawn from ``numpy.random.default_rng(seed)``,
    so the first deals are the same whatever ``n_hands`` is. ``seat_baseline`` adds a
    third hand per deal, B against B, for the seat-adjusted figures (a random B then
    draws from its generator for that hand too).

    ``batched`` (default: when both policies have a deterministic batched form and there are at
    least 50 deals) plays the deals on the compiled core (:mod:`.batched_hands`): the same report,
    much faster; ``False`` forces the scalar loop; ``True`` plays a random policy batched too (the
    same distribution, other draws) and refuses policies without a batched form.

    Both players must have been built for ``rules`` (None: the rule book's): one built for others is
    refused in one line (:func:`~gin3_env.game.policy.check_plays_rules`; load it with
    ``load_policy(spec, rules=rules)``)."""
    if isinstance(n_hands, bool) or not isinstance(n_hands, int | np.integer) or n_hands < 1:
        raise ValueError(f"n_hands must be an int >= 1, got {n_hands!r}")
    rules = rules or Rules()
    check_plays_rules(policy_a, rules)
    check_plays_rules(policy_b, rules)
    if batched is not False:
        from .batched_hands import AUTO_MIN_DEALS, batched_form, evaluate_hands_batched

        asked = batched is True
        forms = (batched_form(policy_a, asked, rules), batched_form(policy_b, asked, rules)) \
            if asked or n_hands >= AUTO_MIN_DEALS else ()
        if forms and None not in forms:
            return evaluate_hands_batched(policy_a, policy_b, *forms, int(n_hands), seed, rules, seat_baseline)
        if batched:
            raise ValueError("batched=True needs two policies with a batched form (random, heuristic, "
                             "deterministic models)")
    rng = np.random.default_rng(seed)
    team_pts: list[float] = []
    box_pts: list[float] = []
    base_team: list[float] = []  # B against B on the same deal, B's team points
    counter: Counter[str] = Counter()
    turns = 0
    start = time.perf_counter()
    for _ in progress_bar(range(int(n_hands)), progress, "deals, each played twice"):
        deck = [int(c) for c in rng.permutation(52)]
        first = play_deal(policy_a, policy_b, deck, rules)
        second = play_deal(policy_b, policy_a, deck, rules)
        assert first.result is not None and second.result is not None
        team_pts.append(first.result.returns[TEAM])
        box_pts.append(second.result.returns[BOX])
        if seat_baseline:
            base = play_deal(policy_b, policy_b, deck, rules)
            assert base.result is not None
            base_team.append(base.result.returns[TEAM])
        count_outcome(counter, first.result, TEAM)
        count_outcome(counter, second.result, BOX)
        turns += first.turns + second.turns
    names = (policy_name(policy_a), policy_name(policy_b))
    baseline = base_team if seat_baseline else None
    return HandsReport.of_deals(names, seed, rules.to_dict(), team_pts, box_pts, baseline, counter, turns, start)
