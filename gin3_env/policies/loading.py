"""``load_policy(spec, rules=...)``: built-in players, the shipped model, or a saved model file, each
built for the rules of the game it will play (``rules``, a :class:`~gin3_env.engine.rules.Rules`; None:
the rule book's).

The players and the specs that name them are the rows of :mod:`gin3_env.policies.registry`
(:data:`~gin3_env.policies.registry.PLAYER_ROWS`: ``random``, ``heuristic``, ``search``, ``gated``, ``net``,
``ppo``, ``rllib:PATH``, a gate file ``.json``, a network model file ``.npz``, a saved model ``.zip``); each
row's loader builds its player, and an object with ``act()`` is returned as is (with ``rules``: refused if built
for others).

The rules: the one way they reach a player is ``load_policy(spec, rules=...)``; every command and
env that loads a player passes the game's, and the row's loader builds the player for them (what each
reads: its row's ``reads`` and ``rules_note``; docs/design.md, "How the rules reach a player").
:func:`~gin3_env.game.policy.check_plays_rules` refuses, in one line naming the player and the option, a
player object built for other rules than the game's; so does a ``knock_limit=`` keyword that contradicts
``rules``.

A saved model (``ppo``, a ``.zip``) is played by :mod:`gin3_env.policies.saved_model` (:class:`SB3Policy`,
:func:`load_model_policy`, :func:`check_model_file`: read as data, one torch thread, one-line refusals of a
bad file), re-exported here. An unknown name is a ``ValueError`` listing the choices. A player whose
optional library is not installed is an ``ImportError`` naming the extra to install.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..engine.rules import Rules
from ..game.policy import check_plays_rules
from .registry import (
    GATE_MODEL,
    MODELS_DIR,
    NET_MODEL,
    PLAYER_ROWS,
    PPO_MODEL,
    PPO_SIDECAR,
    RLLIB_PREFIX,
    find_row,
    player_sentences,
    shipped_names,
)
from .saved_model import (
    INFERENCE_THREADS,
    SB3Policy,
    check_model_file,
    load_model_policy,
    model_features,
    read_sidecar,
    torch_threads,
)

__all__ = [
    "GATE_MODEL",
    "INFERENCE_THREADS",
    "MODELS_DIR",
    "NET_MODEL",
    "PPO_MODEL",
    "PPO_SIDECAR",
    "RLLIB_PREFIX",
    "SB3Policy",
    "check_model_file",
    "load_model_policy",
    "load_policy",
    "model_features",
    "read_sidecar",
    "torch_threads",
]


def _spec_forms() -> str:
    """The specs other than a shipped player's name, from the registry's rows."""
    forms = []
    for row in PLAYER_ROWS.values():
        if row.match == "prefix":
            forms.append(f"{row.name}PATH ({row.description})")
        elif row.match == "suffix":
            forms.append(f"a {row.name} path ({row.description})")
    return ", ".join(forms)


def policy_spec_help() -> str:
    """The policy specs every command accepts, in one line (their ``--help`` uses it): the registry's rows."""
    players = "; ".join(f"{name}: {sentence}" for name, sentence in player_sentences().items())
    with_options = "".join(f" ({row.name} takes options: {row.name}:k=v,...)" for row in PLAYER_ROWS.values()
                           if row.match == "options")
    return f"{players}{with_options}; or {_spec_forms()}"


def unknown_policy(spec: str, also: Sequence[str] = ()) -> ValueError:
    """The one-line refusal of a spec that names nothing, with the closest name ("did you mean"); ``also``:
    the names the command accepts besides the players (``openspiel-simple`` for an opponent)."""
    import difflib

    names = list(dict.fromkeys([*shipped_names(), *also]))
    close = difflib.get_close_matches(spec, names, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ValueError(
        f"unknown policy {spec!r}{hint}: choose {', '.join(names)}, or {_spec_forms()} (--help describes each)"
    )


EXTRA_OF_MODULE = {"torch": "train", "sb3_contrib": "train", "stable_baselines3": "train", "pyspiel": "openspiel",
                   "ray": "rllib"}


def install_hint(module: str) -> str:
    """``pip install ...`` of the extra that brings ``module`` (one line's end)."""
    extra = EXTRA_OF_MODULE.get(module)
    if extra is None:
        return f"pip install {module}"
    return f"pip install 'gin3_env[{extra}]' (in a checkout: pip install -e '.[{extra}]')"


def importable(module: str) -> bool:
    """Whether ``module`` can be imported here, without importing it."""
    import importlib.util
    import sys

    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing_module(spec: str) -> str | None:
    """The optional module a player spec needs that is not installed here (``torch`` for a model), else None."""
    row = find_row(spec)
    needs = row.needs if row is not None else None
    return needs if needs is not None and not importable(needs) else None


def load_policy(spec: Any, rules: Rules | None = None, **kwargs: Any) -> Any:
    """A policy from a spec (see the module table), built for the rules of the game it will play
    (``rules``; None: the default rules); ``kwargs`` go to its constructor. Each player takes the rules
    its own way (its registry row's ``reads``); a policy object passed in must have been built for them
    (:func:`~gin3_env.game.policy.check_plays_rules`). A player whose optional library is not installed
    is an ``ImportError`` naming the extra to install."""
    if rules is not None and not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules (gin3_env.Rules), got {type(rules).__name__}")
    try:
        return _load_policy(spec, rules, **kwargs)
    except ModuleNotFoundError as exc:
        module = (exc.name or "").split(".")[0]
        if module not in EXTRA_OF_MODULE:
            raise
        name = os.fspath(spec) if isinstance(spec, str | os.PathLike) else type(spec).__name__
        hint = install_hint(module)
        raise ImportError(f"the player {name!r} needs {module}, which is not installed: {hint}") from None


def _load_policy(spec: Any, rules: Rules | None, **kwargs: Any) -> Any:
    if not isinstance(spec, str | os.PathLike):
        if callable(getattr(spec, "act", None)):
            if kwargs:
                raise ValueError("options cannot be applied to a policy object passed in")
            if rules is not None:
                check_plays_rules(spec, rules)
            return spec
        raise ValueError(
            f"policy spec must be one of {', '.join(shipped_names())}, a model path or an object with act(); "
            f"got {spec!r}"
        )
    row = find_row(spec)
    if row is None:
        raise unknown_policy(os.fspath(spec))
    return row.load(os.fspath(spec), rules, kwargs)
