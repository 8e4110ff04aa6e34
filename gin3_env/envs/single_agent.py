"""Gymnasium single-agent environments: a learner against built-in or given opponents.

``gin3/ThreeHandedGin-v0`` (one hand an episode: :class:`ThreeHandedGinEnv`, here, with the
base class of both) and ``gin3/ThreeHandedGinMatch-v0`` (a whole match an episode:
:class:`~gin3_env.envs.single_agent_match.ThreeHandedGinMatchEnv`). The opponent moves inside ``step`` until it is the
learner's turn again, so the learner only sees its own decisions.

| | |
|---|---|
| Import | ``gymnasium.make("gin3/ThreeHandedGin-v0")`` after ``import gin3_env`` |
| Observation | ``Box(0, 1, ({obs},), float32)`` (match: ``({match_obs},)``); layout in ``observation/layout.py`` |
| Actions | ``Discrete({actions})``: {action_ids} |
| Action mask | ``env.action_masks()`` and ``info["action_mask"]``, one bool ({actions},) array; all True at the end |
| State | ``env.unwrapped.state()`` in ``env.unwrapped.state_space`` ({state}; match {match_state}): privileged |
| Reward | the learner's game points at the end of a hand times ``reward_scale`` |

Arguments
- ``learner``: ``"team"`` (captain), ``"box"`` or ``"random"`` (a role drawn at each reset; the
  default). The match env takes the learner's seat ``0..2`` or ``"random"`` (a seat drawn at each
  reset, the default): one spelling for a learner drawn at each reset, in both envs.
- ``opponent``: ``"random"``, ``"heuristic"``, ``"gated"``, a saved model's path, an object with
  ``act(observation_dict) -> int``, or a list of these (one is drawn at each reset).
  ``set_opponent(...)`` swaps it later (also through ``VecEnv.env_method``); the pool is
  :class:`~gin3_env.envs.opponents.OpponentPool`. ``reset(seed=...)`` seeds the random
  opponents the env made (by name, also inside a pool) from the seed, so a seeded episode repeats.
- ``features``: ``"plain"`` (the default: the observation above) or ``"augmented"`` (the derived
  card features after it: ``Box(0, 1, ({aug},))``, match ``({match_aug},)``), the values of ``gin3 train``'s
  config, so a model ``gin3 train`` wrote evaluates with SB3's own tools on
  ``gymnasium.make(id, features=...)`` (docs/training.md). ``gymnasium.make_vec`` takes it too.
- Duplicate rewards (the learner's points minus a baseline policy's on the same deal) are a
  training-side wrapper: :class:`gin3_training.ppo.duplicate.DuplicateReward`.
- ``reward_scale`` (default 1.0), ``illegal_penalty`` (default 25.0, game points >= 0),
  ``rules=Rules(...)`` or the rules options as keywords (``knock_limit=5``; the signature lists
  them), ``render_mode`` ``"ansi"``/``"human"`` (the table as text) or ``"rgb_array"`` (a
  ``uint8`` ``(640, 960, 3)`` frame; what Gymnasium's ``RecordVideo`` records). Every mode
  shows the learner's view, the opponent's hidden cards face down, until the hand ends, then
  the whole table; ``render_view="table"`` shows both hands throughout (a spectator's view,
  for debugging).

A keyword the env does not take is a ``TypeError`` (``UnknownKeywordError``) naming it, the env and the closest known
keyword. An action outside ``0..{last_action}`` (or not an integer) raises ``ValueError`` naming it.
An illegal action (the env checkers send unmasked samples) is not played: the episode
ends at once (``terminated=True``) with reward ``-illegal_penalty * reward_scale`` and
``info["illegal_action"] = True``. Dead and truncated hands score 0; a hand stopped at
``max_turns`` is reported as ``truncated=True``.

``reset(options=...)`` takes ``"deck"`` (hand env) or ``"decks"``/``"roles"``/``"scores"``
(match env), and ``"learner"`` to fix the learner's role for that episode.

Infos: one schema, the same keys on every step from ``reset`` on, numbers only, never ``None``
(so that Gymnasium's vector envs and ``NumpyToTorch``, Tianshou's buffers and TorchRL's info
readers stack them):

| key | hand env | match env |
|---|---|---|
| ``action_mask`` | bool ({actions},), as ``action_masks()`` | the same |
| ``learner`` / ``seat`` | int: 0 the team, 1 the box (as the vector env's) | the learner's seat, 0..2 |
| ``result`` | the hand's result (below); ``outcome`` ``0`` while the hand is played | |
| ``scores``, ``roles`` | | int (3,): the totals; each seat's role in the next hand (0 captain, 1 box, 2 sitter) |
| ``winner`` | | the match winner's seat, ``-1`` until the match ends |
| ``illegal_action`` | True on the step an illegal action ended | the same |
| ``hands_decided_before_learner_acted`` / ``matches_...`` | how many (see below), 0 but at ``reset`` | the same |
| ``match_over_before_learner_acted`` | | True at ``reset`` with decks whose match is over at once |

The result's fields are ``outcome`` (a code: 1 gin, 2 knock, 3 undercut, 4 dead, 5 truncated),
``knocker`` and ``winner`` (0 the team, 1 the box), ``points``, both deadwoods and
``knock_discard`` (a card); one that does not apply (a dead hand's knocker, the hand in play)
holds a sentinel: ``0`` for the outcome, ``-1`` for a player, a card or a deadwood, ``0`` points
(the table of codes in ``gin3_env/envs/infos.py``). The text (the outcome's name, the spreads)
is on ``env.unwrapped.result``, the engine's ``HandResult``.

The privileged state (:mod:`gin3_env.observation.state`: both hands, the stock in order, the
pile, phase, to-act; in the match the roles and the totals) is ``env.unwrapped.state()``, with
``env.unwrapped.state_space``; a method, not an info key, so that it never reaches a learner
by way of the infos. For centralised critics and diagnosis only: never part of an observation.

An episode is a hand (a match) in which the learner decides at least once:
a hand that the opponent ends before that (the captain takes the upcard and knocks
at once against a learning box) is counted in
``info["hands_decided_before_learner_acted"]`` (their results, ``HandResult.to_dict()``, in
``env.unwrapped.skipped_hands``)
and another hand is dealt, except
with a given deck, where the episode is then over at reset. In the match env the
points of such a hand are paid with the learner's next step, and a match the opponents
finish before the learner acts is counted in ``info["matches_decided_before_learner_acted"]``
(listed in ``env.unwrapped.skipped_matches``) and started again (with given decks it is over at reset).

Version history
| version | change |
|---|---|
| v0 | first release |
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..engine.actions import NUM_ACTIONS
from ..engine.hand import BOX, PLAYER_NAMES, TEAM, HandState, check_deck
from ..engine.result import HandResult
from ..engine.rules import Rules
from ..engine.view import PlayerView
from ..errors import ResetNeededError
from ..game.driver import run_hand
from ..game.policy import Policy
from ..observation.encoding import action_mask, encode
from ..observation.features import feature_set
from ..observation.state import STATE_SIZE, encode_state
from .aec_base import (
    RENDER_MODES,
    check_options,
    check_render_mode,
    check_reward_scale,
    make_rules,
    render_frame,
    render_in_mode,
    require_reset,
)
from .docstrings import action_ids, fill
from .errors import DRAWN, check_action_value, check_illegal_penalty, check_learner_role, check_seed
from .infos import result_info
from .keywords import takes_rules_options
from .opponents import OpponentPool

RENDER_VIEWS = ("learner", "table")
MAX_REDEALS = 1000
_NO_ACTIONS = np.zeros(NUM_ACTIONS, dtype=bool)
_NO_ACTIONS.flags.writeable = False
# a terminal observation's mask: any action (none is played), so a masked sampler never sees an empty one
_ANY_ACTION = np.ones(NUM_ACTIONS, dtype=bool)
_ANY_ACTION.flags.writeable = False


def result_fields(result: Any) -> dict[str, Any]:
    """A hand's result in the infos' one schema (``envs/infos.py``; ``None``: the hand in play)."""
    return result_info(result)


class _LearnerEnv(gym.Env):
    """What both single-agent envs share: settings, the opponent pool, illegal actions, rendering."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def _setup(
        self,
        obs_size: int,
        state_size: int,
        opponent: Any,
        render_mode: str | None,
        reward_scale: float,
        illegal_penalty: float,
        rules: Rules | None,
        rule_options: dict[str, Any],
        render_view: str = "learner",
    ) -> None:
        self.rules = make_rules(rules, rule_options)
        self.render_mode = check_render_mode(render_mode)
        if render_view not in RENDER_VIEWS:
            raise ValueError(f"render_view must be 'learner' (the default) or 'table' (both hands), "
                             f"got {render_view!r}")
        self.render_view = render_view
        self.reward_scale = check_reward_scale(reward_scale)
        self.illegal_penalty = check_illegal_penalty(illegal_penalty)
        self.observation_space = spaces.Box(0.0, 1.0, (obs_size,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.state_space = spaces.Box(0.0, 1.0, (state_size,), np.float32)
        self.set_opponent(opponent)
        self._ended = False
        self._seen: tuple[PlayerView, np.ndarray, np.ndarray] | None = None  # the learner's, this step

    def _learner_view(self) -> PlayerView:
        raise NotImplementedError

    def _observed(self) -> tuple[PlayerView, np.ndarray, np.ndarray]:
        """The learner's view, observation and mask, built once per state (``_seen`` is
        cleared whenever the state moves)."""
        if self._seen is None:
            view = self._learner_view()
            mask = action_mask(view).astype(bool) if view.is_acting else _NO_ACTIONS
            self._seen = (view, self._encode(view), mask)
        return self._seen

    def _encode(self, view: PlayerView) -> np.ndarray:
        raise NotImplementedError

    def learner_view(self) -> PlayerView:
        """What the learner knows now (a :class:`~gin3_env.engine.PlayerView`)."""
        return self._observed()[0]

    def _mask(self) -> np.ndarray:
        """The learner's legal actions; all True once the episode is over (docs/design.md §5:
        a terminal observation's mask is all True in every Gymnasium door, as the batched core's)."""
        return _ANY_ACTION if self._ended else self._observed()[2]

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (sb3-contrib's MaskablePPO reads it); all True
        at a terminal observation (any action is ignored there)."""
        return self._mask().copy()

    def state(self) -> np.ndarray:
        """The privileged state (see the module doc), inside ``state_space``; never an observation."""
        raise NotImplementedError

    def _obs(self) -> np.ndarray:
        raise NotImplementedError

    def _info(self, skipped: int = 0, illegal: bool = False) -> dict[str, Any]:
        """The step's info, the same keys on every step (the module doc)."""
        raise NotImplementedError

    def _table(self) -> str:
        raise NotImplementedError

    def _frame(self) -> np.ndarray:
        raise NotImplementedError

    def render(self) -> str | np.ndarray | None:
        # without a render mode: Gymnasium's behaviour (a warning through gymnasium.logger, and None), as the AEC envs
        return render_in_mode(self.render_mode, self._frame, self._table)

    def set_opponent(self, opponent: Any, weights: Sequence[float] | None = None) -> None:
        """One opponent, or a pool (list) drawn from at each reset, uniformly or by ``weights``."""
        # a random opponent is seeded from the env (a seeded run repeats); a bad one raises
        # before anything changes
        self._pool = OpponentPool(opponent, weights, self.np_random, self.rules)
        self.opponent: Policy = self._pool.policies[0]

    def _illegal_step(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """End the episode on an unplayable action, with the documented penalty."""
        self._ended = True
        info = self._info(illegal=True)
        return self._obs(), -self.illegal_penalty * self.reward_scale, True, False, info

    def _draw_opponent(self, seed: int | None) -> None:
        """The episode's opponent; with a ``seed`` the pool's random opponents are seeded from it first
        (so a seeded reset repeats for every opponent kind)."""
        if seed is not None:
            self._pool.reseed(seed)
            self.opponent = self._pool.policies[0]
        if len(self._pool) > 1:
            self.opponent = self._pool.draw(self.np_random)


class ThreeHandedGinEnv(_LearnerEnv):
    """One hand of three-handed gin, the learner against an opponent policy (see module doc)."""

    @takes_rules_options("ThreeHandedGin-v0")
    def __init__(
        self,
        learner: str = DRAWN,
        opponent: Any = "heuristic",
        render_mode: str | None = None,
        reward_scale: float = 1.0,
        illegal_penalty: float = 25.0,
        rules: Rules | None = None,
        render_view: str = "learner",
        features: str = "plain",
        **rule_options: Any,
    ) -> None:
        self.learner_role = check_learner_role(learner)
        self.feature_set = feature_set(features)
        self._setup(
            self.feature_set.size, STATE_SIZE, opponent, render_mode, reward_scale, illegal_penalty, rules,
            rule_options, render_view,
        )
        self.hand: HandState | None = None
        self.skipped_hands: list[dict[str, Any]] = []  # the last reset's results, as counted in the info
        self.player = TEAM

    # ------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        # every argument is checked before anything changes: a refused reset leaves the env as it was
        options = check_options(options, ("deck", "learner"))
        deck = options.get("deck")
        if deck is not None:
            deck = check_deck(deck)
        role = check_learner_role(options.get("learner", self.learner_role))
        super().reset(seed=check_seed(seed))
        if role == DRAWN:
            role = PLAYER_NAMES[int(self.np_random.integers(2))]
        self.player = TEAM if role == "team" else BOX
        self._draw_opponent(seed)
        # A hand the opponent ends before the learner's first decision (the captain takes
        # the upcard and knocks at once against a learning box) holds nothing to learn:
        # it is reported in the info and another is dealt. With a given deck it is not
        # redealt: the episode is over at once (``action_masks()`` all True, as at every end).
        skipped: list[dict[str, Any]] = []
        while True:
            self.hand = HandState.deal(self.rules, deck=deck, rng=self.np_random)
            self._seen = None
            self._play_opponent()
            if not self.hand.is_over or deck is not None:
                break
            assert self.hand.result is not None
            skipped.append(self.hand.result.to_dict())  # the text, as people read it
            if len(skipped) >= MAX_REDEALS:
                raise RuntimeError(
                    f"the opponent ended {MAX_REDEALS} hands in a row before the learner could act; "
                    "with these rules and this opponent the learner never plays"
                )
        self._ended = self.hand.is_over
        self.skipped_hands = skipped
        return self._obs(), self._info(skipped=len(skipped))

    def step(self, action: int):
        hand = require_reset(self.hand)
        if self._ended:
            raise ResetNeededError("step() called after the episode ended; call reset()")
        action = check_action_value(action)  # InvalidActionError: not an int of the action space
        if action not in hand.legal_actions():
            return self._illegal_step()
        hand.apply(action)
        self._seen = None
        self._play_opponent()
        return self._finish_step()

    def _learner_view(self) -> PlayerView:
        return require_reset(self.hand).view(self.player)

    @property
    def result(self) -> HandResult | None:
        """The engine's result of the hand once it is over (the infos' text: outcome, spreads), else None."""
        return None if self.hand is None else self.hand.result

    def _encode(self, view: PlayerView) -> np.ndarray:
        observation = encode(view)
        return self.feature_set.encode_view(view, observation) if self.feature_set.extra else observation

    def state(self) -> np.ndarray:
        return encode_state(require_reset(self.hand))

    def _viewer(self) -> int | None:
        """Whose side the renderings show: the learner's until the hand ends (see the module doc)."""
        hand = require_reset(self.hand)
        return None if hand.is_over or self.render_view == "table" else self.player

    def _table(self) -> str:
        from ..render import render_table

        return render_table(require_reset(self.hand), viewer=self._viewer())

    def _frame(self) -> np.ndarray:
        return render_frame(require_reset(self.hand), self._viewer())

    # ------------------------------------------------------------ helpers
    def _play_opponent(self) -> None:
        seats: list[Policy | None] = [None, None]
        seats[1 - self.player] = self.opponent
        run_hand(require_reset(self.hand), seats)
        self._seen = None

    def _finish_step(self):
        hand = require_reset(self.hand)
        reward, terminated, truncated = 0.0, False, False
        if hand.is_over:
            result = hand.result
            assert result is not None
            reward = result.returns[self.player] * self.reward_scale
            truncated = result.outcome == "truncated"
            terminated = not truncated
            self._ended = True
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, terminated, truncated, self._info()

    def _obs(self) -> np.ndarray:
        return self._observed()[1].copy()  # each call returns new data (Gymnasium's checker asks it)

    def _info(self, skipped: int = 0, illegal: bool = False) -> dict[str, Any]:
        hand = require_reset(self.hand)
        return {
            "action_mask": self._mask().copy(),
            "learner": int(self.player),
            "result": result_fields(hand.result),
            "illegal_action": illegal,
            "hands_decided_before_learner_acted": skipped,
        }


__doc__ = fill(__doc__, action_ids=action_ids())
