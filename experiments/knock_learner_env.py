"""A learner that makes only the knock decisions; the heuristic plays everything else.

``gymnasium.make("gin3/ThreeHandedGinKnock-v0")`` (:class:`KnockLearnerEnv`, ``decide="knock"``): at
each decision of the learner's seat where a knock is legal, the agent chooses **hold** (action 0:
the heuristic's best plain discard) or **knock** (action 1: the heuristic's knock, the one that
leaves the least deadwood). Every other decision of the learner's seat, and every decision of the
opponent, is the :class:`~gin3_env.policies.HeuristicPolicy`'s (its compiled twin, on the batched
core). An episode is one hand in which the agent decides at least once; a hand without a knock
chance for the learner's seat is played out by the heuristic and not shown (the heuristic is
deterministic, so such a hand scores what the heuristic scores).

**Reward**, at the end of the hand: the learner seat's points minus the points the heuristic
scores from the same seat on the same deal against the same opponent (heuristic against
heuristic on a twin of the deal), times ``reward_scale``. Knocking at every decision is the
heuristic itself (it knocks at its first chance), so it scores 0 on every hand; a knock choice earns
exactly what its holds gain.

| | |
|---|---|
| Observation | ``Box(0, 10, (12,), float32)``: :data:`KNOCK_LEARNER_FEATURES`, from the player's view alone |
| Actions | ``Discrete(2)``: 0 hold (best plain discard), 1 knock |
| Action mask | ``env.action_masks()`` / ``info["action_mask"]``: both legal at every decision |
| Reward | learner points minus the heuristic's on the same deal and seat, at the hand's end |
| Infos | the same keys on every step: ``action_mask``, ``learner`` (0 team, 1 box), ``result`` |

:class:`KnockHands` is the batched core under it (``num_envs`` hands a call, the same API as
:class:`~gin3_env.vector.learner.LearnerHands`, so an SB3 learner env can stand on it as on
that); :class:`KnockChoiceBatch` plays a knock choice (any function from :data:`KNOCK_LEARNER_FEATURES` rows
to knock/hold) as a full batched player, for evaluation on duplicate deals.

(The learner's 12 features are :data:`KNOCK_LEARNER_FEATURES`; ``KNOCK_FEATURES`` in
:mod:`gin3_env.kernels.decisions` names the knock gate's 25, and "gate" names the fitted scorers of the gated player.)

Arguments
``decide``: the decisions the agent makes, ``"knock"`` (the only kind so far); ``learner``:
``"team"``, ``"box"`` or ``"random"`` (a role drawn at each reset); ``reward_scale``; the rules
options as keywords (``knock_limit=...``), as in ``gin3/ThreeHandedGin-v0``.

Version history
| version | change |
|---|---|
| v0 | first release: the knock decisions, rewarded against the heuristic's own play of the deal |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gin3_env.engine.actions import KNOCK_BASE
from gin3_env.engine.result import TRUNCATED
from gin3_env.engine.rules import Rules
from gin3_env.errors import BatchActionError, ResetNeededError, check_seed
from gin3_env.observation.layout import (
    DEADWOOD_INDEX,
    OBS_SIZE,
    OPP_DECLINED_PLANE,
    OPP_KNOWN_PLANE,
    PILE_PLANE,
    PLANE,
    ROLE_OFFSET,
    STOCK_INDEX,
    TOP_PLANE,
    TURN_INDEX,
)
from gin3_env.vector.learner import LearnerHands
from gin3_env.vector.players import as_batch

LEARNER_DECISIONS = ("knock",)  # the decisions a learner can be given (decide=...)
HOLD, KNOCK = 0, 1
KNOCK_LEARNER_FEATURES = (
    "deadwood / 10 (after the best discard: the knock's deadwood)",
    "stock size / 31",
    "turns / max_turns",
    "1 if the learner is the team (captain)",
    "gin outs / 10: unseen cards that join the hand after the least-deadwood discard into a meld",
    "cards in melds / 10",
    "opponent's known cards / 10",
    "cards the opponent declined / 10",
    "discard pile size / 20",
    "unseen cards / 52",
    "danger / 5: hand cards that would join the opponent's known cards into a meld",
    "1 if gin (deadwood 0)",
)
KNOCK_LEARNER_FEATURES_SIZE = len(KNOCK_LEARNER_FEATURES)
OBSERVATION_FEATURES = KNOCK_LEARNER_FEATURES  # the meanings the env's documentation page lists, one per entry
_CARD0 = OBS_SIZE  # the augmented per-card planes: deadwood without c, in meld, outs, danger
_SCALARS = OBS_SIZE + 4 * PLANE


def knock_learner_features(observations: np.ndarray) -> np.ndarray:
    """float32 (k, :data:`KNOCK_LEARNER_FEATURES_SIZE`): :data:`KNOCK_LEARNER_FEATURES` of k observation vectors
    (374 entries, what the player sees), through the compiled augmented features."""
    from gin3_env.kernels.features import augment_batch

    raw = np.asarray(observations, dtype=np.float32)[:, :OBS_SIZE]
    aug = augment_batch(raw)
    hand = raw[:, :PLANE] > 0.5
    after = np.where(hand, aug[:, _CARD0 : _CARD0 + PLANE], np.inf)
    best = np.argmin(after, axis=1)
    rows = np.arange(len(raw))

    def plane(p: int) -> np.ndarray:
        return raw[:, p * PLANE : (p + 1) * PLANE]

    deadwood = raw[:, DEADWOOD_INDEX] * 100
    out = np.stack(
        [
            deadwood / 10,
            raw[:, STOCK_INDEX],
            raw[:, TURN_INDEX],
            raw[:, ROLE_OFFSET],
            aug[rows, _CARD0 + 2 * PLANE + best] * 20 / 10,
            (aug[:, _CARD0 + PLANE : _CARD0 + 2 * PLANE] * hand).sum(axis=1) / 10,
            plane(OPP_KNOWN_PLANE).sum(axis=1) / 10,
            plane(OPP_DECLINED_PLANE).sum(axis=1) / 10,
            (plane(TOP_PLANE) + plane(PILE_PLANE)).sum(axis=1) / 20,
            aug[:, _SCALARS + 3],
            (aug[:, _CARD0 + 3 * PLANE : _CARD0 + 4 * PLANE] * hand).sum(axis=1) / 5,
            (np.round(deadwood) == 0).astype(np.float32),
        ],
        axis=1,
    )
    return np.clip(out, 0.0, 10.0).astype(np.float32)


def knock_or_hold(heuristic: Any, observations: np.ndarray, masks: np.ndarray, knock: np.ndarray) -> np.ndarray:
    """The heuristic's knock where ``knock`` is set, its best plain discard elsewhere (rows at
    discard decisions with a legal knock)."""
    masks = np.asarray(masks).astype(bool)
    acts = np.empty(len(masks), dtype=np.int64)
    for want, keep in ((True, slice(KNOCK_BASE, None)), (False, slice(0, KNOCK_BASE))):
        sel = knock == want
        if sel.any():
            m = np.zeros_like(masks[sel])
            m[:, keep] = masks[sel][:, keep]
            acts[sel] = heuristic.act(observations[sel], m)
    return acts


def check_decide(decide: str) -> str:
    if decide not in LEARNER_DECISIONS:
        raise ValueError(f"decide must be one of {LEARNER_DECISIONS} (the decisions the learner makes), got {decide!r}")
    return decide


class KnockHands:
    """``num_envs`` hands, each at a knock decision of the learner (see the module doc)."""

    def __init__(self, num_envs: int, learner: str = "random", decide: str = "knock", reward_scale: float = 1.0,
                 seed: int | None = None, rules: Rules | None = None, **rule_options: Any) -> None:
        self.decide = check_decide(decide)
        self.core = LearnerHands(num_envs, learner=learner, opponent="heuristic", reward_baseline="heuristic",
                                 reward_scale=reward_scale, features="plain", seed=seed, rules=rules, **rule_options)
        self.num_envs = self.core.num_envs
        self.rules = self.core.rules
        self.obs_size = KNOCK_LEARNER_FEATURES_SIZE
        self.heuristic = as_batch("heuristic", None)
        self._all = np.arange(self.num_envs, dtype=np.int64)
        self._decided = np.zeros(self.num_envs, dtype=bool)
        self.skipped = 0  # hands with no knock chance for the learner's seat (played by the heuristic)

    @property
    def reward_scale(self) -> float:
        return self.core.reward_scale

    @reward_scale.setter
    def reward_scale(self, value: float) -> None:
        self.core.reward_scale = value

    def raw_observations(self) -> np.ndarray:
        return self.core.hands.observe()

    def observe(self) -> np.ndarray:
        return knock_learner_features(self.raw_observations())

    def action_masks(self) -> np.ndarray:
        return np.ones((self.num_envs, 2), dtype=bool)

    def check_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as int64 (num_envs,) of 0 (hold) and 1 (knock), else a :class:`BatchActionError`."""
        arr = np.asarray(actions)
        if arr.shape != (self.num_envs,):
            raise BatchActionError(
                f"actions must have shape ({self.num_envs},) of 0 (hold) or 1 (knock), got {arr.shape}")
        if arr.dtype == np.bool_ or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
            raise BatchActionError(f"actions must be 0 (hold) or 1 (knock), got dtype {arr.dtype}")
        bad = np.flatnonzero(~np.isin(arr, (HOLD, KNOCK)))
        if len(bad):
            k = int(bad[0])
            value = arr[k].item()
            raise BatchActionError(f"actions must be 0 (hold) or 1 (knock): hand {k}: action {value!r}", k, value)
        return arr.astype(np.int64)

    def _final(self) -> dict[str, Any]:
        n = self.num_envs
        return {"final_obs": np.zeros((n, KNOCK_LEARNER_FEATURES_SIZE), dtype=np.float32),
                "illegal": np.zeros(n, dtype=bool),
                "outcome": np.zeros(n, dtype=np.int64), "learner": self.core.learner_player.copy(),
                "points": np.zeros(n), "baseline_points": np.zeros(n), "deal": np.full(n, -1, dtype=np.int64)}

    def reset(self, seed: int | None = None, decks: Any = None) -> np.ndarray:
        """Deal every slot again (as :meth:`LearnerHands.reset`); returns the knock features."""
        self.core.reset(seed=check_seed(seed), decks=decks)
        self._decided[:] = False
        self.skipped = 0
        n = self.num_envs
        self._advance(np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), self._final())
        return self.observe()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One hold/knock per slot; returns (knock features, rewards, terminated, truncated, extra) as
        :meth:`LearnerHands.step` (``extra["final_obs"]`` holds knock features)."""
        acts = self.check_actions(actions)
        n = self.num_envs
        rewards, terminated, truncated, final = np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), self._final()
        played = knock_or_hold(self.heuristic, self.raw_observations(), self.core.action_masks(), acts == KNOCK)
        result = self.core.step(played)
        self._collect(result, rewards, terminated, truncated, final)
        self._advance(rewards, terminated, truncated, final)
        final["ended"] = terminated | truncated
        return self.observe(), rewards, terminated, truncated, final

    def _collect(self, result: tuple[Any, ...], rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray,
                 final: dict[str, Any]) -> None:
        """Report the hands that ended in ``result`` (a core step) where the agent had decided."""
        _, r, term, trunc, extra = result
        ended = np.flatnonzero(term | trunc)
        if not len(ended):
            return
        shown = ended[self._decided[ended]]
        self.skipped += len(ended) - len(shown)
        self._decided[ended] = False
        if len(shown):
            rewards[shown] = r[shown]
            terminated[shown] = extra["outcome"][shown] != TRUNCATED
            truncated[shown] = extra["outcome"][shown] == TRUNCATED
            # a plain-feature core's final observation is the raw vector the player saw at the end
            final["final_obs"][shown] = knock_learner_features(extra["final_obs"][shown])
            for key in ("outcome", "learner", "points", "baseline_points", "deal"):
                final[key][shown] = extra[key][shown]

    def _advance(self, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray,
                 final: dict[str, Any]) -> None:
        """Let the heuristic play the learner's other decisions until every slot is at a knock decision."""
        while True:
            masks = self.core.action_masks()
            idle = np.asarray(~masks[:, KNOCK_BASE:].any(axis=1), dtype=bool)
            if not idle.any():
                break
            acts = np.zeros(self.num_envs, dtype=np.int64)
            rows = np.flatnonzero(idle)
            acts[rows] = self.heuristic.act(self.core.hands.observe_rows(rows), masks[rows])
            result = self.core.step(acts, active=idle)
            self._collect(result, rewards, terminated, truncated, final)
        self._decided[:] = True


class KnockChoiceBatch:
    """A full batched player: ``choose(features) -> bool (knock)`` at each decision with a legal knock,
    the heuristic everywhere else. ``choose`` gets :func:`knock_learner_features` of those rows."""

    def __init__(self, choose: Callable[[np.ndarray], np.ndarray], name: str = "knock-choice") -> None:
        self.choose = choose
        self.name = name
        self.heuristic = as_batch("heuristic", None)
        self.decisions = 0
        self.holds = 0

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations)
        m = np.asarray(masks).astype(bool)
        asked = m[:, KNOCK_BASE:].any(axis=1)
        acts = np.empty(len(m), dtype=np.int64)
        if (~asked).any():
            acts[~asked] = self.heuristic.act(obs[~asked], m[~asked])
        if asked.any():
            knock = np.asarray(self.choose(knock_learner_features(obs[asked])), dtype=bool).reshape(-1)
            self.decisions += len(knock)
            self.holds += int((~knock).sum())
            acts[asked] = knock_or_hold(self.heuristic, obs[asked], m[asked], knock)
        return acts


def sb3_knock_choice(model: Any) -> Callable[[np.ndarray], np.ndarray]:
    """A knock choice from a trained ``MaskablePPO`` on :class:`KnockLearnerEnv` (deterministic: the likelier
    action)."""

    def choose(features: np.ndarray) -> np.ndarray:
        masks = np.ones((len(features), 2), dtype=bool)
        actions, _ = model.predict(features, action_masks=masks, deterministic=True)
        return np.asarray(actions) == KNOCK

    return choose


class KnockLearnerEnv(gym.Env[np.ndarray, np.int64]):
    """The knock decisions of one hand as a Gymnasium env (see the module doc)."""

    metadata = {"render_modes": []}

    def __init__(self, decide: str = "knock", learner: str = "random", reward_scale: float = 1.0,
                 rules: Rules | None = None, **rule_options: Any) -> None:
        self.core = KnockHands(1, learner=learner, decide=decide, reward_scale=reward_scale, rules=rules,
                               **rule_options)
        self.observation_space = spaces.Box(0.0, 10.0, (KNOCK_LEARNER_FEATURES_SIZE,), np.float32)
        self.action_space = spaces.Discrete(2)
        self._started = False
        self._done = False

    def action_masks(self) -> np.ndarray:
        return np.ones(2, dtype=bool)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        deck = None if not options else options.get("deck")
        unknown = set(options or {}) - {"deck"}
        if unknown:
            raise ValueError(f"reset options: unknown {sorted(unknown)} (the knock env takes 'deck')")
        obs = self.core.reset(seed=seed, decks=None if deck is None else np.asarray([deck]))
        if deck is not None and self.core.core.hands.deal_index[0] != 0:
            self._started = False
            raise ValueError("reset options: in this deck the learner's seat has no decision with a legal knock "
                             "(the heuristic played it out); give another deck")
        self._started, self._done = True, False
        return obs[0], self._info(int(self.core.core.learner_player[0]), 0.0, 0.0)

    def _info(self, learner: int, points: float, baseline_points: float) -> dict[str, Any]:
        """The step's info: the same keys on every step, numbers only (``learner`` 0 the team, 1 the box, of
        the hand played; ``result``'s ``points`` and ``baseline_points`` 0 until the hand ends)."""
        return {"action_mask": self.action_masks(), "learner": learner,
                "result": {"points": points, "baseline_points": baseline_points}}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._started or self._done:
            raise ResetNeededError("knock env: step() before reset() or after the hand ended; call reset()")
        obs, rewards, terminated, truncated, extra = self.core.step(np.asarray([action]).reshape(1))
        done = bool(terminated[0] or truncated[0])
        info = self._info(int(self.core.core.learner_player[0]), 0.0, 0.0)
        if done:
            self._done = True
            obs = extra["final_obs"]
            info = self._info(int(extra["learner"][0]), float(extra["points"][0]), float(extra["baseline_points"][0]))
        return obs[0], float(rewards[0]), bool(terminated[0]), bool(truncated[0]), info


ENV_ID = "gin3/ThreeHandedGinKnock-v0"
if ENV_ID not in gym.registry:  # the research env's id, registered when this module is imported
    gym.register(ENV_ID, entry_point=f"{__name__}:KnockLearnerEnv")
