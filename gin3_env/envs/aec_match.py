"""
# Three-handed gin rummy ("in the box"): a match

{header}

A whole match of three-handed gin (§3, §7, §8): the three seats
`player_0..2` play hand after hand until a seat's running total reaches
`target_score`. Each hand one seat is in the box, one is the captain and one
sits out. The captain's seat acts for the team and the box's seat for the box;
`agent_selection` only ever points at those two seats (the sitter's action mask
is all zeros). Roles rotate after every hand by §7. One hand is exactly
the hand env `three_handed_gin_v0` (same actions, masks and points).

### Arguments

{signature}

As the hand env: `render_mode` `None`/`"ansi"`/`"human"`/`"rgb_array"`, `reward_scale`, and
`rules=Rules(...)` or the rules options as keywords (not both). `render_view` is `None`
(both hands) or a seat, `"player_0"`..`"player_2"`: every rendering (text and frame) then shows
what that seat sees (the captain and the sitter the team's cards, the box its own).

`reset(seed=None, options=None)`: a seeded reset replays the same match for the
same actions (deals and, unless given, the drawing of roles come from the
env's generator). `options` may hold `"decks"` (a list of decks, each a
permutation of 0..51, dealt to the first hands; later hands are shuffled),
`"roles"` (`{"box": seat, "captain": seat, "sitter": seat}`; otherwise each seat
draws a card: highest rank box, then captain, lowest sitter) and `"scores"`
(three starting totals, all below the target). Any other key or a bad value
is a `ValueError` that says what is wrong.

### Observation Space

`observe(agent)` returns `{"observation": float32[{match_obs}], "action_mask": int8[{actions}]}`.
The first {obs} entries are the hand env's observation of the seat's side of the
current hand: the box's seat sees the box's view; the captain's seat and the
sitter's seat both see the team's view (the sitter advises the captain and
sees his cards; it never sees the box's hidden cards or the stock). Then the
match features. Scores are in seat order starting at the observer: its own,
the next seat's (`(seat + 1) % 3`), the one after.

{observation_table}

#### Legal Actions Mask

The legal actions of the acting seat (the captain's or the box's); all zeros
for the other two seats and once the match is over. With `match_env()` an
illegal action ends the match with reward -1 for the seat that played it.

### Action Space

{action_table}

### Rewards

At the end of each hand its points (§6, times `reward_scale`) go to the
seats that played it: the scoring side's seat gets `+points`, the other side's
seat `-points`, the sitter 0; dead and truncated hands pay 0. (Rewards are
per hand, the running totals are in the infos; the match winner is the seat
whose total first reaches the target.) When a hand ends, every seat's
`infos[seat]` holds, until that seat next acts, numbers only: the hand result as in the hand
env with seats for players (`outcome` code, `knocker` and `winner` seats, `points`,
`knocker_deadwood`, `defender_deadwood`, `knock_discard`, `turns`), `hand_roles` (int
(3,): each seat's role in that hand, 0 captain, 1 box, 2 sitter), `seat_points` (int (3,)),
`scores` (int (3,), the totals), `roles` (each seat's role in the next hand, coded the
same), `hands_played`, `match_over` and `match_winner` (a seat, `-1` until the end).
Every seat's info has these keys on every step from `reset` on, never `None`: no hand
ended since the seat last acted (or a field that does not apply, a dead hand's knocker)
gives `0` for the outcome (in play), `-1` for a seat, a card or a deadwood, `0` points
and turns, `[0, 0, 0]` seat points, the hand in play's roles (the table of codes in
`gin3_env/envs/infos.py`; the text of a hand's end is on `env.unwrapped.match.history`).
At the match end all seats terminate; the last hand's winner is then the match winner,
so `winner == match_winner`.

### State

`env.state()` (`env.state_space`: `Box(0, 1, ({match_state},), float32)`) is the hand env's
privileged state of the hand in play (both hands, the stock in order, ...), then the
roles it is played with (the seat of the box, the captain, the sitter) and the three
totals / `target_score` in seat order. For centralised critics and diagnosis only:
never part of an observation.

### Version History

* v0: first release (gin3_env 0.1.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from ..engine.hand import BOX, TEAM, HandState
from ..engine.match import NUM_SEATS, MatchState, Roles
from ..engine.result import HandResult
from ..engine.rules import Rules
from ..observation.encoding import observe_match
from ..observation.layout import MATCH_OBS_SIZE
from ..observation.state import MATCH_STATE_SIZE, encode_match_state
from .aec_base import (
    GinAECEnv,
    check_match_options,
    check_options,
    render_frame,
    render_text,
    require_reset,
)
from .docstrings import action_table, fill, header_table, observation_table, signature_block
from .infos import NOT_APPLICABLE, result_info, role_codes
from .keywords import factory_of, takes_rules_options
from .wrapping import wrap

SEATS = tuple(f"player_{seat}" for seat in range(NUM_SEATS))

__all__ = ["SEATS", "env", "raw_env"]


class raw_env(GinAECEnv):  # PettingZoo names the unwrapped env class raw_env
    """A match of three-handed gin between three seats. See the module docstring."""

    AGENTS = SEATS
    OBS_SIZE = MATCH_OBS_SIZE
    STATE_SIZE = MATCH_STATE_SIZE
    metadata = {**GinAECEnv.metadata, "name": "three_handed_gin_match_v0"}

    @takes_rules_options("three_handed_gin_match_v0")
    def __init__(
        self,
        render_mode: str | None = None,
        reward_scale: float = 1.0,
        rules: Rules | Mapping[str, Any] | None = None,
        render_view: str | None = None,
        **rule_options: Any,
    ) -> None:
        super().__init__(render_mode, reward_scale, rules, render_view, **rule_options)
        self.match: MatchState | None = None
        self._rewards_set = False

    # ---------------------------------------------------------------- API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # every option is checked before anything changes: a refused reset leaves the env as it was
        opts = check_options(options, ("decks", "roles", "scores"))
        decks, roles, scores = check_match_options(opts, self.rules)
        self._start(seed)
        self.match = MatchState.start(self.rules, rng=self._rng, roles=roles, scores=scores, decks=decks)
        self._rewards_set = False
        self.infos = {agent: self._blank_info() for agent in SEATS}
        seat = self.match.acting_seat
        assert seat is not None
        self.agent_selection = SEATS[seat]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return observe_match(require_reset(self.match), self._index(agent))

    def _play(self, action: int) -> None:
        agent = self.agent_selection
        match = require_reset(self.match)
        roles, hand = match.hand_roles, match.hand
        result = match.apply(action)  # raises IllegalActionError (a ValueError), changing nothing
        if self._rewards_set:
            self._clear_rewards()
            self._rewards_set = False
        self._cumulative_rewards[agent] = 0.0
        if self.infos[agent]["outcome"]:  # the last hand's result is cleared when the seat acts
            self.infos[agent] = self._blank_info()
        if result is not None:
            self._hand_over(result, roles, hand.turns)
        seat = match.acting_seat
        if seat is not None:
            self.agent_selection = SEATS[seat]
        else:  # the match is over: every seat steps once more (with None), the next seat first
            self.agent_selection = SEATS[(self._index(agent) + 1) % NUM_SEATS]
        if self.render_mode == "human":
            self.render()

    def _hand_over(self, result: HandResult, roles: Roles, turns: int) -> None:
        match = require_reset(self.match)
        returns = result.returns
        self.rewards[SEATS[roles.captain]] = returns[TEAM] * self.reward_scale
        self.rewards[SEATS[roles.box]] = returns[BOX] * self.reward_scale
        self.rewards[SEATS[roles.sitter]] = 0.0
        self._rewards_set = True
        self._accumulate_rewards()
        info = self._info_of(result, roles, turns, list(match.history[-1]["seat_points"]))
        over = match.is_over
        for agent in SEATS:
            self.infos[agent] = dict(info)
            if over:
                self.terminations[agent] = True

    def _info_of(self, result: HandResult | None, roles: Roles, turns: int, seat_points: list[int]) -> dict[str, Any]:
        """A seat's info in the one schema of the module doc."""
        match = require_reset(self.match)
        info = result_info(result, (roles.captain, roles.box))
        info.update(
            {
                "turns": turns,
                "hand_roles": role_codes(roles),
                "seat_points": np.asarray(seat_points, dtype=np.int64),
                "scores": np.asarray(match.scores, dtype=np.int64),
                "roles": role_codes(match.roles),
                "hands_played": len(match.history),
                "match_over": match.is_over,
                "match_winner": NOT_APPLICABLE if match.winner is None else int(match.winner),
            }
        )
        return info

    def _blank_info(self) -> dict[str, Any]:
        """No hand has ended since the seat last acted: the result fields hold their sentinels."""
        match = require_reset(self.match)
        return self._info_of(None, match.hand_roles, 0, [0] * NUM_SEATS)

    def _state(self) -> np.ndarray:
        return encode_match_state(require_reset(self.match))

    def _side(self, agent: str | None) -> int | None:
        """The side a seat sees: the captain and the sitter the team's, the box its own (None: both)."""
        return None if agent is None else (BOX if self._index(agent) == require_reset(self.match).hand_roles.box
                                           else TEAM)

    def _table(self) -> str:  # from render_view's side, as the frame: its hidden cards never printed
        match = require_reset(self.match)
        return render_text(match.hand, self._side(self.render_view), roles=match.hand_roles,
                           scores=list(match.scores), seat_names=SEATS)

    def frame(self, agent: str | None = None) -> np.ndarray:
        """The frame from a seat's side: the captain's and the sitter's see the team's cards,
        the box's its own; ``None`` shows both hands."""
        match = require_reset(self.match)
        return render_frame(match.hand, self._side(agent), roles=match.hand_roles, scores=list(match.scores),
                            seat_names=SEATS)

    # ------------------------------------------------------------- extras
    @property
    def hand(self) -> HandState | None:
        """The hand in play (the last one once the match is over)."""
        return None if self.match is None else self.match.hand

    @property
    def roles(self) -> Roles | None:
        """The roles of :attr:`hand`."""
        return None if self.match is None else self.match.hand_roles


@factory_of(raw_env, "The match env wrapped as PettingZoo's classic envs are (see the module docstring).")
def env(**kwargs: Any) -> AECEnv:
    return wrap(raw_env(**kwargs))


__doc__ = fill(
    __doc__,
    header=header_table(
        '`from gin3_env import match_env` or `pettingzoo.make("aec", "gin3/three_handed_gin_match-v0")`', SEATS,
        MATCH_OBS_SIZE),
    signature=signature_block("match_env", raw_env),
    observation_table=observation_table(match=True),
    action_table=action_table(),
)
