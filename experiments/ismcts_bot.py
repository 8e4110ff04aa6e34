"""OpenSpiel's IS-MCTS bot on ``python_gin3_hand``, seeded, with random or heuristic playouts.

:func:`ismcts_bot` builds ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (OpenSpiel's own
bot, unchanged) for our hand game. Two things are ours:

- its resampler: ``state.resample_from_infostate(player, rng)`` with a generator seeded once,
  so a bot built with a ``seed`` plays the same moves on the same deal (OpenSpiel's default
  sampler is seeded from the clock);
- ``restart_at`` (so OpenSpiel's ``evaluate_bots`` can play it), a fresh tree;
- the evaluator of a leaf, ``rollout``: ``"random"`` is OpenSpiel's
  ``RandomRolloutEvaluator`` (uniformly random moves to the end of the hand);
  ``"heuristic"`` (:class:`HeuristicRolloutEvaluator`) plays the sampled state out with our
  :class:`~gin3_env.policies.HeuristicPolicy` for both sides (its first move by the policy,
  the rest in the compiled playouts search uses, the same moves). Both give every legal move
  the same prior.

The returns the bot backs up are the hand's points, so the exploration constant ``uct_c``
is in points too (default 10: about a typical hand's spread; OpenSpiel's examples use 2 for
returns in [-1, 1]).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from gin3_env.engine.hand import HandState
from gin3_env.engine.rules import Rules
from gin3_env.interop.openspiel_game import HAND_GAME, register
from gin3_env.interop.openspiel_hand import HandGameState
from gin3_env.observation.encoding import observe
from gin3_env.policies.heuristic import HeuristicPolicy

__all__ = ["DEFAULT_UCT_C", "ROLLOUTS", "GinISMCTSBot", "HeuristicRolloutEvaluator", "ismcts_bot"]

DEFAULT_UCT_C = 10.0
ROLLOUTS = ("random", "heuristic")


class HeuristicRolloutEvaluator:
    """An IS-MCTS leaf evaluator: the hand played out by the heuristic for both sides.

    ``evaluate(state)`` returns both players' points (the heuristic is deterministic, so one
    playout of a sampled state is its value); ``prior(state)`` is uniform over the legal moves.
    Only for ``python_gin3_hand`` states, under the rules the evaluator was built with."""

    def __init__(self, rules: Rules | None = None) -> None:
        from gin3_env.kernels.rollout import Rollouts  # the compiled core, imported when one is built

        self.policy = HeuristicPolicy()
        self.rollouts = Rollouts(rules)

    def evaluate(self, state: Any) -> np.ndarray:
        if not isinstance(state, HandGameState) or state.hand is None:
            raise ValueError(f"HeuristicRolloutEvaluator evaluates dealt {HAND_GAME} states, got {state!r:.80}")
        hand: HandState = state.hand
        if hand.result is not None:
            return np.asarray(hand.result.returns, dtype=float)
        first = self.policy.act(observe(hand.view(hand.player)))
        team = float(self.rollouts.run([hand], [first])[0])
        return np.array([team, -team])

    def prior(self, state: Any) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return list(state.chance_outcomes())
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


class GinISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's ``ISMCTSBot`` with ``restart_at`` (a fresh tree), which ``evaluate_bots`` calls and the
    Python bot lacks; its search keeps no state between moves, so nothing else is needed."""

    def restart_at(self, state: Any) -> None:
        self.reset()


def ismcts_bot(
    game: Any,
    simulations: int,
    *,
    rollout: str = "random",
    uct_c: float = DEFAULT_UCT_C,
    seed: int = 0,
    max_world_samples: int = -1,
) -> Any:
    """OpenSpiel's Python ``ISMCTSBot`` for ``game`` (a loaded ``python_gin3_hand``), seeded.

    ``simulations`` per decision, leaf evaluation by ``rollout`` (``"random"`` or
    ``"heuristic"``), final move the most visited; ``max_world_samples=-1`` resamples a
    world for every simulation."""
    register()
    if game.get_type().short_name != HAND_GAME:
        raise ValueError(f"ismcts_bot plays {HAND_GAME}, got {game.get_type().short_name}")
    if isinstance(simulations, bool) or not isinstance(simulations, int | np.integer) or simulations < 1:
        raise ValueError(f"simulations must be an int >= 1, got {simulations!r}")
    if rollout not in ROLLOUTS:
        raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}; got {rollout!r}")
    if not (isinstance(uct_c, int | float) and not isinstance(uct_c, bool) and uct_c >= 0):
        raise ValueError(f"uct_c must be a number >= 0, got {uct_c!r}")
    random_state = np.random.RandomState(seed)
    if rollout == "random":
        evaluator: Any = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
    else:
        evaluator = HeuristicRolloutEvaluator(game.rules)
    bot = GinISMCTSBot(
        game=game,
        evaluator=evaluator,
        uct_c=float(uct_c),
        max_simulations=int(simulations),
        max_world_samples=int(max_world_samples),
        random_state=random_state,
        final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
    )
    worlds = np.random.default_rng(seed)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, worlds))
    return bot
