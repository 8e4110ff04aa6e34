"""``gin3_env.vector_env(...)`` and ``gymnasium.make_vec("gin3/ThreeHandedGin-v0")``: a Gymnasium
1.x ``VectorEnv`` over the batched core.

- Spaces: ``single_observation_space`` ``Box(0, 1, (374,), float32)`` (586 with
  ``features="augmented"``), ``single_action_space`` ``Discrete(107)``.
- Autoreset (``autoreset_mode=``, also in ``metadata["autoreset_mode"]``):

  - ``AutoresetMode.SAME_STEP`` (the default of ``vector_env``): a finished episode's slot
    is dealt again within the same ``step``; its last observation is ``infos["final_obs"][i]``
    (with ``infos["_final_obs"][i]`` True), its result in ``infos["final_info"]``.
  - ``AutoresetMode.NEXT_STEP`` (Gymnasium's default, and so the default of ``make_vec``, as
    in its sync and async modes): the step that ends an episode returns its last
    observation, and its result in the infos (``infos["outcome"]``, ``infos["points"]`` ...
    with ``infos["_outcome"]`` saying where); the next ``step`` ignores that slot's action
    and returns the new hand's first observation, reward 0. Gymnasium's vector wrappers
    that need this mode (``NormalizeObservation``, ``RecordEpisodeStatistics``) work on it.
- Masks: ``env.action_masks()`` -> bool ``(num_envs, 107)``, the same array as
  ``infos["action_mask"]``. A slot waiting for its reset (NEXT_STEP) takes any action (it is
  ignored), so its mask is all True, as pgx does, and a masked sampler never sees an empty mask.
- State: ``env.state()`` -> float32 ``(num_envs, 582)``, the privileged state of the hand in
  each slot (:mod:`gin3_env.observation.state`; for centralised critics, never an observation);
  ``single_state_space`` and ``state_space`` (batched). A slot waiting for its reset already
  holds its next hand.
- Rendering (``render_mode``): ``"rgb_array"`` or ``"ansi"``. ``render()`` returns one frame
  (or text) per slot, as Gymnasium's vector envs do, drawn only when indexed (the hands are
  copied at the call), so ``env.render()[i]`` costs one frame; ``env.frame(i)`` draws slot
  ``i`` at once. A frame shows the learner's side (the opponent's hidden cards face down), the
  text the whole table, as the scalar env's do.
- Misuse: ``step``/``action_masks``/``state`` before ``reset`` raise ``ResetNeededError``, any
  call but ``close`` after ``close()`` ``ClosedEnvError``;
  actions that are not one int ``0..106`` per slot an ``InvalidActionError`` naming the slot
  (hand) and the action (:mod:`gin3_env.errors`); a bad seed ``InvalidSeedError``;
  an unknown keyword a ``TypeError`` (``UnknownKeywordError``) naming it; nothing changes.
- Infos: one schema, numbers only, the same keys on every ``step`` and at ``reset``:
  ``action_mask`` (bool ``(n, 107)``), ``learner`` (int ``(n,)``, 0 team, 1 box, as the scalar
  env's), then in NEXT_STEP ``outcome`` (int ``(n,)``, the code of ``gin3_env/envs/infos.py``:
  1 gin, 2 knock, 3 undercut, 4 dead, 5 truncated; 0 where no episode ended), ``points``,
  ``baseline_points`` (float ``(n,)``), ``illegal_action`` (bool ``(n,)``), each with its
  ``_key`` bool mask of the slots that ended; in SAME_STEP ``final_obs`` (float32 ``(n, 374)``,
  zeros where none ended), ``_final_obs`` and ``final_info`` (those four, with their masks).
  Never ``None``; the masks say where a value applies (all False at ``reset``). Gymnasium's
  ``NumpyToTorch`` takes them as they are.
- ``max_episode_steps`` (as Gymnasium's own vector envs take it): a slot's episode is truncated
  after that many learner steps (``truncated`` True, ``outcome`` 5), reward 0, and dealt again.
- Reward: the learner's game points at the end of its hand (minus the baseline's with
  ``reward_baseline``), times ``reward_scale``.

Keyword arguments are those of :class:`gin3_env.vector.learner.LearnerHands`: ``learner``
(``"team"``, ``"box"``, ``"random"``), ``opponent`` (``"random"``, ``"heuristic"``, a saved
model's path, a batched policy, a scalar policy object (played row by row), or a list for a
pool with ``weights``), ``reward_baseline``,
``reward_scale``, ``illegal_penalty``, ``features``, ``seed``, ``rules`` or the rules options;
and ``autoreset_mode``, ``render_mode``. ``set_opponent(opponent, weights=None)`` swaps the
opponent for each slot's next hand. ``gymnasium.make_vec`` passes its keywords here (those of
the scalar env, ``learner``, ``opponent``, ``render_mode``, ``reward_scale``,
``illegal_penalty``, ``rules`` and the rules options, mean the same).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any, overload

import numpy as np
from gymnasium import logger, spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..engine.actions import NUM_ACTIONS
from ..engine.hand import HandState
from ..engine.rules import Rules
from ..envs.aec_base import render_frame, render_text
from ..envs.keywords import takes_rules_options
from ..errors import ClosedEnvError, InvalidResetOptionError, ResetNeededError, check_seed
from ..observation.state import STATE_SIZE
from .learner import LearnerHands
from .players import as_batch

AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
RENDER_MODES = ("ansi", "rgb_array")
ENV_NAME = "the ThreeHandedGin-v0 vector env"


def check_autoreset_mode(mode: Any) -> AutoresetMode:
    """``AutoresetMode.NEXT_STEP`` or ``SAME_STEP`` (or their values, ``"NextStep"``/``"SameStep"``)."""
    try:
        value = AutoresetMode(mode)
    except ValueError:
        value = None
    if value not in AUTORESET_MODES:
        raise ValueError(
            f"autoreset_mode must be AutoresetMode.NEXT_STEP or AutoresetMode.SAME_STEP, got {mode!r}"
            " (the batched core deals a finished hand again at once, so it cannot be DISABLED)"
        )
    assert value is not None
    return value


class EachRow:
    """A scalar policy (``act(observation_dict) -> int``, what ``gym.make`` takes as an opponent)
    as a batched one: one call per row, so ``make_vec`` takes the same opponents as ``make``
    (at the scalar policy's speed; the built-in and saved-model policies have batched forms)."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array(
            [self.policy.act({"observation": o, "action_mask": m}) for o, m in zip(observations, masks, strict=True)],
            dtype=np.int64,
        )


def batched(spec: Any) -> Any:
    """``spec``, with scalar policy objects (whose ``act`` takes one argument) made batched by
    :class:`EachRow`; names, paths and policies with a batched form are left to the core."""
    if isinstance(spec, list | tuple):
        return [batched(item) for item in spec]
    act = getattr(spec, "act", None)
    if isinstance(spec, str) or not callable(act) or as_batch(spec) is not None:
        return spec
    try:
        takes_one = len(inspect.signature(act).parameters) == 1
    except (TypeError, ValueError):  # no signature to read: trusted to be batched
        takes_one = False
    return EachRow(spec) if takes_one else spec


class HandFrames(Sequence[Any]):
    """What ``render()`` returns: one frame (or text) per slot, drawn when indexed, of the hands
    as they were at the call."""

    def __init__(self, hands: list[HandState], viewers: np.ndarray, mode: str) -> None:
        self._hands, self._viewers, self._mode = hands, viewers, mode
        self._drawn: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self._hands)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = range(len(self))[index]  # IndexError out of range; negative indices count from the end
        if i not in self._drawn:
            hand = self._hands[i]
            if self._mode == "rgb_array":
                self._drawn[i] = render_frame(hand, int(self._viewers[i]))
            else:
                self._drawn[i] = render_text(hand)
        return self._drawn[i]


class GinVectorEnv(VectorEnv):
    """The learner against a batched opponent in ``num_envs`` hands at once (see the module doc)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": list(RENDER_MODES), "render_fps": 4}

    @takes_rules_options(ENV_NAME)
    def __init__(
        self,
        num_envs: int = 64,
        learner: str = "random",
        opponent: Any = "heuristic",
        weights: Sequence[float] | None = None,
        reward_baseline: Any = None,
        reward_scale: float = 1.0,
        illegal_penalty: float = 25.0,
        features: str = "plain",
        seed: int | None = None,
        rules: Rules | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        render_mode: str | None = None,
        max_episode_steps: int | None = None,
        **rule_options: Any,
    ) -> None:
        mode = check_autoreset_mode(autoreset_mode)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {list(RENDER_MODES)}, got {render_mode!r}")
        self.core = LearnerHands(
            num_envs, learner=learner, opponent=batched(opponent), weights=weights,
            reward_baseline=batched(reward_baseline),
            reward_scale=reward_scale, illegal_penalty=illegal_penalty, features=features, seed=seed,
            rules=rules, max_episode_steps=max_episode_steps, **rule_options,
        )
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.autoreset_mode = mode
        self.num_envs = self.core.num_envs
        self.single_observation_space = spaces.Box(0.0, 1.0, (self.core.obs_size,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.single_state_space = spaces.Box(0.0, 1.0, (STATE_SIZE,), np.float32)
        self.state_space = batch_space(self.single_state_space, self.num_envs)
        self.render_mode = render_mode
        self._pending = np.zeros(self.num_envs, dtype=bool)  # NEXT_STEP: slots whose next step is a reset
        self._started = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._check_open("reset")
        seed = check_seed(seed)
        if options is not None and (not isinstance(options, dict) or options):
            got: Any = f"{type(options).__name__} {options!r:.40}"
            if isinstance(options, dict):
                got = sorted(map(str, options))
            raise InvalidResetOptionError(f"vector_env.reset takes no options, got {got}")
        obs = self.core.reset(seed=seed)
        if seed is not None:
            self._np_random = np.random.default_rng(seed)
        self._pending[:] = False
        self._started = True
        return obs, self._reset_info()

    def _check_open(self, call: str) -> None:
        if self.closed:
            raise ClosedEnvError(f"vector_env: {call}() after close(); make a new env")

    def _check_started(self, call: str) -> None:
        self._check_open(call)
        if not self._started:
            raise ResetNeededError(f"vector_env: {call}() before reset(); call reset() first")

    def step(self, actions: Any):
        self._check_started("step")
        acts = self.core.check_actions(actions)  # refused before anything changes
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            return self._step_same(acts)
        return self._step_next(acts)

    def _step_same(self, acts: np.ndarray):
        obs, rewards, terminated, truncated, extra = self.core.step(acts)
        infos = self._info()
        # one schema: the keys on every step, ``_final_obs`` False (and zeros) where nothing ended
        infos["final_obs"] = extra["final_obs"]
        infos["_final_obs"] = extra["ended"]
        infos["final_info"] = self._results(extra)
        return obs, rewards, terminated, truncated, infos

    def _step_next(self, acts: np.ndarray):
        waiting = self._pending
        obs, rewards, terminated, truncated, extra = self.core.step(acts, active=~waiting if waiting.any() else None)
        ended = extra["ended"]
        self._pending = ended.copy()
        infos = self._info()
        if ended.any():
            obs[ended] = extra["final_obs"][ended]
            infos["learner"][ended] = extra["learner"][ended]
        infos.update(self._results(extra))  # on every step (one schema), ``_outcome`` False where nothing ended
        return obs, rewards, terminated, truncated, infos

    @staticmethod
    def _results(extra: dict[str, Any]) -> dict[str, Any]:
        """The ended episodes' results as Gymnasium batches infos (each key with its ``_key`` mask)."""
        ended = extra["ended"]
        values = {
            "outcome": np.where(ended, extra["outcome"], 0).astype(np.int64),
            "points": extra["points"],
            "baseline_points": extra["baseline_points"],
            "illegal_action": extra["illegal"],
        }
        out: dict[str, Any] = {}
        for key, value in values.items():
            out[key], out[f"_{key}"] = value, ended
        return out

    def _info(self) -> dict[str, Any]:
        """The keys every step has (and ``reset``): the step adds the results' (see the module doc)."""
        return {"action_mask": self._masks(), "learner": self.core.learner_player.copy()}

    def _reset_info(self) -> dict[str, Any]:
        """``reset``'s info: the keys of every step's, no episode ended (every ``_key`` mask False)."""
        n = self.num_envs
        none = {"ended": np.zeros(n, dtype=bool), "outcome": np.zeros(n, dtype=np.int64),
                "points": np.zeros(n, dtype=np.float64), "baseline_points": np.zeros(n, dtype=np.float64),
                "illegal": np.zeros(n, dtype=bool)}
        infos = self._info()
        if self.autoreset_mode is AutoresetMode.SAME_STEP:
            infos["final_obs"] = np.zeros((n, self.core.obs_size), dtype=np.float32)
            infos["_final_obs"] = none["ended"]
            infos["final_info"] = self._results(none)
        else:
            infos.update(self._results(none))
        return infos

    def _masks(self) -> np.ndarray:
        masks = self.core.action_masks()
        masks[self._pending] = True
        return masks

    def action_masks(self) -> np.ndarray:
        """bool (num_envs, 107): the learner's legal actions in each slot (all True in a slot whose
        next step is its reset, NEXT_STEP)."""
        self._check_started("action_masks")
        return self._masks()

    def state(self) -> np.ndarray:
        """float32 (num_envs, 582): the privileged state of each slot's hand (see the module doc)."""
        self._check_started("state")
        return self.core.hands.state()

    def frame(self, index: int = 0) -> np.ndarray:
        """Slot ``index``'s hand as a ``uint8`` frame from the learner's side."""
        self._check_started("frame")
        i = range(self.num_envs)[index]
        return render_frame(self.core.hands.hand_state(i), int(self.core.learner_player[i]))

    def render(self) -> HandFrames | None:  # type: ignore[override]  # a lazy Sequence, not a tuple
        if self.render_mode is None:
            logger.warn("render() called without a render_mode; pass render_mode='rgb_array' or 'ansi'")
            return None
        self._check_started("render")
        hands = [self.core.hands.hand_state(i) for i in range(self.num_envs)]
        return HandFrames(hands, self.core.learner_player.copy(), self.render_mode)

    def set_opponent(self, opponent: Any, weights: Any = None) -> None:
        self._check_open("set_opponent")
        self.core.set_opponent(batched(opponent), weights)


def vector_env(num_envs: int = 64, **kwargs: Any) -> GinVectorEnv:
    """A Gymnasium ``VectorEnv`` of ``num_envs`` learner hands (see :mod:`gin3_env.vector.gym_env`)."""
    return GinVectorEnv(num_envs, **kwargs)


def make_vec(num_envs: int = 1, **kwargs: Any) -> GinVectorEnv:
    """The ``vector_entry_point`` of ``gin3/ThreeHandedGin-v0``: ``gymnasium.make_vec(id, num_envs,
    **kwargs)``. As :func:`vector_env`, but NEXT_STEP autoreset by default (Gymnasium's default,
    as ``make_vec``'s sync and async modes)."""
    kwargs.setdefault("autoreset_mode", AutoresetMode.NEXT_STEP)
    return GinVectorEnv(num_envs, **kwargs)


vector_env.__signature__ = inspect.signature(GinVectorEnv)  # type: ignore[attr-defined]
make_vec.__signature__ = vector_env.__signature__.replace(  # type: ignore[attr-defined]
    parameters=[
        p.replace(default={"autoreset_mode": AutoresetMode.NEXT_STEP, "num_envs": 1}[p.name])
        if p.name in ("autoreset_mode", "num_envs") else p
        for p in inspect.signature(GinVectorEnv).parameters.values()
    ]
)
