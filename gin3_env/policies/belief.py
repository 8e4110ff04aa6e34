"""A belief over the opponent's hidden cards, built from what the player saw it do.

:class:`HandTracker` follows one player through a hand from its own observations (the dict
every policy gets, one per decision of that player, decoded once by the policy with
:func:`gin3_env.observation.decode`) and keeps:

- the :class:`~gin3_env.engine.PlayerView` of each decision (``view``): the decoded view plus
  the little the vector does not hold and the player remembers: the cards
  it took from the pile and still holds (``own_known``, which the opponent knows too);
- a particle belief (:class:`ParticleBelief`): ``n_particles`` guesses of the opponent's
  hidden cards with log-weights, started uniform over the cards the player has not seen and
  carried through the hand. Each opponent turn reweights every particle by how likely the
  opponent's observed decisions are under a model of it: the heuristic's take rule and its
  "knock when you can" (deterministic with a small ``eps``), and a softmax with temperature
  ``tau`` over the heuristic's own discard scores (:mod:`gin3_env.kernels.belief_kernels`).
  A card the player draws from the stock cannot be in the opponent's hand: particles holding
  it trade it for another unseen card (an approximation: their weights are kept).

  After each update the particles either are drawn afresh from the card marginals (``refresh``,
  the default), or are resampled by weight (``refresh=False``; with ``jitter``, each then swaps
  cards at random), or, with ``mcmc_steps > 0`` (resample-move), are resampled by weight and
  each takes ``mcmc_steps`` Metropolis-Hastings moves over its whole hand: swap one or two of
  its hidden cards for unseen cards it lacks, accepted on the likelihood of the opponent's
  whole recorded history under the same model (each particle keeps the card it drew from the
  stock at each turn, so the hand it held at every earlier turn can be rebuilt). The moves keep
  whole hands, and so the opponent's melds, together where the refresh would break them apart;
  with resample-move a card the player draws kills the particles holding it instead (exact).

What the observation vector does not hold, and how the tracker gets it: the order of the
discard pile below the top (not needed: those cards can never be taken again, so the view's
``pile`` is given in card order); ``own_known`` (tracked from the player's own takes and
discards); the opponent's decisions between two of the player's decisions (read from the
difference of the two observations: a card the player discarded is either in the opponent's
known cards, taken, or in its declined cards, drawn over; the new top card is its discard).
A policy object may play many hands and both seats: one tracker per seat, and a new hand is
recognised when an observation cannot follow the last one (the hand, turns or phase do not fit).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..engine.actions import DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from ..engine.cards import FULL_MASK
from ..engine.determinise import determinise
from ..engine.hand import HandState
from ..engine.phases import Phase
from ..engine.rules import Rules
from ..engine.view import PlayerView
from ..kernels.heuristic_params import HeuristicConfig
from .heuristic import HeuristicPolicy
from .opponent_model import OpponentModel

__all__ = ["BeliefConfig", "HandTracker", "ParticleBelief"]

INITIAL_STOCK = 31
# what an opponent turn carries beyond the kernel's keywords, for a model that reads observations:
# the opponent's role, the turns played before it, and the cards it had declined before it
POLICY_FIELDS = ("opp", "turns", "opp_declined")


@dataclass(frozen=True)
class BeliefConfig:
    """Knobs of :class:`ParticleBelief` (``opponent``: the heuristic the opponent is modelled as)."""

    n_particles: int = 1024
    tau: float = 4.0  # softmax temperature over the heuristic's discard scores (points)
    eps_take: float = 0.05  # chance the opponent takes/refuses against the heuristic's take rule
    eps_knock: float = 0.05  # chance the opponent does not knock when the heuristic would
    jitter: int = 0  # after a resampling, each particle swaps this many cards for unseen ones
    refresh: bool = True  # after each opponent turn, draw all particles afresh from the marginals
    clip: float = 0.02  # the marginals kept by a refresh stay within [clip, 1 - clip]
    shrink: float = 20.0  # pseudo-particles of the uniform share mixed into each refresh
    # resample-move: > 0 replaces the refresh; after each update every particle is resampled by weight, then
    # takes this many Metropolis-Hastings swaps scored on the opponent's whole history (needs refresh=False)
    mcmc_steps: int = 0
    mcmc_pair: float = 0.5  # chance a move swaps two cards rather than one
    opponent: HeuristicConfig = field(default_factory=HeuristicConfig)

    def __post_init__(self) -> None:
        if self.n_particles < 1:
            raise ValueError(f"n_particles must be >= 1, got {self.n_particles}")
        if not self.tau > 0:
            raise ValueError(f"tau must be > 0, got {self.tau}")
        for name in ("eps_take", "eps_knock"):
            eps = getattr(self, name)
            if not 0 < eps < 1:
                raise ValueError(f"{name} must be in (0, 1), got {eps}")
        if isinstance(self.mcmc_steps, bool) or not isinstance(self.mcmc_steps, int) or self.mcmc_steps < 0:
            raise ValueError(f"mcmc_steps must be an int >= 0, got {self.mcmc_steps!r}")
        if self.mcmc_steps and self.refresh:
            raise ValueError("mcmc_steps > 0 replaces the refresh from the marginals: set refresh=False too")
        if not 0 <= self.mcmc_pair <= 1:
            raise ValueError(f"mcmc_pair must be in [0, 1], got {self.mcmc_pair}")


class ParticleBelief:
    """Weighted guesses of the opponent's hidden cards (see the module doc)."""

    def __init__(self, config: BeliefConfig, rng: np.random.Generator, rules: Rules,
                 model: OpponentModel | None = None) -> None:
        from ..kernels import belief_kernels as bk
        from ..kernels.heuristic_params import heuristic_params

        self._bk = bk
        self.config = config
        self.rng = rng
        self.rules = rules
        # the opponent's own player as the likelihood (:mod:`.policy_belief`), else the heuristic's kernel model
        self.model = model
        if model is not None and config.mcmc_steps:
            raise ValueError("the whole-history moves (mcmc_steps) score the heuristic's model only: "
                             "an opponent model needs the particle belief (mcmc_steps=0)")
        self._fp, self._ip = heuristic_params(HeuristicPolicy(config.opponent).config)  # options checked
        self.hidden = np.zeros(0, np.int64)
        self.logw = np.zeros(0)
        self.pool = 0  # the cards the particles' hidden cards are drawn from (set by the tracker)
        self.size = 0  # how many hidden cards the opponent holds after the turn being read
        # the opponent's turns since start() (rows of the kernels' event table) and, per particle, the
        # card it drew from the stock at each (-1: none); read by the whole-history moves
        self.events = np.zeros((0, bk.EV_FIELDS), np.int64)
        self.drawn = np.zeros((0, 0), np.int64)
        self.accepted = 0  # Metropolis-Hastings moves accepted / proposed since start()
        self.proposed = 0

    # ------------------------------------------------------------ building
    def start(self, pool: int, size: int, forced: int = 0) -> None:
        """Uniform particles: ``size`` cards of ``pool`` each, all holding ``forced``."""
        n = self.config.n_particles
        u = self.rng.random((n, max(size, 1)))
        self.hidden = self._bk.sample_hidden(n, pool, size, forced, u)
        self.logw = np.zeros(n)
        self.events = np.zeros((0, self._bk.EV_FIELDS), np.int64)
        self.drawn = np.zeros((n, 0), np.int64)
        self.accepted = self.proposed = 0

    def opponent_turn(self, **event: Any) -> None:
        """Reweight by one opponent turn (the keywords of ``belief_kernels.opponent_turn``)."""
        cfg = self.config
        turn = {name: event.pop(name) for name in POLICY_FIELDS}
        if self.model is not None:
            from .policy_belief import policy_turn

            policy_turn(self, self.model, {**event, **turn})
            self._normalise()
            return
        u = self.rng.random(len(self.hidden))
        before = self.hidden.copy()
        self._bk.opponent_turn(
            self.hidden, self.logw, u, fp=self._fp, ip=self._ip, eps_take=cfg.eps_take, eps_knock=cfg.eps_knock,
            inv_tau=1.0 / cfg.tau, knock_limit=self.rules.knock_limit, **event,
        )
        if cfg.mcmc_steps:
            self._record(event, before)
        self._normalise()

    def _record(self, event: dict[str, Any], before: np.ndarray) -> None:
        """Append the turn to the event table and each particle's stock draw to ``drawn``."""
        bk = self._bk
        row = np.zeros(bk.EV_FIELDS, np.int64)
        for name, col in (("known_opp", bk.EV_KNOWN), ("top", bk.EV_TOP), ("kind", bk.EV_KIND),
                          ("took", bk.EV_TOOK), ("d", bk.EV_D), ("d_hidden", bk.EV_D_HIDDEN), ("pool", bk.EV_POOL),
                          ("disc_top", bk.EV_DISC_TOP), ("disc_pile", bk.EV_DISC_PILE),
                          ("my_known", bk.EV_MY_KNOWN), ("my_declined", bk.EV_MY_DECLINED),
                          ("stock_after", bk.EV_STOCK_AFTER), ("forbidden", bk.EV_FORBIDDEN)):
            row[col] = int(event[name])
        d, took, d_hidden = int(event["d"]), bool(event["took"]), bool(event["d_hidden"])
        drawn = np.full(len(before), -1, np.int64)
        if d >= 0 and not took:
            new = self.hidden & ~before  # the drawn card where it is still held
            has_new = new != 0
            drawn[has_new] = np.log2(new[has_new].astype(np.float64)).round().astype(np.int64)
            if d_hidden:  # drawn and discarded at once: the discard was the draw
                forced = ~has_new & ((before >> d) & 1 == 0)
                drawn[forced] = d
        self.events = np.vstack([self.events, row[None, :]])
        self.drawn = np.hstack([self.drawn, drawn[:, None]])

    def player_drew(self, card: int, pool: int) -> None:
        """The player drew ``card`` from the stock (``pool``: the cards still unseen)."""
        holds = (self.hidden >> card) & 1 == 1
        if self.config.mcmc_steps and not holds.all():
            # exact: the card was in the stock all along, so no trajectory holding it is possible
            self.pool = pool
            self.logw = np.where(holds, -np.inf, self.logw)
            self._normalise()
            return
        self._bk.repair(self.hidden, card, pool, self.rng.random(len(self.hidden)))

    def _normalise(self) -> None:
        finite = np.isfinite(self.logw)
        if not finite.any():  # no guess explains what was seen: start again from the prior
            self.logw = np.zeros(len(self.logw))
            return
        self.logw = self.logw - self.logw[finite].max()
        if self.config.refresh and self.pool:
            self._refresh()
            return
        if self.config.mcmc_steps:
            self._resample(self.weights)
            self._move()
            return
        w = self.weights
        ess = 1.0 / float(np.sum(w * w))
        if ess < len(w) / 2:
            self._resample(w)

    def _resample(self, w: np.ndarray) -> None:
        n = len(w)
        positions = (self.rng.random() + np.arange(n)) / n
        idx = np.minimum(np.searchsorted(np.cumsum(w), positions), n - 1)
        self.hidden = self.hidden[idx]
        self.drawn = self.drawn[idx]
        self.logw = np.zeros(n)
        if self.config.jitter and self.pool:
            for _ in range(self.config.jitter):
                self._bk.jitter(self.hidden, self.pool, self.rng.random((n, 2)))

    def _move(self) -> None:
        """Metropolis-Hastings swaps of whole hands against the opponent's whole history."""
        cfg = self.config
        n = len(self.hidden)
        if not self.pool or n == 0:
            return
        u = self.rng.random((n, cfg.mcmc_steps, 6))
        self.accepted += int(self._bk.rejuvenate(
            self.hidden, self.drawn, self.events, len(self.events), self.pool, u, cfg.mcmc_pair,
            self.rules.knock_limit, self._fp, self._ip, cfg.eps_take, cfg.eps_knock, 1.0 / cfg.tau,
        ))
        self.proposed += n * cfg.mcmc_steps

    def _refresh(self) -> None:
        """Assumed-density step: keep only each card's chance, and draw every particle again from
        those chances (odds weights, without replacement), so the particles never collapse."""
        lo = self.config.clip
        size = self.size
        # the particles' estimate, shrunk toward the uniform share by its effective sample size:
        # with few effective particles most of the spread of the estimate is Monte Carlo noise
        ess = self.effective_size()
        k = self.config.shrink
        prior = np.zeros(52)
        pool_cards = (self.pool >> np.arange(52)) & 1
        prior[pool_cards == 1] = size / max(int(pool_cards.sum()), 1)
        q = (ess * self.card_probabilities() + k * prior) / (ess + k)
        q = np.clip(q, lo, 1 - lo)
        n = len(self.hidden)
        u = self.rng.random((n, max(size, 1)))
        self.hidden = self._bk.sample_weighted(n, self.pool, size, q / (1 - q), u)
        self.logw = np.zeros(n)

    # ------------------------------------------------------------ reading
    @property
    def weights(self) -> np.ndarray:
        w = np.exp(self.logw)
        return w / w.sum()

    def card_probabilities(self) -> np.ndarray:
        """float64 (52,): the chance each card is among the opponent's hidden cards."""
        bits = (self.hidden[:, None] >> np.arange(52)) & 1
        return self.weights @ bits

    def effective_size(self) -> float:
        w = self.weights
        return 1.0 / float(np.sum(w * w))

    def sample_hands(self, n: int) -> np.ndarray:
        """``n`` particles' hidden cards drawn by weight (systematic resampling)."""
        w = self.weights
        positions = (self.rng.random() + np.arange(n)) / n
        idx = np.minimum(np.searchsorted(np.cumsum(w), positions), len(w) - 1)
        return self.hidden[idx]


class HandTracker:
    """One seat's history within a hand, its view and the belief (see the module doc)."""

    def __init__(self, rules: Rules, belief: BeliefConfig, rng: np.random.Generator,
                 model: OpponentModel | None = None) -> None:
        self.rules = rules
        self.belief = ParticleBelief(belief, rng, rules, model)
        self.view: PlayerView | None = None
        self._last: PlayerView | None = None
        self._last_action: int | None = None
        self.own_known = 0  # own cards taken from the pile and still held (the vector lacks them)
        self.new_hand = True
        self.consistent = True  # False once the particles disagree with the view (then restarted)

    # ------------------------------------------------------------ per decision
    def observe(self, decoded: PlayerView) -> PlayerView:
        """Take this seat's next decision, its view decoded from the observation
        (:func:`gin3_env.observation.decode` with the tracker's rules); returns the view with the
        cards this seat took from the pile and still holds (``own_known``, which the vector lacks)."""
        view = replace(decoded, own_known=self.own_known & decoded.hand)
        last, action = self._last, self._last_action
        self.belief.pool, self.belief.size = view.unseen, view.opponent_hidden
        if last is None or action is None or not self._follows(last, action, view):
            self.own_known = 0
            view = replace(decoded, own_known=0)
            self.new_hand = True
            self._start(view)
        else:
            self.new_hand = False
            self._events(last, action, view)
        self._check(view)
        self.view = view
        return view

    def record(self, action: int) -> None:
        """The action this seat took at the view of the last :meth:`observe`."""
        view = self.view
        assert view is not None
        if action == TAKE_DISCARD and view.top is not None:
            self.own_known |= 1 << view.top
        elif action >= DISCARD_BASE:
            card = (action - DISCARD_BASE) if action < KNOCK_BASE else (action - KNOCK_BASE)
            self.own_known &= ~(1 << card)
        self._last, self._last_action = view, action
        if action >= KNOCK_BASE:  # the hand is over
            self._last = self._last_action = None

    def sample_states(self, n: int) -> list[HandState]:
        """``n`` full states of the hand drawn from the belief (the last view, the particles' cards)."""
        view = self.view
        assert view is not None
        rng = self.belief.rng
        out = []
        for hidden in self.belief.sample_hands(n):
            weights = (int(hidden) >> np.arange(52)) & 1
            out.append(determinise(view, rng, weights=weights))
        return out

    # ------------------------------------------------------------ internals
    @staticmethod
    def _follows(last: PlayerView, action: int, view: PlayerView) -> bool:
        """Whether ``view`` can be this seat's next decision after ``action`` at ``last``."""
        if view.player != last.player or view.phase in (Phase.OFFER_TEAM, Phase.OFFER_BOX):
            return False
        if action in (DRAW_STOCK, TAKE_DISCARD):
            return (
                view.phase is Phase.DISCARD
                and view.turns == last.turns
                and view.hand & last.hand == last.hand
                and (view.hand & ~last.hand).bit_count() == 1
            )
        if action == PASS:
            turns = (0, 1) if last.phase is Phase.OFFER_TEAM else (1,)
            return view.phase is Phase.DRAW and view.turns in turns and view.hand == last.hand
        if DISCARD_BASE <= action < KNOCK_BASE:
            card = action - DISCARD_BASE
            return (
                view.phase is Phase.DRAW
                and view.turns == last.turns + 2
                and view.hand == last.hand & ~(1 << card)
                and view.stock_size in (last.stock_size, last.stock_size - 1)
            )
        return False

    def _start(self, view: PlayerView) -> None:
        """A new hand: uniform particles, then the opponent's moves before this first decision."""
        b = self.belief
        upcard_taken = view.phase is Phase.DRAW and view.turns == 1 and view.opponent_known.bit_count() == 1
        if view.phase is Phase.OFFER_TEAM or view.phase is Phase.OFFER_BOX:
            b.start(view.unseen, 10)
            if view.phase is Phase.OFFER_BOX:  # the team (captain) passed the upcard
                self._turn(view.opponent_known, view.top, 0, False, -1, False, 0, -1, 0, 0, 0, INITIAL_STOCK,
                           opp=0, turns=0, opp_declined=0)
            return
        if view.player == 1 and upcard_taken and view.top is not None and view.stock_size == INITIAL_STOCK:
            # the captain took the upcard and discarded the top card: it was in his hand
            upcard = view.opponent_known.bit_length() - 1
            d = view.top
            b.start(view.unseen | 1 << d, 10, forced=1 << d)
            self._turn(0, upcard, 0, True, d, True, 0, -1, 0, 0, 0, INITIAL_STOCK, opp=0, turns=0, opp_declined=0)
            return
        # no history (a state handed over mid-hand): uniform over the unseen cards
        b.start(view.unseen, view.opponent_hidden)

    def _turn(self, known_opp: int, top: int | None, kind: int, took: bool, d: int, d_hidden: bool, pool: int,
              disc_top: int, disc_pile: int, my_known: int, my_declined: int, stock_after: int, *, opp: int,
              turns: int, opp_declined: int) -> None:
        """One opponent turn; ``opp``, ``turns`` and ``opp_declined`` (its role, the turns played before
        it, the cards it had declined before it) are read by an opponent model only (:mod:`.policy_belief`)."""
        self.belief.opponent_turn(
            opp=opp, turns=turns, opp_declined=opp_declined,
            known_opp=known_opp, top=-1 if top is None else top, kind=kind, took=took, d=d, d_hidden=d_hidden,
            pool=pool, disc_top=disc_top, disc_pile=disc_pile, my_known=my_known, my_declined=my_declined,
            stock_after=stock_after, forbidden=top if (took and top is not None and not
                                                       self.rules.allow_discard_taken_card) else -1,
        )

    def _events(self, last: PlayerView, action: int, view: PlayerView) -> None:
        """The opponent's moves (and this seat's stock draw) between ``last`` and ``view``."""
        b = self.belief
        if action == DRAW_STOCK:
            drawn = (view.hand & ~last.hand).bit_length() - 1
            b.player_drew(drawn, view.unseen)
            return
        if action == TAKE_DISCARD:
            return
        top = view.top
        assert top is not None
        if action == PASS and last.phase is Phase.OFFER_TEAM:
            # the box's offer: it passed (turns 0) or took the upcard and discarded
            upcard = last.top
            if view.turns == 0:
                self._turn(last.opponent_known, upcard, 0, False, -1, False, 0, -1, 0, 0, view.own_declined,
                           INITIAL_STOCK, opp=1, turns=0, opp_declined=last.opponent_declined)
            else:
                self._turn(last.opponent_known, upcard, 0, True, top, True, 0, -1, 0, 0, view.own_declined,
                           INITIAL_STOCK, opp=1, turns=0, opp_declined=last.opponent_declined)
            return
        if action == PASS:  # the box passed too: the captain drew from the stock and discarded
            upcard = last.top
            assert upcard is not None
            d_hidden = not (last.opponent_known >> top & 1)
            self._turn(last.opponent_known, upcard, 2, False, top, d_hidden, last.unseen, upcard, 0, 0,
                       view.own_declined, view.stock_size, opp=0, turns=0, opp_declined=last.opponent_declined)
            return
        # this seat discarded card c; the opponent took it or drew over it, then discarded top
        c = action - DISCARD_BASE
        took = bool(view.opponent_known >> c & 1)
        d_hidden = not (last.opponent_known >> top & 1)
        my_known = self.own_known  # after this seat's discard (record() removed c)
        pile_below = last.pile_mask | (0 if last.top is None else 1 << last.top)
        if took:
            disc_top = -1 if last.top is None else last.top
            disc_pile = last.pile_mask
        else:
            disc_top, disc_pile = c, pile_below
        self._turn(last.opponent_known, c, 1, took, top, d_hidden, last.unseen, disc_top, disc_pile, my_known,
                   last.own_declined, view.stock_size, opp=1 - view.player, turns=last.turns + 1,
                   opp_declined=last.opponent_declined)

    def _check(self, view: PlayerView) -> None:
        """Particles must hold exactly the opponent's hidden count of unseen cards; else restart them."""
        b = self.belief
        unseen = view.unseen
        hidden = view.opponent_hidden
        counts = np.array([int(h).bit_count() for h in b.hidden])
        outside = (b.hidden & ~np.int64(unseen & FULL_MASK)) != 0
        ok = (counts == hidden) & ~outside
        if not ok.all():
            self.consistent = False
            if ok.any():
                b.logw = np.where(ok, b.logw, -np.inf)
                b._normalise()
            else:
                b.start(unseen, hidden)
