"""The batched form of a player, as a belief's opponent model and a search's playout policy.

:func:`opponent_model` turns a policy spec or object into an :class:`OpponentModel`: ``act(observations,
masks) -> actions`` on many rows at once (float32 ``(B, >= OBS_SIZE)`` observations, int8 ``(B, 107)`` masks),
the moves the player itself would make on each row, plus ``informative`` (False for a player whose move
does not depend on its cards: the uniform random player, whose likelihood says nothing) and, where the
player is a heuristic or a gated player, ``gated_model``/``heuristic`` for the compiled playouts.

- ``"heuristic"`` / a :class:`~.heuristic.HeuristicPolicy`: the compiled heuristic;
- ``"gated"``, a gate file ``.json`` / a :class:`~.gated.GatedPolicy`: the gated player, compiled;
- ``"random"`` / a :class:`~.random_policy.RandomPolicy`: uniform over the legal moves (not informative);
- ``"ppo"``, a model ``.zip`` / an :class:`~.loading.SB3Policy`: one batched forward, deterministic;
- ``"search"``, ``"search:..."`` / a :class:`~.search.SearchPolicy`: its **blueprint** (the heuristic, or the
  player of its ``rollout_policy``): a search has no batched form of its own, and a search's
  moves are its blueprint's where no gain passes its margin;
- any object with ``act_batch(observations, masks)`` (a network player, for one): that method.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.rules import Rules
from ..kernels.heuristic_params import HeuristicConfig, heuristic_config, heuristic_params
from ..observation.layout import OBS_SIZE

__all__ = ["OpponentModel", "check_spec", "heuristic_model", "opponent_model", "set_spec_tools"]


# how a spec becomes a policy object and how one is checked without loading it: installed by the package
# (gin3_env.policies: load_policy and check_policy_spec), which imports this module, not the other way round
_tools: dict[str, Callable[..., Any]] = {}


def set_spec_tools(load: Callable[..., Any], check: Callable[[str], None],
                   find: Callable[[str], Any] | None = None) -> None:
    """Install the spec loader (``load(spec, seed=...)``) and checker the search's options resolve through, and
    the registry's row lookup (``find(spec)``: :func:`~gin3_env.policies.registry.find_row`), whose row names a
    spec's batched form."""
    _tools["load"], _tools["check"] = load, check
    if find is not None:
        _tools["find"] = find


def check_spec(spec: str) -> None:
    """Refuse ``spec`` as the installed checker does (nothing is checked before one is installed)."""
    check = _tools.get("check")
    if check is not None:
        check(spec)


@dataclass(frozen=True)
class OpponentModel:
    """A player's batched form (see the module doc)."""

    name: str
    act: Callable[[np.ndarray, np.ndarray], np.ndarray]
    informative: bool = True
    gated_model: Any = None  # the GatedModel of a gated player (for the compiled playouts)
    heuristic: HeuristicConfig | None = None  # the heuristic of a plain heuristic player

    @property
    def compiled(self) -> bool:
        """Whether the compiled playouts (:class:`~gin3_env.kernels.rollout.Rollouts`) can play it."""
        return self.gated_model is not None or self.heuristic is not None


def _heuristic(config: HeuristicConfig, name: str = "heuristic") -> OpponentModel:
    from ..kernels.heuristic_kernels import act_serial

    fp, ip = heuristic_params(config)

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.empty(len(obs), np.int64)
        act_serial(np.ascontiguousarray(obs[:, :OBS_SIZE], np.float32), np.ascontiguousarray(mask, np.int8),
                   fp, ip, out)
        return out

    return OpponentModel(name, act, heuristic=config)


def _gated(policy: Any) -> OpponentModel:
    return OpponentModel(policy.name, policy.act_batch, gated_model=policy.model)


def _random(rng: np.random.Generator) -> OpponentModel:
    from ..kernels.heuristic_kernels import random_legal

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.empty(len(mask), np.int64)
        random_legal(np.ascontiguousarray(mask, np.int8), rng.random(len(mask)), out)
        return out

    return OpponentModel("random", act, informative=False)


def _model(policy: Any) -> OpponentModel:
    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        model_input = policy.feature_set.encode_batch(np.asarray(obs, np.float32), policy.base_size)
        actions, _ = policy.model.predict(model_input, action_masks=mask.astype(bool), deterministic=True)
        return np.asarray(actions, np.int64).reshape(-1)

    return OpponentModel(policy.name, act)


def opponent_model(policy: Any, seed: int | None = 0, rules: Rules | None = None) -> OpponentModel:
    """The batched form of a policy spec or object (see the module doc); ``ValueError`` where it has none.
    A spec is loaded for the game's ``rules`` (None: the default rules)."""
    from .gated import GatedPolicy
    from .heuristic import HeuristicPolicy
    from .random_policy import RandomPolicy

    if isinstance(policy, OpponentModel):
        return policy
    if isinstance(policy, str):  # the batched form its registry row names, of the player loaded for the rules
        load = _tools.get("load")
        if load is None:
            raise ValueError(f"no policy loader is installed to load {policy!r}: import gin3_env.policies first")
        find = _tools.get("find")
        row = find(policy) if find is not None else None
        seeded = row is not None and row.seeded
        spec, policy = policy, load(policy, seed=seed, rules=rules) if seeded else load(policy, rules=rules)
        form = row.batched if row is not None else None
        if form == "random":  # its own draws, not the player's generator
            return _random(np.random.default_rng(seed))
        if form == "heuristic":
            return _heuristic(policy.config)
        if form == "model":
            return _model(policy)
        if form == "blueprint":
            return policy.blueprint_model()
        if form == "rows":
            if isinstance(policy, GatedPolicy):
                return _gated(policy)
            return OpponentModel(str(getattr(policy, "name", spec)), policy.act_batch)
        raise ValueError(f"{spec!r} has no batched form: it cannot be a belief's opponent model")
    if type(policy) is HeuristicPolicy:
        return _heuristic(policy.config)
    if isinstance(policy, GatedPolicy):
        return _gated(policy)
    if isinstance(policy, RandomPolicy):  # its own draws, not the player's generator
        return _random(np.random.default_rng(seed))
    if type(policy).__name__ == "SB3Policy":  # a saved model (loading.SB3Policy: not imported, see above)
        return _model(policy)
    blueprint = getattr(policy, "blueprint_model", None)
    if callable(blueprint):  # a search: its blueprint
        return blueprint()
    if callable(getattr(policy, "act_batch", None)):
        return OpponentModel(str(getattr(policy, "name", type(policy).__name__)), policy.act_batch)
    raise ValueError(f"{policy!r} has no batched form: it cannot be a belief's opponent model")


def heuristic_model(rules: Rules | None = None) -> OpponentModel:
    """The heuristic as a batched player at the knock limit of the game's ``rules`` (None: the default rules):
    a search's blueprint where its ``rollout_policy`` names none."""
    return _heuristic(heuristic_config(rules=rules or Rules()))
