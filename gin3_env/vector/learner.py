"""The learner's side of the batched core: one learner seat per hand, batched opponents.

:class:`LearnerHands` drives a :class:`~gin3_env.vector.VectorHands` so that every row is
always at a decision of the learner, the way :class:`gin3_env.envs.single_agent.ThreeHandedGinEnv`
is for one hand: the learner takes the team, the box or a random role per hand; the opponent
(one batched policy, or a weighted pool drawn per hand) moves until it is the learner's turn;
a hand the opponent ends before the learner's first decision is dealt again; an illegal action
ends the episode with ``-illegal_penalty``. With ``reward_baseline`` each deal is also played
by the baseline in the learner's seat against the same opponent, on a twin row of a second
``VectorHands`` stepped in the same batched calls, and the reward is the learner's points
minus the baseline's (duplicate scoring, as the scalar env's ``reward_baseline``).

Both learner envs (:mod:`.gym_env`, :mod:`.sb3_env`) are thin layers over this class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine.hand import PLAYER_NAMES
from ..engine.result import TRUNCATED
from ..engine.rules import Rules
from ..envs.errors import DRAWN, check_illegal_penalty, check_learner_role
from ..errors import check_seed
from ..kernels.hands import VectorHands, action_array, check_decks
from ..observation.features import FEATURE_NAMES, feature_set
from .players import as_batch

FEATURES = FEATURE_NAMES
MAX_SKIPS = 1000


def resolve_batch(spec: Any, seed: int | None, rules: Rules | None = None) -> Any:
    """A batched policy from a spec (``"random"``, ``"heuristic"``, a model path), a scalar policy
    with a batched form, or an object that already has ``act(observations, masks)``; a spec is loaded
    for the game's ``rules``, an object built for other rules refused (:func:`~.players.as_batch`)."""
    batch = as_batch(spec, seed, rules)
    if batch is not None:
        return batch
    if callable(getattr(spec, "act", None)):
        return spec  # trusted to be batched: act(observations, masks) -> actions
    raise ValueError(f"opponent must be 'random', 'heuristic', a model path or a batched policy; got {spec!r}")


class LearnerHands:
    """``num_envs`` hands, each always at a decision of the learner (see the module doc)."""

    _deal_seed: int | None  # the seed of the next reset's deal (None: continue the generators)
    _player_seeds: np.random.SeedSequence  # seeds of the random opponents

    def __init__(
        self,
        num_envs: int,
        learner: str = DRAWN,
        opponent: Any = "heuristic",
        weights: Sequence[float] | None = None,
        reward_baseline: Any = None,
        reward_scale: float = 1.0,
        illegal_penalty: float = 25.0,
        features: str = "plain",
        seed: int | None = None,
        rules: Rules | None = None,
        max_episode_steps: int | None = None,
        **rule_options: Any,
    ) -> None:
        learner = check_learner_role(learner)
        if max_episode_steps is not None and (
            isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int | np.integer)
            or max_episode_steps < 1
        ):
            raise ValueError(f"max_episode_steps must be None or an int >= 1, got {max_episode_steps!r}")
        self.max_episode_steps = None if max_episode_steps is None else int(max_episode_steps)
        if features not in FEATURES:
            raise ValueError(f"features must be one of {FEATURES}, got {features!r}")
        self.feature_set = feature_set(features)
        scale = float(reward_scale)
        if not np.isfinite(scale) or scale <= 0:
            raise ValueError(f"reward_scale must be a finite number > 0, got {reward_scale!r}")
        penalty = check_illegal_penalty(illegal_penalty)
        self.num_envs = n = int(num_envs)
        self.learner_role = learner
        self.reward_scale = scale
        self.illegal_penalty = penalty
        self.features = features
        self.obs_size = self.feature_set.size
        self.hands = VectorHands(n, rules=rules, **rule_options)
        self.rules = self.hands.rules
        self._seed_all(check_seed(seed))
        self.set_opponent(opponent, weights)
        self.baseline = None if reward_baseline is None else resolve_batch(reward_baseline, None, self.rules)
        self.twin = VectorHands(n, rules=self.rules) if self.baseline is not None else None
        self.learner_player = np.zeros(n, dtype=np.int64)
        self.opponent_index = np.zeros(n, dtype=np.int64)
        self._fresh = np.ones(n, dtype=bool)
        self._twin_live = np.zeros(n, dtype=bool)
        self.baseline_points = np.zeros(n, dtype=np.float64)
        self.skipped = 0  # hands the opponent ended before the learner acted (redealt)
        self._all = np.arange(n, dtype=np.int64)
        self.episode_steps = np.zeros(n, dtype=np.int64)  # the learner's steps in each slot's episode

    # ------------------------------------------------------------ opponents
    def set_opponent(self, opponent: Any, weights: Sequence[float] | None = None) -> None:
        """One opponent, or a pool (list) drawn from for each new hand, uniformly or by ``weights``
        (the scalar env's ``set_opponent``; applies from each slot's next hand)."""
        items = list(opponent) if isinstance(opponent, list | tuple) else [opponent]
        if not items:
            raise ValueError("opponent pool is empty")
        probs = None
        if weights is not None:
            w = np.asarray(weights, dtype=float)
            if w.shape != (len(items),) or (w < 0).any() or w.sum() <= 0:
                raise ValueError(f"weights must be {len(items)} numbers >= 0 with a positive sum, got {weights!r}")
            probs = w / w.sum()
        cache = getattr(self, "_loaded", {})
        pool = []
        for k, spec in enumerate(items):
            key = spec if isinstance(spec, str) else id(spec)
            if key not in cache:
                seed = int(self._player_seeds.generate_state(1)[0]) + k
                cache[key] = resolve_batch(spec, seed, self.rules)
            pool.append(cache[key])
        self._loaded = {k: v for k, v in cache.items() if v in pool}
        self.pool = pool
        self.pool_probs = probs

    def _draw(self, rows: np.ndarray) -> None:
        k = len(rows)
        if self.learner_role == DRAWN:
            self.learner_player[rows] = self._rng.integers(2, size=k)
        else:
            self.learner_player[rows] = 0 if self.learner_role == "team" else 1
        if len(self.pool) > 1:
            self.opponent_index[rows] = self._rng.choice(len(self.pool), size=k, p=self.pool_probs)
        else:
            self.opponent_index[rows] = 0

    # ------------------------------------------------------------ episodes
    def reset(self, seed: int | None = None, decks: Any = None) -> np.ndarray:
        """Deal every slot again (reseeding roles, opponent draws, decks and random opponents when
        ``seed`` is given); ``decks`` (k >= num_envs, 52): the first num_envs are dealt, the rest
        queued for the redeals that follow. Returns the learner observations."""
        seed = check_seed(seed)
        later = None
        if decks is not None:  # checked before anything changes
            arr = np.asarray(decks)
            decks = check_decks(arr[: self.num_envs] if arr.ndim == 2 else arr, self.num_envs)
            later = arr[self.num_envs :]
            if len(later):
                check_decks(later, len(later))
        if seed is not None:
            self._seed_all(seed)
        self.hands.reset(seed=self._deal_seed, decks=decks)
        if later is not None and len(later):
            self.hands.queue_decks(later)
        self._deal_seed = None  # later resets continue the same generators
        self.skipped = 0
        self.episode_steps[:] = 0
        self._new_hands(self._all)
        self._settle(np.zeros(self.num_envs), np.zeros(self.num_envs, bool), np.zeros(self.num_envs, bool), None)
        return self.observe()

    def _seed_all(self, seed: int | None) -> None:
        roles, deals, players = np.random.SeedSequence(seed).spawn(3)
        self._rng = np.random.default_rng(roles)
        self._deal_seed = int(deals.generate_state(1, np.uint64)[0])
        self._player_seeds = players
        for k, p in enumerate(getattr(self, "pool", [])):
            if hasattr(p, "rng"):
                p.rng = np.random.default_rng([int(players.generate_state(1)[0]), k])

    def _new_hands(self, rows: np.ndarray) -> None:
        """Slots ``rows`` hold freshly dealt hands: draw roles and opponents, deal the twins."""
        self._draw(rows)
        self._fresh[rows] = True
        if self.twin is not None and len(rows):
            self.twin.deal_like(rows, self.hands)
            self._twin_live[rows] = True
            self.baseline_points[rows] = 0.0

    def observe(self) -> np.ndarray:
        """The learner observations (every slot is at a learner decision)."""
        return self._encode(self.hands.observe())

    def action_masks(self) -> np.ndarray:
        """bool (num_envs, 107): the learner's legal actions in each slot."""
        return self.hands.mask_view.astype(bool)

    def _encode(self, obs: np.ndarray) -> np.ndarray:
        return self.feature_set.encode_batch(obs)

    def check_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as int64 (num_envs,) if each is an int in ``0..106`` (whole floats too: SB3 hands
        discrete actions over as integers, others as floats), else an error naming the hand and the
        action (:mod:`gin3_env.errors`). Legality is not checked: an illegal action ends its
        episode with the penalty."""
        return action_array(actions, self._all, integral_floats=True)

    def step(self, actions: Any, active: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner action per slot. Returns (observations, rewards, terminated, truncated, extra)
        where ``extra`` holds ``final_obs`` (rows of ended episodes, else zeros), ``illegal`` (bool),
        ``ended`` (bool), ``outcome`` (codes), ``learner`` (0/1 of the ended hand), ``baseline_points``.
        With ``active`` (bool, num_envs), only those slots play; the others stay as they are."""
        n = self.num_envs
        acts = self.check_actions(actions)
        illegal = self.hands.mask_view[self._all, acts] == 0
        if active is not None:
            illegal &= active
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        final = {
            "final_obs": np.zeros((n, self.obs_size), dtype=np.float32),
            "illegal": illegal.copy(),
            "outcome": np.zeros(n, dtype=np.int64),
            "learner": self.learner_player.copy(),
            "baseline_points": np.zeros(n, dtype=np.float64),
            "points": np.zeros(n, dtype=np.float64),
            "deal": np.full(n, -1, dtype=np.int64),
        }
        if illegal.any():
            rows = np.flatnonzero(illegal)
            final["deal"][rows] = self.hands.deal_index[rows]
            final["final_obs"][rows] = self._encode(self.hands.observe_rows(rows, self.learner_player[rows]))
            rewards[rows] = -self.illegal_penalty * self.reward_scale
            terminated[rows] = True
            self._finish_twins(rows)
            self.hands.redeal(rows)
            self._new_hands(rows)
        legal = np.flatnonzero(~illegal if active is None else active & ~illegal)
        if len(legal):
            self._fresh[legal] = False
            r, ended = self.hands.apply(legal, acts[legal])
            self._on_ends(legal, r, ended, rewards, terminated, truncated, final)
        self.episode_steps[self._all if active is None else active] += 1
        if self.max_episode_steps is not None:
            self._cut(terminated, truncated, final)
        self._settle(rewards, terminated, truncated, final)
        final["ended"] = terminated | truncated
        self.episode_steps[final["ended"]] = 0
        return self.observe(), rewards, terminated, truncated, final

    def _cut(self, terminated: np.ndarray, truncated: np.ndarray, final: dict[str, Any]) -> None:
        """Truncate the episodes still running after ``max_episode_steps`` learner steps (reward 0)."""
        over = ~(terminated | truncated) & (self.episode_steps >= (self.max_episode_steps or 0))
        if not over.any():
            return
        rows = np.flatnonzero(over)
        final["final_obs"][rows] = self._encode(self.hands.observe_rows(rows, self.learner_player[rows]))
        final["outcome"][rows] = TRUNCATED
        final["learner"][rows] = self.learner_player[rows]
        final["deal"][rows] = self.hands.deal_index[rows]
        truncated[rows] = True
        self.hands.redeal(rows)
        self._new_hands(rows)

    def _on_ends(self, rows: np.ndarray, r: np.ndarray, ended: np.ndarray, rewards: np.ndarray,
                 terminated: np.ndarray, truncated: np.ndarray, final: dict[str, Any] | None) -> None:
        done = ended != 0
        if not done.any():
            return
        rows, r, ended = rows[done], r[done], ended[done]
        fresh = self._fresh[rows]
        if fresh.any():  # the opponent ended the hand before the learner's first decision
            self.skipped += int(fresh.sum())
            skip = rows[fresh]
            self.hands.redeal(skip)
            self._new_hands(skip)
        keep = ~fresh
        rows, r, ended = rows[keep], r[keep], ended[keep]
        if not len(rows) or final is None:
            return
        lp = self.learner_player[rows]
        final["final_obs"][rows] = self._encode(self.hands.observe_rows(rows, lp))
        self._finish_twins(rows)
        points = r[np.arange(len(rows)), lp].astype(np.float64)
        base = self.baseline_points[rows] if self.twin is not None else 0.0
        rewards[rows] = (points - base) * self.reward_scale
        final["points"][rows] = points
        final["baseline_points"][rows] = base
        final["outcome"][rows] = ended
        final["learner"][rows] = lp
        final["deal"][rows] = self.hands.deal_index[rows]
        truncated[rows] = ended == TRUNCATED
        terminated[rows] = ended != TRUNCATED
        self.hands.redeal(rows)
        self._new_hands(rows)

    def _settle(self, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray,
                final: dict[str, Any] | None) -> None:
        """Let the opponents (and the twins) move until every slot is at a learner decision."""
        skips = 0
        while True:
            waiting = np.flatnonzero(self.hands.players_view != self.learner_player)
            if not len(waiting):
                break
            acts = self._act(self.hands, waiting, self.opponent_index[waiting], None)
            r, ended = self.hands.apply(waiting, acts)
            before = self.skipped
            self._on_ends(waiting, r, ended, rewards, terminated, truncated, final)
            skips += self.skipped - before
            if skips > MAX_SKIPS * self.num_envs:
                raise RuntimeError(
                    "the opponent keeps ending hands before the learner can act; with these rules and "
                    "this opponent the learner never plays"
                )
            self._advance_twins(np.flatnonzero(self._twin_live))
        self._advance_twins(np.flatnonzero(self._twin_live))

    # ------------------------------------------------------------ players
    def _act(self, hands: VectorHands, rows: np.ndarray, opp: np.ndarray,
             use_baseline: np.ndarray | None) -> np.ndarray:
        """Actions of the players to act in ``rows`` of ``hands``: the slot's opponent, or the
        baseline where ``use_baseline`` is set."""
        obs = hands.observe_rows(rows)
        mask = hands.mask_view[rows]
        acts = np.empty(len(rows), dtype=np.int64)
        groups = opp.copy()
        if use_baseline is not None:
            groups[use_baseline] = -1
        for g in np.unique(groups):
            sel = groups == g
            policy = self.pool[g] if g >= 0 else self.baseline
            assert policy is not None  # rows of group -1 exist only with a baseline
            acts[sel] = policy.act(obs[sel], mask[sel])
        return acts

    def _advance_twins(self, rows: np.ndarray) -> None:
        """One move in each live twin hand."""
        if self.twin is None or not len(rows):
            return
        twin = self.twin
        by_baseline = twin.players_view[rows] == self.learner_player[rows]
        acts = self._act(twin, rows, self.opponent_index[rows], by_baseline)
        r, ended = twin.apply(rows, acts)
        done = ended != 0
        if done.any():
            d = rows[done]
            self.baseline_points[d] = r[done][np.arange(int(done.sum())), self.learner_player[d]]
            self._twin_live[d] = False

    def _finish_twins(self, rows: np.ndarray) -> None:
        """Play the twins of ``rows`` to their end (their points are needed now)."""
        if self.twin is None:
            return
        while True:
            live = rows[self._twin_live[rows]]
            if not len(live):
                return
            self._advance_twins(live)

    def roles(self) -> list[str]:
        return [PLAYER_NAMES[p] for p in self.learner_player]
