"""The heuristic's options as plain validated data, and the two arrays its compiled kernels read.

:class:`HeuristicConfig` is what :class:`~gin3_env.policies.HeuristicPolicy` plays by (the
policies re-export it); it lives here, below the policies, so that the compiled core
(:mod:`.heuristic_kernels`, :mod:`.belief_kernels`, :mod:`.rollout`) takes the same options
without importing the player. This module imports neither numba nor the kernels.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

import numpy as np

from ..engine.rules import Rules

__all__ = ["SIMPLE", "HeuristicConfig", "heuristic_config", "heuristic_params"]

_INTS = ("knock_limit", "knock_early_max", "early_stock", "knock_late_max", "late_stock", "outs_stock_scale")
_FLOATS = ("outs_weight", "danger_weight")
_BOOLS = ("take_on_knock", "simple")
MAX_INT = 1_000_000  # each int option's bound either way (deadwood and stock counts are under 100)


@dataclass(frozen=True)
class HeuristicConfig:
    """Knobs of :class:`~gin3_env.policies.HeuristicPolicy` (defaults: the tuned player).

    Checked when built: each int option an int, each weight a finite number, each switch a
    bool; anything else is a ``ValueError`` naming the option."""

    # the game's knock limit (only used to judge a take): not a strategy knob but the one rule the heuristic
    # reads, set from the game's Rules (load_policy("heuristic", rules=...)); by default the rule book's
    knock_limit: int = Rules().knock_limit
    outs_weight: float = 4.0  # weight of the one-card look-ahead potential in discards
    danger_weight: float = 5.0  # points per unit chance the opponent melds the discard
    take_on_knock: bool = True  # take the discard when it lets us knock at once
    knock_early_max: int = 10  # knock early in the hand only at or below this deadwood
    early_stock: int = 31  # "early" means more than this many cards in the stock
    knock_late_max: int = 10  # knock late in the hand only at or below this deadwood
    late_stock: int = -1  # "late" means at most this many cards in the stock
    outs_stock_scale: int = 20  # if > 0, the outs weight shrinks as stock / this (capped at 1)
    simple: bool = False  # play exactly the EAAI Simple rules (baseline for tuning)

    def __post_init__(self) -> None:
        for name in _INTS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise ValueError(f"heuristic option {name} must be an int, got {value!r:.60}")
            if not -MAX_INT <= value <= MAX_INT:  # the kernels read it as a 64-bit int
                raise ValueError(f"heuristic option {name} must be an int in -{MAX_INT:,}..{MAX_INT:,}, "
                                 f"got {str(value)[:60]}")
            object.__setattr__(self, name, int(value))
        for name in _FLOATS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
                raise ValueError(f"heuristic option {name} must be a number, got {value!r:.60}")
            try:
                finite = bool(np.isfinite(float(value)))
            except OverflowError:
                finite = False
            if not finite:
                raise ValueError(f"heuristic option {name} must be finite, got {value!r}")
            object.__setattr__(self, name, float(value))
        for name in _BOOLS:
            value = getattr(self, name)
            if not isinstance(value, bool | np.bool_):
                raise ValueError(f"heuristic option {name} must be a bool, got {value!r:.60}")
            object.__setattr__(self, name, bool(value))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


SIMPLE = HeuristicConfig(simple=True, take_on_knock=False)

_NAMES = frozenset(f.name for f in fields(HeuristicConfig))


def heuristic_config(config: HeuristicConfig | None = None, rules: Rules | None = None,
                     **overrides: Any) -> HeuristicConfig:
    """``config`` (default: the tuned player) with ``overrides``, at the knock limit of the game's ``rules`` (None:
    the config's); a ``ValueError`` names unknown options, a ``config`` that is not a :class:`HeuristicConfig`, or a
    ``knock_limit`` override that contradicts ``rules``."""
    if rules is not None:
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a Rules (gin3_env.Rules), got {type(rules).__name__}")
        limit = overrides.setdefault("knock_limit", rules.knock_limit)
        if limit != rules.knock_limit:
            raise ValueError(f"the player 'heuristic' was given knock_limit={limit!r} but the game's rules have "
                             f"knock_limit {rules.knock_limit}: give the rules alone")
    if config is None:
        config = HeuristicConfig()
    elif not isinstance(config, HeuristicConfig):
        raise ValueError(f"config must be a HeuristicConfig, got {type(config).__name__}")
    unknown = set(overrides) - _NAMES
    if unknown:
        raise ValueError(f"unknown HeuristicPolicy option(s): {sorted(unknown)}")
    return replace(config, **overrides) if overrides else config


def heuristic_params(cfg: HeuristicConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(floats, ints)`` of a :class:`HeuristicConfig`, in the order the kernels of
    :mod:`.heuristic_kernels` and :mod:`.belief_kernels` index them."""
    floats = np.array([cfg.outs_weight, cfg.danger_weight], dtype=np.float64)
    ints = np.array(
        [cfg.knock_limit, int(cfg.take_on_knock), cfg.knock_early_max, cfg.early_stock, cfg.knock_late_max,
         cfg.late_stock, cfg.outs_stock_scale, int(cfg.simple)],
        dtype=np.int64,
    )
    return floats, ints
