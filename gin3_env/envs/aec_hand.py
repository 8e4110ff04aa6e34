"""
# Three-handed gin rummy ("in the box"): one hand

{header}

Gin rummy for three players, two of whom play as a team against the player
"in the box" (docs/rules.md). In a hand the team's cards are played by the captain
(the sitter only advises), so the team is one agent, `team_0`, against the box,
`box_0`. The captain is offered the upcard first; the hand ends with a knock, a
gin, a dead stock (two cards left after a discard) or at the `max_turns` cap.
The match to the target score is the sibling env `three_handed_gin_match_v0`.

### Arguments

{signature}

`render_mode`: `None`, `"ansi"` (`render()` returns the table as text, cards as `7♠`),
`"human"` (prints it after every reset and step) or `"rgb_array"` (`render()` returns
the table as a `uint8` frame of shape `(640, 960, 3)`, drawn off screen with Pillow).

`render_view`: whose side every rendering shows (the `ansi`/`human` text and the `rgb_array`
frame): `None` (both hands, for spectators), `"team_0"` or `"box_0"` (that agent's cards, the
other's face down but for the cards it took from the pile). `env.unwrapped.frame(agent)` draws any side.

`reward_scale`: factor on the game points paid as rewards (e.g. `0.01`).

`rules`: a `gin3_env.Rules`; or the rules options as keywords (`gin_bonus`,
`undercut_bonus`, `knock_limit`, `target_score`, `dead_stock`,
`allow_discard_taken_card`, `max_turns`; the rule book's values by default), not both.
An unknown keyword is a `TypeError` (`UnknownKeywordError`) that names it and the closest known one.

`reset(seed=None, options=None)`: a seeded reset deals the same hand every time;
an unseeded one continues the env's random generator. `options` may hold
`"deck"`: a permutation of 0..51 dealt as §4.3 (captain `d[0], d[2], ...`,
box `d[1], d[3], ...`, upcard `d[20]`, stock drawn from `d[21]` on). Any other key,
or a bad deck, is a `ValueError` saying what is wrong.

### Observation Space

`observe(agent)` returns `{"observation": float32[{obs}], "action_mask": int8[{actions}]}`.
The observation holds only what the agent may know, from its own side: never
the opponent's hidden cards, never the stock order. Cards are indexed
`suit * 13 + rank` (suits C D H S, ranks A..K), so each card feature is a
52-entry plane.

{observation_table}

#### Legal Actions Mask

`action_mask` is 1 for each legal action of the agent to act and all zeros for
the other agent and once the hand is over. It is the engine's one legality
function (`HandState.legal_mask`). With `env()`, an illegal action ends the
hand with reward -1 for the agent that played it (PettingZoo's
`TerminateIllegalWrapper`); `raw_env()` raises `ValueError` and changes nothing.

### Action Space

{action_table}

### Rewards

Zero-sum game points (times `reward_scale`), paid when the hand ends:

| end of hand                               | scorer                    | other                     |
|-------------------------------------------|---------------------------|---------------------------|
| gin (knocker's deadwood 0)                | +(gin_bonus + D)          | -(gin_bonus + D)          |
| knock, knocker's K < defender's D         | knocker +(D - K)          | defender -(D - K)         |
| undercut (K >= D, not gin)                | defender +(undercut_bonus + K - D) | knocker -(same)  |
| dead hand / truncated at `max_turns`      | 0                         | 0                         |

Gin, knock, undercut and dead hands set `terminations`; the `max_turns` cap sets
`truncations`. At the end `infos[agent]` holds the result, in numbers only (so that
tensor libraries take the infos): `outcome` (a code: 1 gin, 2 knock, 3 undercut, 4 dead,
5 truncated), `knocker` and `winner` (0 `team_0`, 1 `box_0`), `points`,
`knocker_deadwood`, `defender_deadwood`, `knock_discard` (a card, `suit * 13 + rank`),
`turns`. The infos have these keys on every step from `reset` on, never `None`:
before the end, and where a field does not apply (a dead hand's knocker), `0` for
the outcome (in play), `-1` for a player, a card or a deadwood, `0` points (the table of
codes in `gin3_env/envs/infos.py`). The text (the outcome's name, the spreads and layoffs)
is on `env.unwrapped.result`, the engine's
`HandResult`, `env.unwrapped.replay_log()` a JSON-able record (rules, deck,
actions) that `replay(log)` plays back to the same end.

### State

`env.state()` (PettingZoo's convention; `env.state_space` is `Box(0, 1, ({state},), float32)`)
is what a full-information observer knows: both hands, the stock in draw order, the
discard pile, the known and declined cards of both, phase and who is to act (layout in
`gin3_env.observation.state`). It is privileged: for centralised critics and diagnosis,
never part of an observation, never read by a policy at play time.

### Version History

* v0: first release (gin3_env 0.1.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from ..engine.hand import HandState, check_deck
from ..engine.result import HandResult
from ..engine.rules import Rules
from ..observation.encoding import action_mask, encode
from ..observation.layout import OBS_SIZE
from ..observation.state import STATE_SIZE, encode_state
from .aec_base import GinAECEnv, check_options, make_rules, render_frame, render_text, require_reset
from .docstrings import action_table, fill, header_table, observation_table, signature_block
from .infos import result_info
from .keywords import factory_of, takes_rules_options
from .wrapping import ActionSpace, wrap

AGENTS = ("team_0", "box_0")  # indexed by the engine's hand player (TEAM, BOX)

__all__ = ["AGENTS", "ActionSpace", "env", "make_rules", "raw_env", "replay", "result_info", "wrap"]


class raw_env(GinAECEnv):  # PettingZoo names the unwrapped env class raw_env
    """One hand of three-handed gin: the team (captain) against the box. See the module docstring."""

    AGENTS = AGENTS
    OBS_SIZE = OBS_SIZE
    STATE_SIZE = STATE_SIZE
    metadata = {**GinAECEnv.metadata, "name": "three_handed_gin_v0"}

    @takes_rules_options("three_handed_gin_v0")
    def __init__(
        self,
        render_mode: str | None = None,
        reward_scale: float = 1.0,
        rules: Rules | Mapping[str, Any] | None = None,
        render_view: str | None = None,
        **rule_options: Any,
    ) -> None:
        super().__init__(render_mode, reward_scale, rules, render_view, **rule_options)
        self.hand: HandState | None = None

    # ---------------------------------------------------------------- API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        opts = check_options(options, ("deck",))
        deck = opts.get("deck")
        if deck is not None:
            deck = check_deck(deck)
        self._start(seed)
        self.hand = HandState.deal(self.rules, deck=deck, rng=self._rng)
        self.agent_selection = AGENTS[self.hand.player]
        blank = {**result_info(None), "turns": 0}  # one schema from the first step (infos.py)
        self.infos = {agent: dict(blank) for agent in AGENTS}
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        hand = require_reset(self.hand)
        view = hand.view(self._index(agent))  # built once: the observation and the mask both come from it
        return {"observation": encode(view), "action_mask": action_mask(view)}

    def _play(self, action: int) -> None:
        agent = self.agent_selection
        hand = require_reset(self.hand)
        result = hand.apply(action)  # raises IllegalActionError (a ValueError), changing nothing
        self._cumulative_rewards[agent] = 0.0
        if result is None:
            self.agent_selection = AGENTS[hand.player]
        else:
            self._finish(result, agent)
        if self.render_mode == "human":
            self.render()

    def _finish(self, result: HandResult, last_agent: str) -> None:
        returns = result.returns
        for p, agent in enumerate(AGENTS):
            self.rewards[agent] = returns[p] * self.reward_scale
        ended = self.truncations if result.outcome == "truncated" else self.terminations
        info = result_info(result)
        info["turns"] = require_reset(self.hand).turns
        for agent in AGENTS:
            ended[agent] = True
            self.infos[agent] = dict(info)
        self._accumulate_rewards()
        # The opponent of the last mover steps (with None) first, then the last mover.
        self.agent_selection = AGENTS[1 - self._index(last_agent)]

    def _state(self) -> np.ndarray:
        return encode_state(require_reset(self.hand))

    def _table(self) -> str:  # from render_view's side, as the frame: its hidden cards never printed
        view = None if self.render_view is None else self._index(self.render_view)
        return render_text(require_reset(self.hand), viewer=view)

    def frame(self, agent: str | None = None) -> np.ndarray:
        hand = require_reset(self.hand)
        return render_frame(hand, None if agent is None else self._index(agent))

    # ------------------------------------------------------------- extras
    @property
    def result(self) -> HandResult | None:
        """The engine's result of the hand once it is over, else None."""
        return None if self.hand is None else self.hand.result

    def replay_log(self) -> dict[str, Any]:
        """JSON-able record of the hand so far (rules, deck, actions); see :func:`replay`."""
        return require_reset(self.hand).log()


@factory_of(raw_env, "The hand env wrapped as PettingZoo's classic envs are (see the module docstring).")
def env(**kwargs: Any) -> AECEnv:
    return wrap(raw_env(**kwargs))


def replay(log: Mapping[str, Any], *, render_mode: str | None = None, reward_scale: float = 1.0) -> raw_env:
    """A ``raw_env`` that has played the logged hand (``raw_env.replay_log()``) through ``step``.

    Its ``result``, ``rewards``, ``infos`` and observations are those of the original
    hand at the same point. A log that is not a hand log, or holds an action that is
    not legal where it is played, is a ``ValueError``."""
    if not isinstance(log, Mapping) or "deck" not in log or "actions" not in log:
        raise ValueError("a hand log is a dict with 'deck' and 'actions' (from env.unwrapped.replay_log())")
    rules = log.get("rules") or {}
    if not isinstance(rules, Mapping):
        raise ValueError(f"hand log 'rules' must be a dict, got {type(rules).__name__}")
    aec = raw_env(render_mode=render_mode, reward_scale=reward_scale, rules=Rules.from_dict(dict(rules)))
    aec.reset(options={"deck": log["deck"]})
    actions = log["actions"]
    if isinstance(actions, str | bytes) or not isinstance(actions, Sequence):
        raise ValueError(f"hand log 'actions' must be a list of ints, got {type(actions).__name__}")
    for i, action in enumerate(actions):
        if aec.hand is not None and aec.hand.is_over:
            raise ValueError(f"hand log action #{i}: the hand is already over")
        try:
            aec.step(action)
        except ValueError as exc:
            raise ValueError(f"hand log action #{i}: {exc}") from None
    return aec


__doc__ = fill(
    __doc__,
    header=header_table('`from gin3_env import env` or `pettingzoo.make("aec", "gin3/three_handed_gin-v0")`', AGENTS,
                        OBS_SIZE, "No (`gin3 play` plays against a policy in the terminal)"),
    signature=signature_block("env", raw_env),
    observation_table=observation_table(),
    action_table=action_table(),
)
