"""Config options described once, next to their field: the flags and their ``--help`` are made from it.

A training config is a dataclass whose fields are made with :func:`option`, which keeps the
field's meaning in its metadata::

    @dataclass
    class MyConfig:
        seed: int = option(1, "seed of the envs, the network and the evaluation deals")
        hidden: list[int] = option([256, 256], "hidden layer sizes, YAML list, e.g. '[256, 256]'")

:func:`add_option_flags` then gives an ``argparse`` parser one ``--kebab-case`` flag per
field, its help ``MEANING (TYPE; default DEFAULT)``; :func:`option_overrides` reads the flags
that were given back as config keys (YAML for everything but text: ``--net-arch '[64, 64]'``;
a value that is not YAML is a ``ValueError`` naming the flag). :func:`undescribed` lists the
fields that have no meaning yet (a test keeps it empty). Both training backends build their
``gin3 train --help`` this way.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
from typing import Any, get_type_hints

__all__ = ["add_option_flags", "describe", "flag_name", "option", "option_overrides", "undescribed"]

HELP_KEY = "help"
_TYPE_NAMES: dict[Any, str] = {bool: "true/false", int: "integer", float: "number", str: "text"}
_METAVARS: dict[Any, str] = {bool: "BOOL", int: "N", float: "X", str: "TEXT"}


def option(default: Any, help: str) -> Any:
    """A dataclass field with ``default`` (a list or mapping is copied for each instance) and its
    meaning ``help``, shown by ``--help``."""
    if not help.strip():
        raise ValueError("an option needs a description")
    metadata = {HELP_KEY: help}
    if isinstance(default, list | dict | set):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(default), metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def describe(f: dataclasses.Field[Any]) -> str:
    """The meaning of a field made by :func:`option` (``""`` for any other field)."""
    return str(f.metadata.get(HELP_KEY, ""))


def undescribed(record: type) -> list[str]:
    """The fields of the dataclass ``record`` that carry no description."""
    return [f.name for f in dataclasses.fields(record) if not describe(f)]


def flag_name(name: str) -> str:
    """The flag of a config key: ``total_timesteps`` -> ``--total-timesteps`` (``lambda_`` -> ``--lambda``)."""
    return "--" + name.rstrip("_").replace("_", "-")


def _default(f: dataclasses.Field[Any]) -> Any:
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if value == "":
        return "''"
    return str(value)


def flag_help(f: dataclasses.Field[Any], tp: Any) -> str:
    """``MEANING (TYPE; default DEFAULT)`` for the field ``f`` of type ``tp``."""
    meaning = describe(f)
    if not meaning:
        raise ValueError(f"config key {f.name!r} has no description: make the field with option(default, help)")
    text = f"{meaning} ({_TYPE_NAMES.get(tp, 'YAML')}; default {_shown(_default(f))})"
    return text.replace("%", "%%")  # argparse formats help with %


def add_option_flags(
    parser: argparse.ArgumentParser,
    record: type,
    title: str = "config keys",
    description: str = "each overrides the config file's value, which overrides the built-in default shown",
) -> None:
    """One flag per field of the dataclass ``record``, in a group ``title``; a true/false flag given
    alone means true. The values land in ``args.set_<field>`` (``None`` when not given)."""
    group = parser.add_argument_group(title, description)
    types = get_type_hints(record)
    for f in dataclasses.fields(record):
        tp = types[f.name]
        extra: dict[str, Any] = {"nargs": "?", "const": "true"} if tp is bool else {}
        group.add_argument(flag_name(f.name), dest=f"set_{f.name}", default=None,
                           metavar=_METAVARS.get(tp, "YAML"), help=flag_help(f, tp), **extra)


def option_overrides(args: argparse.Namespace, record: type) -> dict[str, Any]:
    """The config keys given as flags (see :func:`add_option_flags`): text as typed, anything else
    read as YAML; a value that is not YAML is a ``ValueError`` naming its flag."""
    import yaml

    from gin3_training.configs import check_yaml_depth

    types = get_type_hints(record)
    out: dict[str, Any] = {}
    for f in dataclasses.fields(record):
        raw = getattr(args, f"set_{f.name}", None)
        if raw is None:
            continue
        if types[f.name] is str:
            out[f.name] = raw
            continue
        try:
            check_yaml_depth(raw, f"{flag_name(f.name)} {raw[:40]!r}...")
            out[f.name] = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            reason = " ".join(str(exc).split())
            raise ValueError(f"{flag_name(f.name)} {raw!r}: not a YAML value ({reason})") from None
    return out


BACKENDS = ("sb3", "rllib")


def add_backend_flag(parser: argparse.ArgumentParser) -> None:
    """``gin3 train``'s ``--backend {sb3,rllib}``: the ``gin3`` command hands ``rllib`` to the RLlib trainer before
    a door parses it, so a door's help lists both, honestly (:func:`other_backend` covers a direct call)."""
    parser.add_argument("--backend", choices=BACKENDS, default="sb3",
                        help="sb3: this trainer (default); rllib: Ray RLlib instead (the 'rllib' extra, in a virtual "
                        "environment of its own; gin3 train --backend rllib --help lists its flags)")


def other_backend(args: argparse.Namespace, argv: list[str]) -> int | None:
    """The exit status of ``gin3 train ARGV`` where ``--backend`` names another trainer than this door's (a door
    called directly, not through the ``gin3`` command); None for ``sb3``."""
    if args.backend == "sb3":
        return None
    from gin3_env.cli import main as gin3_main

    return gin3_main(["train", *argv])
