"""The rules configuration (§9): a frozen, validated dataclass."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

# option -> (lowest, highest) allowed value; bool options are absent.
_RANGES: dict[str, tuple[int, int]] = {
    "gin_bonus": (0, 1000),
    "undercut_bonus": (0, 1000),
    "knock_limit": (0, 100),
    "target_score": (1, 100_000),
    "dead_stock": (0, 30),
    "max_turns": (1, 100_000),
}


@dataclass(frozen=True)
class Rules:
    """Options of the game. Defaults are the rule book's; every value is checked.

    ``Rules(knock_limit=0)`` is gin-only; ``Rules.from_dict({...})`` refuses an
    unknown option with a ``ValueError`` naming it.
    """

    gin_bonus: int = 25
    undercut_bonus: int = 10
    knock_limit: int = 10
    target_score: int = 100
    dead_stock: int = 2
    allow_discard_taken_card: bool = False
    max_turns: int = 200

    def __new__(cls, *args: Any, **options: Any) -> Rules:
        # Refuse unknown options with a ValueError (the generated __init__ would raise TypeError).
        known = cls.option_names()
        for key in options:
            if key not in known:
                raise ValueError(f"unknown rules option {key!r} (known: {', '.join(known)})")
        if len(args) > len(known):
            raise ValueError(f"Rules takes at most {len(known)} options, got {len(args)} positional values")
        return super().__new__(cls)

    def __post_init__(self) -> None:
        for name, (lo, hi) in _RANGES.items():
            raw = getattr(self, name)
            if isinstance(raw, bool | np.bool_):
                raise ValueError(f"rules option {name!r} must be an int, got {raw!r}")
            try:  # ints and numpy integers; not floats, strings or bools
                value = operator.index(raw)
            except TypeError:
                raise ValueError(f"rules option {name!r} must be an int, got {raw!r}") from None
            object.__setattr__(self, name, value)
            if not lo <= value <= hi:
                raise ValueError(f"rules option {name!r} must be in {lo}..{hi}, got {value}")
        flag = self.allow_discard_taken_card
        if isinstance(flag, np.bool_):
            object.__setattr__(self, "allow_discard_taken_card", bool(flag))
        elif not isinstance(flag, bool):
            raise ValueError(
                "rules option 'allow_discard_taken_card' must be a bool, "
                f"got {self.allow_discard_taken_card!r}"
            )

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> Rules:
        """Build from a mapping; an unknown key is a ``ValueError`` that names it."""
        if not isinstance(options, Mapping):
            raise ValueError(f"rules options must be a mapping of option -> value, got {options!r}")
        known = cls.option_names()
        for key in options:
            if key not in known:
                raise ValueError(f"unknown rules option {key!r} (known: {', '.join(known)})")
        return cls(**options)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def replace(self, **changes: Any) -> Rules:
        return Rules.from_dict({**self.to_dict(), **changes})
