"""Constructor signatures that name the rules options, and refusals that name the env.

Every env of the package takes its own arguments and the rules options as keywords
(``knock_limit=5``) or ``rules=Rules(...)``. :func:`takes_rules_options` decorates such an
``__init__(self, ..., rules=None, **rule_options)`` so that ``help()`` and
``inspect.signature`` list the rules options as keyword-only arguments with the rule book's
defaults, and a keyword that is neither refuses with the env's name and the closest match
(an :class:`~gin3_env.errors.UnknownKeywordError`, a ``TypeError`` as Python's own)::

    UnknownKeywordError: unexpected keyword argument 'oponent' for ThreeHandedGin-v0 (did you mean 'opponent'?); ...
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from ..engine.rules import Rules
from .errors import unknown_keyword

F = TypeVar("F", bound=Callable[..., Any])
RULE_OPTIONS = Rules.option_names()


def rules_parameters() -> list[inspect.Parameter]:
    """The rules options as keyword-only parameters, the rule book's values as defaults."""
    book = Rules()
    return [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=getattr(book, name),
                          annotation=type(getattr(book, name)).__name__)
        for name in RULE_OPTIONS
    ]


def with_rules_signature(func: Callable[..., Any], drop_first: bool = False) -> inspect.Signature:
    """``func``'s signature with its ``**rule_options`` spelled out as the rules options."""
    params = [p for p in inspect.signature(func).parameters.values() if p.kind is not p.VAR_KEYWORD]
    return inspect.Signature([*params[int(drop_first) :], *rules_parameters()])


def takes_rules_options(env_name: str) -> Callable[[F], F]:
    """Decorate an env's ``__init__`` (see the module doc); ``env_name`` is how errors name the env."""

    def decorate(init: F) -> F:
        signature = with_rules_signature(init)
        known = list(signature.parameters)[1:]
        accepted = frozenset(known)

        @functools.wraps(init)
        def checked(self: Any, *args: Any, **kwargs: Any) -> None:
            for key in kwargs:
                if key not in accepted:
                    raise unknown_keyword(key, env_name, known)
            init(self, *args, **kwargs)

        checked.__signature__ = signature  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]

    return decorate


def factory_of(cls: type, doc: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a factory that builds ``cls`` (and wraps it) ``cls``'s signature and ``doc``."""

    def decorate(factory: Callable[..., Any]) -> Callable[..., Any]:
        factory.__signature__ = inspect.signature(cls)  # type: ignore[attr-defined]
        factory.__doc__ = doc
        return factory

    return decorate
