"""One opponent turn read by a belief whose likelihood is the opponent's own player.

:func:`policy_turn` updates a :class:`~.belief.ParticleBelief` built with an
:class:`~.opponent_model.OpponentModel`: at the opponent's pickup decision (take the face-up card,
pass, draw) and at its discard, every particle's hand is put into the observation and legal mask the
opponent had then (:func:`gin3_env.kernels.policy_belief.decision_rows`), the model plays all of them in
one batched call, and each particle's weight is multiplied by ``(1 - eps)`` where the model's move is
the move seen, plus ``eps / legal moves`` in any case (``eps``: ``BeliefConfig.eps_take`` at the pickup,
``eps_knock`` at the discard). A stock draw between the two is sampled as in the heuristic's kernel
model (:func:`gin3_env.kernels.policy_belief.draw_step`). A model that is not informative (the uniform
random player) leaves the weights alone: the draws are still tracked.

The event is the tracker's (:meth:`~.belief.HandTracker._turn`): the kernel model's keywords plus
``opp`` (the opponent's role), ``turns`` (turns played before the turn) and ``opp_declined``. ``belief`` is the
:class:`~.belief.ParticleBelief` (not imported: it imports this module).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.actions import DISCARD_BASE, DRAW_STOCK, PASS, TAKE_DISCARD
from ..engine.phases import Phase
from ..kernels.belief_kernels import KIND_FORCED, KIND_OFFER
from .opponent_model import OpponentModel

__all__ = ["policy_turn"]


def _score(belief: Any, model: OpponentModel, hands: np.ndarray, seen: int, eps: float,
           **public: int) -> None:
    from ..kernels import hand_kernels as hk
    from ..kernels.policy_belief import decision_rows, score_rows

    n = len(hands)
    obs = np.zeros((n, hk.OBS_SIZE), np.float32)
    mask = np.zeros((n, hk.NUM_ACTIONS), np.int8)
    R = hk.rules_vector(belief.rules)
    decision_rows(hands, public["phase"], public["player"], public["turns"], public["stock_only"], public["taken"],
                  public["stock"], public["pile_mask"], public["top"], public["known_other"],
                  public["declined_other"], public["declined_own"], R, obs, mask)
    live = np.isfinite(belief.logw)
    actions = np.full(n, -1, np.int64)
    if live.any():
        actions[live] = model.act(obs[live], mask[live])
    score_rows(belief.logw, actions, seen, mask, eps)


def policy_turn(belief: Any, model: OpponentModel, event: dict[str, Any]) -> None:
    """Reweight ``belief`` by one opponent turn under ``model`` (see the module doc); the particles keep
    the opponent's hidden cards after the turn."""
    from ..kernels.policy_belief import draw_step

    cfg = belief.config
    opp, kind, took = int(event["opp"]), int(event["kind"]), bool(event["took"])
    top, d, turns = int(event["top"]), int(event["d"]), int(event["turns"])
    known_opp, disc_top, disc_pile = int(event["known_opp"]), int(event["disc_top"]), int(event["disc_pile"])
    other = {"known_other": int(event["my_known"]), "declined_other": int(event["my_declined"])}
    declined = int(event["opp_declined"])
    if model.informative and kind != KIND_FORCED and top >= 0:  # the pickup decision
        phase = (Phase.OFFER_TEAM if opp == 0 else Phase.OFFER_BOX) if kind == KIND_OFFER else Phase.DRAW
        below = disc_pile | (1 << disc_top if took and disc_top >= 0 else 0)
        seen = TAKE_DISCARD if took else (PASS if kind == KIND_OFFER else DRAW_STOCK)
        stock = int(event["stock_after"]) + (0 if took or d < 0 else 1)
        _score(belief, model, belief.hidden | known_opp, seen, cfg.eps_take, phase=int(phase), player=opp,
               turns=turns, stock_only=0, taken=-1, stock=stock, pile_mask=below, top=top, declined_own=declined,
               **other)
    if d < 0:
        return
    draw_step(belief.hidden, belief.logw, belief.rng.random(len(belief.hidden)), took, d, bool(event["d_hidden"]),
              int(event["pool"]))
    if model.informative:  # the discard decision
        if took:
            hands = belief.hidden | known_opp | (1 << top)
        else:
            hands = belief.hidden | known_opp
            declined |= 0 if top < 0 else 1 << top
        _score(belief, model, hands, DISCARD_BASE + d, cfg.eps_knock, phase=int(Phase.DISCARD), player=opp,
               turns=turns, stock_only=0, taken=top if took else -1, stock=int(event["stock_after"]),
               pile_mask=disc_pile, top=disc_top, declined_own=declined, **other)
    belief.hidden &= ~np.int64(1 << d)
