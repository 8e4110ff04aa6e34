"""What the AEC hand and match environments share: argument checks and plumbing.

The helpers check the constructor and ``reset`` arguments the same way in every
environment of the package (the Gymnasium ones use them too), and render in each mode
(text, and ``rgb_array`` frames drawn by :mod:`gin3_env.render.frame`). :class:`GinAECEnv`
holds what the hand and the match env share: the constructor, the spaces (cached per
agent, ``state_space`` too), the per-agent bookkeeping of ``reset``, the checks of ``step``
(then a subclass's ``_play``, which the wrapped env's fast path calls directly once its
wrappers have checked the action), ``state()`` and ``render()``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine.actions import NUM_ACTIONS
from ..engine.hand import HandState, check_deck
from ..engine.match import Roles, check_scores
from ..engine.rules import Rules
from ..errors import InvalidActionError, ResetNeededError
from .errors import agent_index, check_action_value, check_seed, unknown_agent
from .wrapping import ActionSpace

RENDER_MODES = ("ansi", "human", "rgb_array")


def make_rules(rules: Rules | Mapping[str, Any] | None, options: Mapping[str, Any]) -> Rules:
    """The rules from ``rules=`` (a ``Rules`` or a mapping) or keyword options, not both."""
    if rules is not None and options:
        raise ValueError(
            f"pass either rules=Rules(...) or rules options as keywords, not both (got {sorted(options)})"
        )
    if rules is None:
        return Rules.from_dict(dict(options))
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, Mapping):
        return Rules.from_dict(dict(rules))
    raise ValueError(f"rules must be a gin3_env.Rules or a dict of options, got {type(rules).__name__}")


class UnsupportedRenderModeError(ValueError, TypeError):
    """A render mode these envs do not offer.

    Also a ``TypeError``: stable-baselines3's ``make_vec_env`` asks every env id for
    ``render_mode="rgb_array"`` and retries without it on a ``TypeError`` only."""


def check_render_mode(render_mode: str | None) -> str | None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise UnsupportedRenderModeError(
            f"render_mode must be None or one of {list(RENDER_MODES)}, got {render_mode!r}"
        )
    return render_mode


def check_reward_scale(reward_scale: float) -> float:
    if isinstance(reward_scale, bool) or not isinstance(reward_scale, int | float | np.number):
        raise ValueError(f"reward_scale must be a number, got {reward_scale!r}")
    value = float(reward_scale)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"reward_scale must be a finite number > 0, got {reward_scale!r}")
    return value


API_TEST_PROBE = "options"


def check_options(options: Mapping[str, Any] | None, known: Sequence[str]) -> dict[str, Any]:
    """``reset`` options as a dict; an unknown key is a ``ValueError`` naming it.

    One key is let through and ignored: PettingZoo's ``api_test`` checks that ``reset``
    takes ``options`` by calling ``reset(seed=0, options={"options": 1})``."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
    options = {key: value for key, value in options.items() if key != API_TEST_PROBE}
    unknown = [key for key in options if key not in known]
    if unknown:
        raise ValueError(
            f"unknown reset option(s) {', '.join(repr(k) for k in unknown)}; known: {', '.join(known)}"
        )
    return dict(options)


def check_match_options(
    options: Mapping[str, Any], rules: Rules
) -> tuple[list[list[int]], Roles | None, list[int] | None]:
    """The ``decks``, ``roles`` and ``scores`` of a match env's reset options, each checked as
    ``MatchState.start`` takes it (a bad one is a ``ValueError`` naming it), so that a reset
    refuses them before anything changes."""
    decks = options.get("decks")
    checked: list[list[int]] = []
    if decks is not None:
        if isinstance(decks, str | bytes | Mapping) or not isinstance(decks, Sequence | np.ndarray):
            raise ValueError(f"options['decks'] must be a list of decks, got {type(decks).__name__}")
        for i, deck in enumerate(decks):
            try:
                checked.append(check_deck(deck))
            except ValueError as exc:
                raise ValueError(f"options['decks'][{i}]: {exc}") from None
    roles = options.get("roles")
    if roles is not None and not isinstance(roles, Roles):
        roles = Roles.from_dict(roles)
    scores = options.get("scores")
    if scores is not None:
        if isinstance(scores, str | bytes | Mapping) or not isinstance(scores, Sequence | np.ndarray):
            raise ValueError(f"options['scores'] must be three ints >= 0, got {scores!r}")
        scores = check_scores(list(scores), rules)
    return checked, roles, scores




def render_text(hand: HandState, viewer: int | None = None, **kwargs: Any) -> str:
    """The table as text from ``viewer``'s side (None: both hands)."""
    from ..render import render_table  # lazy: the renderer is only needed to render

    return render_table(hand, viewer, **kwargs)


def render_frame(hand: HandState, viewer: int | None = None, **kwargs: Any) -> np.ndarray:
    """The table as a ``uint8`` ``(H, W, 3)`` frame from ``viewer``'s side (None: both hands)."""
    from ..render.frame import table_frame  # lazy: Pillow is only needed to draw frames

    return table_frame(hand, viewer, **kwargs)


# set by reset(); read before it, a clear AttributeError instead of Python's bare one
_RESET_STATE = ("agent_selection", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")

T = TypeVar("T")


def require_reset(game: T | None) -> T:
    """``game`` (the env's hand or match), or :class:`ResetNeededError` when it is not dealt yet."""
    if game is None:
        raise ResetNeededError("call reset() before using the environment")
    return game


def render_in_mode(mode: str | None, frame: Callable[[], np.ndarray], table: Callable[[], str]) -> Any:
    """What ``render()`` returns in ``mode``: a frame, the table as text, or ``None`` after printing it."""
    if mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'")
        return None
    if mode == "rgb_array":
        return frame()
    text = table()
    if mode == "human":
        print(text)
        return None
    return text


class GinAECEnv(AECEnv):
    """Base of the hand and match AEC envs: settings, cached spaces, reset bookkeeping, ``step``'s
    checks, the privileged ``state()``, rendering.

    A subclass names its ``AGENTS`` and sizes, and writes ``reset``, ``observe``, ``_play`` (one
    checked action of the agent to act), ``_state``, ``_table`` and ``frame``.

    Calls in the wrong state get the errors of :mod:`gin3_env.envs.errors` and change
    nothing: ``step``/``observe``/``last``/``agent_iter``/``render``/``state`` before ``reset``
    (:class:`~gin3_env.errors.ResetNeededError`), ``step`` once every agent has
    stepped out of a finished episode (the same), an action that is not an int 0..106,
    ``None`` for the agent to act or not ``None`` for a finished one
    (:class:`~gin3_env.errors.InvalidActionError`), an unknown agent name
    (:class:`~gin3_env.errors.UnknownAgentError`)."""

    AGENTS: tuple[str, ...] = ()
    OBS_SIZE = 0
    STATE_SIZE = 0
    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 1}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._INDEX = {name: k for k, name in enumerate(cls.AGENTS)}

    def __getattr__(self, name: str) -> Any:
        if name in _RESET_STATE:
            raise AttributeError(f"{name} cannot be accessed before reset(): reset() sets it")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __init__(
        self,
        render_mode: str | None = None,
        reward_scale: float = 1.0,
        rules: Rules | Mapping[str, Any] | None = None,
        render_view: str | None = None,
        **rule_options: Any,
    ) -> None:
        super().__init__()
        agents = self.AGENTS
        self.render_mode = check_render_mode(render_mode)
        self.reward_scale = check_reward_scale(reward_scale)
        self.rules = make_rules(rules, rule_options)
        if render_view is not None and render_view not in agents:
            raise ValueError(f"render_view must be None or one of {list(agents)}, got {render_view!r}")
        self.render_view = render_view
        self.possible_agents = list(agents)
        self.agents = list(agents)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (self.OBS_SIZE,), np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for agent in agents
        }
        self.action_spaces = {agent: ActionSpace(NUM_ACTIONS) for agent in agents}
        self.state_space = spaces.Box(0.0, 1.0, (self.STATE_SIZE,), np.float32)
        self._rng = np.random.default_rng()

    # ------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Dict:
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise unknown_agent(agent, self.possible_agents) from None

    def action_space(self, agent: str) -> ActionSpace:
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise unknown_agent(agent, self.possible_agents) from None

    def _index(self, agent: Any) -> int:
        """The agent's index in ``AGENTS``; :class:`UnknownAgentError` for any other name or object."""
        return agent_index(agent, self._INDEX, self.AGENTS)

    # ------------------------------------------------------------- reset
    def _start(self, seed: int | None) -> None:
        """Reseed (when asked) and clear every agent's rewards, ends and infos."""
        seed = check_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        agents = self.possible_agents
        self.agents = list(agents)
        self.rewards = {agent: 0.0 for agent in agents}
        self._cumulative_rewards = {agent: 0.0 for agent in agents}
        self.terminations = {agent: False for agent in agents}
        self.truncations = {agent: False for agent in agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in agents}
        self._skip_agent_selection = None

    # ------------------------------------------------------------- step
    def _require_reset(self, method: str) -> None:
        if "agent_selection" not in self.__dict__:
            raise ResetNeededError(f"{method}() before reset(): call reset() first")

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to act (``None`` takes a finished agent out); see the class doc."""
        if not self._step_is_dead(action):
            self._play(action)  # type: ignore[arg-type]  # _step_is_dead refused None for the agent to act

    def _play(self, action: int) -> None:
        """Play ``action``, an int 0..106, for the agent to act (it is not done); an illegal one is
        the engine's ``IllegalActionError`` and changes nothing."""
        raise NotImplementedError

    def _step_is_dead(self, action: int | None) -> bool:
        """The start of every ``step``: a finished agent's step (True: it is handled, return);
        else the agent is to act, and ``None`` or an action that is not an int 0..106 is refused."""
        self._require_reset("step")
        if not self.agents:
            raise ResetNeededError("step() after the end: every agent has left the finished episode; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return True
        if action is None:
            raise InvalidActionError(f"{agent} is to act: the action must be an int 0..{NUM_ACTIONS - 1}, not None")
        check_action_value(action, agent)
        return False

    def _was_dead_step(self, action: Any) -> None:
        if action is not None:
            agent = self.agent_selection
            how = "terminated" if self.terminations.get(agent) else "truncated"
            raise InvalidActionError(
                f"{agent} is done ({how}): its only valid action is None (step(None) takes it out), got {action!r:.60}"
            )
        super()._was_dead_step(None)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._require_reset("last")
        if not self.agents:
            raise ResetNeededError("last() after the end: every agent has left the finished episode; call reset()")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        self._require_reset("agent_iter")
        return super().agent_iter(max_iter)

    # ------------------------------------------------------------- state
    def state(self) -> np.ndarray:
        """The privileged state (:mod:`gin3_env.observation.state`): both hands, the stock in order,
        the pile, phase, to-act (and in the match the roles and scores), inside ``state_space``.
        For centralised critics and diagnosis: it is never part of an observation."""
        self._require_reset("state")
        return self._state()

    def _state(self) -> np.ndarray:
        raise NotImplementedError

    # ------------------------------------------------------------- render
    def _table(self) -> str:
        raise NotImplementedError

    def frame(self, agent: str | None = None) -> np.ndarray:
        """The table as an RGB frame from ``agent``'s side (its hidden cards face down), or
        both hands for ``None``; ``render()`` in ``"rgb_array"`` mode returns
        ``frame(render_view)``."""
        raise NotImplementedError

    def render(self) -> str | np.ndarray | None:
        return render_in_mode(self.render_mode, lambda: self.frame(self.render_view), self._table)

    def close(self) -> None:
        """Nothing to release (frames are drawn off screen; no window is opened)."""
