"""Batched players: ``act(observations, masks) -> actions`` for many rows at once.

- :class:`RandomBatch` (``seed``): uniform over each row's legal actions.
- :class:`HeuristicBatch` (``HeuristicPolicy``'s options): exactly the action
  ``HeuristicPolicy(**options).act`` chooses on each row, compiled.
- :class:`ModelBatch`: a saved sb3-contrib ``MaskablePPO`` model, one torch forward for
  all rows (the batched :class:`gin3_env.policies.SB3Policy`).

``observations`` is float32 ``(B, >= 374)`` (the layout of ``observation/layout.py``; longer
rows, as in the match env, are read up to 374) and ``masks`` ``(B, 107)``; every row must have
a legal action. :func:`as_batch` turns a policy spec or object into its batched form.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..engine.actions import NUM_ACTIONS
from ..engine.rules import Rules
from ..game.policy import check_plays_rules
from ..kernels import heuristic_kernels as hk
from ..kernels.heuristic_params import HeuristicConfig, heuristic_params
from ..kernels.threads import use_threads
from ..observation.layout import OBS_SIZE
from ..policies.gated import GatedPolicy
from ..policies.heuristic import HeuristicPolicy
from ..policies.net import NetPolicy
from ..policies.registry import find_row


def check_batch(observations: Any, masks: Any) -> tuple[np.ndarray, np.ndarray]:
    obs = np.asarray(observations, dtype=np.float32)
    mask = np.asarray(masks)
    if obs.ndim != 2 or obs.shape[1] < OBS_SIZE:
        raise ValueError(f"observations must have shape (B, >= {OBS_SIZE}), got {obs.shape}")
    if mask.shape != (obs.shape[0], NUM_ACTIONS):
        raise ValueError(f"masks must have shape ({obs.shape[0]}, {NUM_ACTIONS}), got {mask.shape}")
    mask = np.ascontiguousarray(mask.astype(np.int8, copy=False))
    empty = hk.first_empty_row(mask)
    if empty >= 0:
        raise ValueError(f"row {empty} of the masks has no legal action")
    return np.ascontiguousarray(obs), mask


class RandomBatch:
    """Uniform over the legal actions of each row (``seed`` seeds its own Generator)."""

    name = "random"

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def act(self, observations: Any, masks: Any) -> np.ndarray:
        _, mask = check_batch(observations, masks)
        out = np.empty(len(mask), dtype=np.int64)
        hk.random_legal(mask, self.rng.random(len(mask)), out)  # the k-th legal action, k = floor(u * count)
        return out

    def __repr__(self) -> str:
        return "RandomBatch()"


class HeuristicBatch:
    """:class:`~gin3_env.policies.HeuristicPolicy` on every row (same options, same choices)."""

    def __init__(self, config: HeuristicConfig | None = None, **overrides: Any) -> None:
        self.scalar = HeuristicPolicy(config, **overrides)  # validates the options the same way
        cfg = self.config = self.scalar.config
        self.name = self.scalar.name
        self._fp, self._ip = heuristic_params(cfg)

    @classmethod
    def from_policy(cls, policy: HeuristicPolicy) -> HeuristicBatch:
        return cls(replace(policy.config))

    rules_read = HeuristicPolicy.rules_read

    @property
    def rules(self) -> Rules:
        """The rules this player was built for (as :attr:`HeuristicPolicy.rules`: the knock limit is the one read)."""
        return self.scalar.rules

    @property
    def knock_limit(self) -> int:
        """The game's knock limit this player was built for (as :attr:`HeuristicPolicy.knock_limit`)."""
        return self.config.knock_limit

    def act(self, observations: Any, masks: Any) -> np.ndarray:
        obs, mask = check_batch(observations, masks)
        out = np.empty(len(obs), dtype=np.int64)
        kernel = hk.act_parallel if use_threads(len(obs)) else hk.act_serial
        kernel(obs, mask, self._fp, self._ip, out)
        return out

    def __repr__(self) -> str:
        return f"HeuristicBatch({self.config})"


class _PolicyBatch:
    """A player whose policy acts on rows itself (``act_batch``), behind the batched players' checks."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.name = policy.name
        self.rules = getattr(policy, "rules", None)  # the rules the policy was built for (check_plays_rules reads them)

    def act(self, observations: Any, masks: Any) -> np.ndarray:
        obs, mask = check_batch(observations, masks)
        return np.asarray(self.policy.act_batch(obs, mask))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.policy!r})"


class GatedBatch(_PolicyBatch):
    """A :class:`~gin3_env.policies.gated.GatedPolicy` on every row (the heuristic with its gates), compiled."""

    def __init__(self, policy: GatedPolicy) -> None:
        super().__init__(policy)


class NetBatch(_PolicyBatch):
    """A :class:`~gin3_env.policies.net.NetPolicy` (the network acting alone) on every row."""

    def __init__(self, policy: NetPolicy) -> None:
        super().__init__(policy)


class ModelBatch:
    """A MaskablePPO model (or :class:`~gin3_env.policies.SB3Policy`) acting on all rows in one forward."""

    def __init__(self, policy: Any) -> None:
        from ..policies.loading import SB3Policy

        self.policy = policy if isinstance(policy, SB3Policy) else SB3Policy(policy)
        self.name = self.policy.name
        self.obs_dim = self.policy.obs_dim

    def act(self, observations: Any, masks: Any) -> np.ndarray:
        obs, mask = check_batch(observations, masks)
        model_input = self.policy.feature_set.encode_batch(obs, self.policy.base_size)
        actions, _ = self.policy.model.predict(
            model_input, action_masks=mask.astype(bool), deterministic=self.policy.deterministic
        )
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        bad = mask[np.arange(len(actions)), actions] == 0
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"model {self.name!r} chose illegal action {int(actions[k])} in row {k}")
        return actions

    def __repr__(self) -> str:
        return f"ModelBatch({self.policy!r})"


def as_batch(policy: Any, seed: int | None = None, rules: Rules | None = None) -> Any:
    """The batched form of a policy spec or object, or None where it has none.

    ``"random"``/``RandomPolicy`` -> :class:`RandomBatch`, ``"heuristic"``/``HeuristicPolicy`` ->
    :class:`HeuristicBatch`, a model path or ``SB3Policy`` -> :class:`ModelBatch`, a
    ``GatedPolicy`` -> :class:`GatedBatch`, a ``NetPolicy`` -> :class:`NetBatch`; objects that
    already have ``act(observations, masks)`` batched forms are returned as they are. A spec's form is its
    registry row's ``batched`` (:mod:`gin3_env.policies.registry`). A spec is
    loaded for the game's ``rules`` (``load_policy(spec, rules=rules)``; None: the rule book's); with
    ``rules``, an object built for other rules is refused in one line
    (:func:`~gin3_env.game.policy.check_plays_rules`)."""
    from ..policies import load_policy
    from ..policies.loading import SB3Policy
    from ..policies.random_policy import RandomPolicy

    if rules is not None and not isinstance(policy, str):
        check_plays_rules(policy, rules)
    if isinstance(policy, RandomBatch | HeuristicBatch | ModelBatch | _PolicyBatch):
        return policy
    if isinstance(policy, str):  # the batched form its registry row names, of the player loaded for the rules
        row = find_row(policy)
        loaded = load_policy(policy, rules=rules)
        form = row.batched if row is not None else None
        if form == "random":
            return RandomBatch(seed)
        if form == "heuristic":
            return HeuristicBatch.from_policy(loaded)
        if form == "model":
            return ModelBatch(loaded)
        if form == "rows":
            return _rows_batch(loaded)
        return None  # "blueprint" (a search) or none: no batched form of its own
    if type(policy) is HeuristicPolicy:
        return HeuristicBatch.from_policy(policy)
    if isinstance(policy, RandomPolicy):
        return RandomBatch(policy.rng)
    if isinstance(policy, SB3Policy):
        return ModelBatch(policy)
    if isinstance(policy, GatedPolicy | NetPolicy):
        return _rows_batch(policy)
    return None


def _rows_batch(policy: Any) -> _PolicyBatch:
    """A player that acts on rows itself (``act_batch``): a gated player, a network, or a new row's player."""
    if isinstance(policy, GatedPolicy):
        return GatedBatch(policy)
    if isinstance(policy, NetPolicy):
        return NetBatch(policy)
    if not callable(getattr(policy, "act_batch", None)):
        raise ValueError(f"{policy!r} has no act_batch(observations, masks): its registry row's batched form "
                         "'rows' needs one")
    return _PolicyBatch(policy)
