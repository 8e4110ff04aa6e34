"""The Gymnasium match env, ``gin3/ThreeHandedGinMatch-v0``: a whole match an episode.

The learner holds one seat (``learner=0..2`` or ``"random"``, a seat drawn at each reset) and
the opponent policy the other two. Its arguments, spaces, rewards, infos, privileged state and
the rules of illegal actions and hands decided before the learner acts are those of the hand
env, documented once in :mod:`gin3_env.envs.single_agent` (the base class is there too).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.hand import BOX, TEAM
from ..engine.match import MatchState
from ..engine.rules import Rules
from ..engine.view import PlayerView
from ..errors import ResetNeededError
from ..game.driver import run_match
from ..game.policy import Policy
from ..observation.encoding import encode_match, match_side
from ..observation.features import feature_set
from ..observation.layout import MATCH_OBS_SIZE
from ..observation.state import MATCH_STATE_SIZE, encode_match_state
from .aec_base import (
    check_match_options,
    check_options,
    render_frame,
    require_reset,
)
from .errors import DRAWN, check_action_value, check_seed
from .infos import NOT_APPLICABLE, role_codes
from .keywords import takes_rules_options
from .single_agent import _NO_ACTIONS, MAX_REDEALS, _LearnerEnv


class ThreeHandedGinMatchEnv(_LearnerEnv):
    """A whole match: the learner holds one seat, the opponent policy the other two.

    The learner acts whenever its seat is the captain or the box; while it sits out,
    the hand is played between the opponents. Each hand's points go to the learner's
    seat as reward (captain or box, +/-; 0 while sitting out)."""

    @takes_rules_options("ThreeHandedGinMatch-v0")
    def __init__(
        self,
        learner: int | str = DRAWN,
        opponent: Any = "heuristic",
        render_mode: str | None = None,
        reward_scale: float = 1.0,
        illegal_penalty: float = 25.0,
        rules: Rules | None = None,
        render_view: str = "learner",
        features: str = "plain",
        **rule_options: Any,
    ) -> None:
        self.learner_seat = self._check_seat(learner)
        self.feature_set = feature_set(features)
        self._setup(
            self.feature_set.input_size(MATCH_OBS_SIZE),
            MATCH_STATE_SIZE,
            opponent,
            render_mode,
            reward_scale,
            illegal_penalty,
            rules,
            rule_options,
            render_view,
        )
        self.match: MatchState | None = None
        self.skipped_matches: list[dict[str, Any]] = []  # the last reset's, as counted in the info
        self._over_at_reset = False
        self.seat = 0
        self._pending = 0.0

    @staticmethod
    def _check_seat(seat: int | str) -> int | str:
        if isinstance(seat, str) and seat == DRAWN:
            return seat
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not 0 <= seat <= 2:
            raise ValueError(
                f"learner seat must be 0, 1, 2 or 'random' (a seat drawn at each reset; the random policy is "
                f"opponent='random'), got {seat!r}"
            )
        return int(seat)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        options = check_options(options, ("decks", "roles", "scores", "learner"))
        seat = self._check_seat(options.pop("learner", self.learner_seat))
        # every argument is checked before anything changes: a refused reset leaves the env as it was
        decks, roles, scores = check_match_options(options, self.rules)
        super().reset(seed=check_seed(seed))
        self.seat = int(self.np_random.integers(3)) if seat == DRAWN else int(seat)
        self._draw_opponent(seed)
        # A match the opponents finish before the learner's first decision (it sits out and one
        # hand reaches the target) holds nothing to learn: it is reported and another is started,
        # except with given decks, where the episode is then over at reset.
        skipped: list[dict[str, Any]] = []
        while True:
            self.match = MatchState.start(self.rules, rng=self.np_random, roles=roles, scores=scores, decks=decks)
            self._seen = None
            # Points won or lost before the learner's first decision (e.g. the captain knocks at
            # once against the learner's box) are paid with the first step's reward.
            self._pending = self._play_others()
            if not self.match.is_over or decks:
                break
            skipped.append({"scores": list(self.match.scores), "winner": self.match.winner})
            if len(skipped) >= MAX_REDEALS:
                raise RuntimeError(
                    f"the opponents ended {MAX_REDEALS} matches in a row before the learner could act; "
                    "with these rules and scores the learner never plays"
                )
        self._ended = self._over_at_reset = self.match.is_over
        self.skipped_matches = skipped
        return self._obs(), self._info(skipped=len(skipped))

    def step(self, action: int):
        match = require_reset(self.match)
        if self._ended:
            raise ResetNeededError("step() called after the episode ended; call reset()")
        action = check_action_value(action)  # InvalidActionError: not an int of the action space
        if action not in match.hand.legal_actions():
            return self._illegal_step()
        reward, self._pending = self._pending, 0.0
        reward += self._hand_reward(match.hand_roles, match.apply(action))
        self._seen = None
        reward += self._play_others()
        terminated = self._ended = match.is_over
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward * self.reward_scale, terminated, False, self._info()

    def _learner_view(self) -> PlayerView:
        match = require_reset(self.match)
        return match.hand.view(match_side(match, self.seat))

    def _encode(self, view: PlayerView) -> np.ndarray:
        observation = encode_match(require_reset(self.match), self.seat, view)
        return self.feature_set.encode(observation, MATCH_OBS_SIZE) if self.feature_set.extra else observation

    def state(self) -> np.ndarray:
        return encode_match_state(require_reset(self.match))

    def _observed(self) -> tuple[PlayerView, np.ndarray, np.ndarray]:
        view, obs, mask = super()._observed()
        if require_reset(self.match).acting_seat != self.seat:  # the sitter's side acts, not its seat
            mask = _NO_ACTIONS
        return view, obs, mask

    def _viewer(self) -> int | None:
        """The learner's side of the hand until it ends (a sitting-out learner sees the team's side)."""
        match = require_reset(self.match)
        if match.hand.is_over or self.render_view == "table":
            return None
        return BOX if self.seat == match.hand_roles.box else TEAM

    def _table(self) -> str:
        from ..render import render_table

        match = require_reset(self.match)
        return render_table(match.hand, viewer=self._viewer(), roles=match.hand_roles, scores=match.scores)

    def _frame(self) -> np.ndarray:
        match = require_reset(self.match)
        return render_frame(match.hand, self._viewer(), roles=match.hand_roles, scores=list(match.scores))

    def _hand_reward(self, roles: Any, result: Any) -> float:
        if result is None or result.winner is None:
            return 0.0
        if self.seat == roles.sitter:
            return 0.0
        return float(result.returns[TEAM if self.seat == roles.captain else BOX])

    def _play_others(self) -> float:
        """Let the opponents move until the learner must act or the match ends."""
        seats: list[Policy | None] = [self.opponent] * 3
        seats[self.seat] = None
        ended = run_match(require_reset(self.match), seats)
        self._seen = None
        return sum(self._hand_reward(roles, result) for roles, result in ended)

    def _obs(self) -> np.ndarray:
        return self._observed()[1].copy()  # each call returns new data (Gymnasium's checker asks it)

    def _info(self, skipped: int = 0, illegal: bool = False) -> dict[str, Any]:
        match = require_reset(self.match)
        return {
            "action_mask": self._mask().copy(),
            "seat": self.seat,
            "scores": np.asarray(match.scores, dtype=np.int64),
            "roles": role_codes(match.roles),
            "winner": NOT_APPLICABLE if match.winner is None else int(match.winner),
            "illegal_action": illegal,
            "matches_decided_before_learner_acted": skipped,
            "match_over_before_learner_acted": self._over_at_reset,  # only ever True at reset
        }

