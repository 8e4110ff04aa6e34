"""``SearchPolicy``: decision-time search over determinised states, with heuristic playouts.

At each decision with more than one sensible move the policy

1. rebuilds what it knows as a :class:`~gin3_env.engine.PlayerView` from its observation
   (plus its own memory of the hand: :class:`~gin3_env.policies.belief.HandTracker`);
2. draws full states consistent with that view: the opponent's hidden cards from the
   particle belief (conditioned on the opponent's decisions so far; ``belief=None``: uniform;
   a spec names ``belief=particles``, the default, ``joint``, ``mcmc`` or ``uniform``),
   the stock order uniformly, through :func:`gin3_env.engine.determinise`;
3. plays every candidate move on every sampled state and the hand out to its end with the
   batched heuristic for both players (:class:`gin3_env.kernels.rollout.Rollouts`); every move
   is played on the same samples (common random numbers), so the comparisons are paired;
4. plays the move of best mean, but leaves the heuristic's own move only where the paired
   mean gain is more than ``margin_z`` standard errors above zero (at small budgets the
   noise of a few playouts would otherwise override a good default).

With ``rollout_policy=gated`` (the shipped gated player, ``gin3_env/models/gated.json``; or a gated model
file's path, read as data by :func:`~gin3_env.policies.gate_file.load_gated`) the blueprint is the gated player
instead of the heuristic: the playouts play it for both players (its gates compiled into the playout kernel), and
the default move of step 4 is its move, so with a margin no gain passes the search plays exactly the ``gated``
player. The heuristic's own move stays among the candidates.

Candidates: both moves of a take/pass choice at the opening; both moves of a take/draw
choice only with ``search_draws=True`` (off by default: measured against the true state, the
search's take/draw overrides lost points, see ``docs/beating_the_heuristic.md``); in the discard phase the
heuristic's ``max_candidates`` best discards by its own scores, the knock with the least
deadwood (if any knock is legal) and the heuristic's move. Decisions with one legal move
are not searched.

Knobs (:class:`SearchConfig`): ``samples`` (at most this many states per decision),
``min_samples``, ``batch`` (states per playout call, between time checks), ``time_budget``
(seconds per searched decision, counted from the observation's arrival, the belief's update
included; ``None``: always ``samples``. The search stops before a batch that would end past the
budget, at the mean time of its batches so far, but always plays ``min_samples`` states),
``max_candidates``,
``margin_z``, ``search_draws``, ``search_discards`` (``False``: search the discard phase
only where a knock is legal, i.e. whether and how to knock), ``belief`` (a
:class:`~gin3_env.policies.belief.BeliefConfig` or ``None``), ``rollout`` (the playout
:class:`~gin3_env.policies.HeuristicConfig`), ``rollout_policy`` (the blueprint, a player spec: ``"gated"``
for the gated blueprint above; spec ``search:rollout_policy=gated,belief=mcmc``). With
``time_budget=None`` the policy is deterministic for a ``seed``: the same observations in
the same order give the same moves. With a time budget the number of samples depends on
the machine's speed.

The defaults (128 states, no time budget, ``margin_z=2``) are the best configuration measured;
``time_budget=0.1`` caps the time instead. The measurements of the defaults, of the gated blueprint and of the
belief choices, each with its command, are in ``docs/beating_the_heuristic.md`` (items 7, 9 and 12) and
``docs/results.md``.

Whom it faces (``opponent``): with a spec (``search:opponent=gated``) the belief's likelihood is that player's
own moves (:mod:`.policy_belief`: its batched form, :mod:`.opponent_model`, plays the opponent's observation
rebuilt around each particle, smoothed by ``eps_take``/``eps_knock``); ``opponent=kernel`` keeps the heuristic's
model of :mod:`gin3_env.kernels.belief_kernels`; left unset, whoever seats the search tells it
(:func:`gin3_env.game.policy.introduce`, called by the driver at each hand's first move: ``gin3 evaluate``, the
ladder, ``gin3 exploit``, the matches), and where nobody does, or the opponent has no batched form, the kernel
model stays. ``rollout_policy`` (a spec) makes any batched player the blueprint (playouts and default move;
compiled where it is the heuristic or a gated player, else stepped in Python: :mod:`.policy_rollouts`);
``rollout_self`` gives the search's own side another player in its playouts and as its default move
(``gin3 exploit``'s searcher plays ``gated`` itself against the player it models). The opponent model
against the kernel model is measured in ``docs/exploitability.md``.

The compiled core (numba) is imported when the policy is built, not with the package.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.actions import DISCARD_BASE, KNOCK_BASE
from ..engine.phases import Phase
from ..engine.rules import Rules
from ..engine.view import PlayerView
from ..kernels.heuristic_params import HeuristicConfig
from ..observation.decoding import check_observation, decode, mask_actions
from ..observation.layout import OBS_SIZE
from .belief import BeliefConfig, HandTracker
from .heuristic import HeuristicPolicy
from .opponent_model import check_spec

if TYPE_CHECKING:
    from .gated import GatedPolicy
    from .opponent_model import OpponentModel

__all__ = ["SearchConfig", "SearchPolicy"]


@dataclass(frozen=True)
class SearchConfig:
    """Knobs of :class:`SearchPolicy` (see the module doc)."""

    samples: int = 128
    min_samples: int = 8
    batch: int = 8
    time_budget: float | None = None
    max_candidates: int = 4
    margin_z: float = 2.0
    search_draws: bool = False
    search_discards: bool = True  # False: in the discard phase, search only when a knock is legal
    belief: BeliefConfig | None = field(default_factory=BeliefConfig)
    rollout: HeuristicConfig = field(default_factory=HeuristicConfig)
    # whom the search faces, as its belief's likelihood (a policy spec with a batched form: policies.opponent_model);
    # None: told by whoever seats it (evaluation, ladder, envs, play: tell_opponents), else the heuristic's kernel
    # model; "kernel": always the heuristic's kernel model (the belief before opponent models)
    opponent: str | None = None
    # any player with a batched form as the blueprint (playouts and default move; None: the heuristic): compiled
    # where it is the heuristic or a gated player ("gated", a gate file), else played in Python over the
    # batched core (policies.policy_rollouts)
    rollout_policy: str | None = None
    # the search's own player in its playouts and its default move, where it differs from the opponent's
    # (rollout_policy then plays the opponent only): gin3 exploit's searcher plays the strongest
    # shipped player itself against the player it exploits
    rollout_self: str | None = None

    def __post_init__(self) -> None:
        for name in ("samples", "min_samples", "batch", "max_candidates"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"search option {name} must be an int >= 1, got {value!r}")
        for name in ("opponent", "rollout_policy", "rollout_self"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value):
                raise ValueError(f"search option {name} must be a policy spec or None, got {value!r}")
        if self.min_samples > self.samples:
            raise ValueError(f"min_samples ({self.min_samples}) must not exceed samples ({self.samples})")
        if self.time_budget is not None and not self.time_budget > 0:
            raise ValueError(f"time_budget must be > 0 seconds or None, got {self.time_budget!r}")
        if not self.margin_z >= 0:
            raise ValueError(f"margin_z must be >= 0, got {self.margin_z!r}")


# the beliefs a spec can name: ``joint`` resamples by weight and swaps one card per particle (keeps the
# cards' correlations) instead of the default refresh from the card marginals; ``mcmc`` resamples by weight
# and moves each particle by Metropolis-Hastings swaps of whole hands scored on the opponent's whole history
MCMC_BELIEF = BeliefConfig(n_particles=256, refresh=False, mcmc_steps=4)
BELIEFS: dict[str, BeliefConfig | None] = {
    "uniform": None, "particles": BeliefConfig(), "joint": BeliefConfig(refresh=False, jitter=1), "mcmc": MCMC_BELIEF,
}


def parse_options(text: str) -> dict[str, Any]:
    """``"samples=16,time_budget=0.05,belief=uniform"`` -> keyword options of :class:`SearchPolicy`."""
    out: dict[str, Any] = {}
    known = {f.name for f in fields(SearchConfig)} | {"seed"}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in known:
            raise ValueError(f"bad search option {item!r}: use name=value with a name among {sorted(known)}")
        value = value.strip()
        if key == "belief":
            if value not in BELIEFS:
                raise ValueError(f"search option belief must be one of {sorted(BELIEFS)}, got {value!r}")
            out[key] = BELIEFS[value]
        elif key == "time_budget":
            out[key] = None if value.lower() == "none" else float(value)
        elif key == "margin_z":
            out[key] = float(value)
        elif key in ("search_draws", "search_discards"):
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"search option {key} must be true or false, got {value!r}")
            out[key] = value.lower() in ("true", "1")
        elif key in ("opponent", "rollout_policy", "rollout_self"):
            out[key] = None if value.lower() == "none" else _checked_spec(key, value)
        elif key == "rollout":
            raise ValueError("search option rollout is set in code (a HeuristicConfig), not in a spec")
        else:
            try:
                out[key] = int(value)
            except ValueError:
                raise ValueError(f"search option {key} must be an int, got {value!r}") from None
    return out


def _checked_spec(key: str, value: str) -> str:
    """``value`` if it is a policy spec with a batched form (``kernel`` too, for ``opponent``)."""
    if key == "opponent" and value == KERNEL:
        return value
    check_spec(value)
    if value.startswith("rllib:"):
        raise ValueError(f"search option {key}: {value!r} has no batched form (use random, heuristic, gated, "
                         "ppo, search, a gate file .json or a model .zip)")
    return value


KERNEL = "kernel"  # opponent=kernel: the heuristic's model written into the belief kernels


class SearchPolicy:
    """Determinised search with the particle belief and heuristic playouts (see the module doc)."""

    def __init__(self, config: SearchConfig | None = None, *, seed: int | None = 0, rules: Rules | None = None,
                 **overrides: Any) -> None:
        config = config or SearchConfig()
        if overrides:
            unknown = set(overrides) - {f.name for f in fields(SearchConfig)}
            if unknown:
                raise ValueError(f"unknown SearchPolicy option(s): {sorted(unknown)}")
            config = replace(config, **overrides)
        from ..kernels.rollout import Rollouts
        from .opponent_model import opponent_model

        self.config = config
        self.rules = rules or Rules()
        self.rng = np.random.default_rng(seed)
        self.heuristic = HeuristicPolicy(rules=self.rules)
        # a blueprint named by rollout_policy (None: the heuristic): compiled where it is the heuristic or a gated
        # player, whose GatedModel the playouts and the default move play
        self.blueprint: OpponentModel | None = None
        if config.rollout_policy is not None:
            self.blueprint = opponent_model(config.rollout_policy, seed, self.rules)
        self.gated_model = None if self.blueprint is None else self.blueprint.gated_model
        self.gated: GatedPolicy | None = None
        if self.gated_model is not None:
            from .gated import GatedPolicy

            self.gated = GatedPolicy(self.gated_model, rules=self.rules)
        self.rollouts: Any
        self.own = None if config.rollout_self is None else opponent_model(config.rollout_self, seed, self.rules)
        if self.own is not None:
            self.rollouts = self._mixed_rollouts(self.own)
        elif self.blueprint is not None and not self.blueprint.compiled:
            from .policy_rollouts import PolicyRollouts

            self.rollouts = PolicyRollouts(self.rules, self.blueprint)
        else:
            self.rollouts = Rollouts(self.rules, config.rollout, self.gated_model)
        self.model: OpponentModel | None = None  # the belief's opponent model (None: the heuristic's kernel model)
        self.opponent_told = config.opponent is not None
        if config.opponent is not None and config.opponent != KERNEL:
            self.model = opponent_model(config.opponent, seed, self.rules)
        self._faced: Any = None  # the opponent face() was last told of
        self._trackers: dict[int, HandTracker] = {}
        self.name = "search" if config.belief is not None else "search-uniform"
        self.decision_seconds: list[float] = []  # wall time of each searched decision
        self.overrides = 0  # searched decisions where the search left its default move
        self.last_stats: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"SearchPolicy({self.config})"

    def _mixed_rollouts(self, own: OpponentModel) -> Any:
        """Playouts with ``own`` for the searching player and the blueprint for its opponent."""
        from ..kernels.rollout import Rollouts
        from .opponent_model import heuristic_model
        from .policy_rollouts import PolicyRollouts

        other = self.blueprint
        if other is None:
            other = replace(heuristic_model(self.rules), heuristic=self.config.rollout)
        if own.compiled and other.compiled:
            return Rollouts(self.rules, own.heuristic, own.gated_model, other=(other.heuristic, other.gated_model))
        return PolicyRollouts(self.rules, other, own)

    def blueprint_model(self) -> OpponentModel:
        """This search's blueprint as a batched player (what stands for it in another's belief and playouts)."""
        from .opponent_model import heuristic_model

        return self.blueprint if self.blueprint is not None else heuristic_model(self.rules)

    def face(self, opponent: Any) -> None:
        """Model ``opponent`` (a spec or a policy object) in the belief from the next hand on, unless the
        config names its opponent already; a player without a batched form leaves the kernel model."""
        if self.opponent_told or opponent is self._faced:
            return
        from .opponent_model import opponent_model

        self._faced = opponent
        try:
            self.model = opponent_model(opponent, rules=self.rules)
        except ValueError:
            self.model = None
        self._trackers.clear()

    def tracker(self, role: int) -> HandTracker:
        """The belief tracker of the seat playing ``role`` (0 the team, 1 the box), made on first use."""
        tracker = self._trackers.get(role)
        if tracker is None:
            belief = self.config.belief or BeliefConfig(n_particles=1)
            model = self.model if self.config.belief is not None else None
            tracker = self._trackers[role] = HandTracker(self.rules, belief, self.rng, model)
        return tracker

    # ------------------------------------------------------------ entry point
    def act(self, observation: dict[str, Any]) -> int:
        start = time.perf_counter()
        vector, mask = check_observation(observation)
        decoded = decode(vector, self.rules)  # once: the tracker and the heuristic take the view
        tracker = self.tracker(decoded.player)
        view = tracker.observe(decoded)
        if self.config.belief is None:  # uniform: a fresh uniform draw each decision
            tracker.belief.start(view.unseen, view.opponent_hidden)
        legal = mask_actions(mask)
        heuristic = default = self.heuristic.choose(view, legal)
        own = self.own or (self.blueprint if self.blueprint is not None and not self.blueprint.compiled else None)
        if own is not None:  # the own player in the playouts, or a blueprint played in Python
            default = int(own.act(vector[None, :OBS_SIZE], mask[None, :].astype(np.int8))[0])
        elif self.gated is not None:  # the gated player's move: its knock gate, and its draw gate if it has one
            default = int(self.gated.act_batch(vector[None, :OBS_SIZE], mask[None, :].astype(np.int8))[0])
        candidates = self._candidates(view, legal, default, heuristic)
        if len(candidates) < 2:
            action = default
            self.last_stats = {"searched": False}
        else:
            action = self._search(tracker, view.player, candidates, default, start)
            self.decision_seconds.append(time.perf_counter() - start)
        tracker.record(action)
        return action

    # ------------------------------------------------------------ search
    def _candidates(self, view: PlayerView, legal: list[int], default: int, heuristic: int) -> list[int]:
        phase = view.phase
        if len(legal) < 2:
            return legal
        if phase is Phase.DRAW and not self.config.search_draws:
            return [default]
        if phase is not Phase.DISCARD:
            return legal
        knocks = [a - KNOCK_BASE for a in legal if a >= KNOCK_BASE]
        if not knocks and not self.config.search_discards:
            return [default]
        cands = {default, heuristic}
        discards = [a - DISCARD_BASE for a in legal if DISCARD_BASE <= a < KNOCK_BASE]
        scores = self.heuristic.discard_scores(view.hand, discards, view)
        ranked = sorted(discards, key=lambda c: (scores[c], c))
        cands.update(DISCARD_BASE + c for c in ranked[: self.config.max_candidates])
        if knocks:
            kd = view.knock_deadwoods()
            cands.add(KNOCK_BASE + min(knocks, key=lambda c: (kd[c], scores.get(c, 0.0), c)))
        return sorted(cands)

    def _search(self, tracker: HandTracker, player: int, candidates: list[int], default: int, start: float) -> int:
        cfg = self.config
        sign = 1.0 if player == 0 else -1.0
        k = len(candidates)
        rows: list[np.ndarray] = []
        done = 0
        batch_start = time.perf_counter()
        while done < cfg.samples:
            if cfg.time_budget is not None and done >= cfg.min_samples:
                # stop before a batch that would end past the budget (at the mean time of the batches so far)
                now = time.perf_counter()
                if now - start + (now - batch_start) / len(rows) > cfg.time_budget:
                    break
            n = min(cfg.batch, cfg.samples - done)
            states = tracker.sample_states(n)
            batch_states = [s for s in states for _ in range(k)]
            firsts = np.tile(np.asarray(candidates, dtype=np.int64), n)
            mine = {} if self.own is None else {"me": player}
            points = self.rollouts.run(batch_states, firsts, **mine).reshape(n, k) * sign
            rows.append(points)
            done += n
        values = np.concatenate(rows)
        means = values.mean(axis=0)
        best = int(np.argmax(means))
        base = candidates.index(default)
        choice = default
        if best != base:
            diff = values[:, best] - values[:, base]
            se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.inf
            if diff.mean() > cfg.margin_z * se:
                choice = candidates[best]
                self.overrides += 1
        self.last_stats = {
            "searched": True,
            "samples": len(values),
            "candidates": list(candidates),
            "means": [float(x) for x in means],
            "default": default,
            "choice": choice,
        }
        return choice
