"""The keys ``gin3 train-gate``'s config had before its ``stages`` (deprecated: read for one release).

Before the gates were rows of one table, the config named each gate's run by flat keys (``deals``,
``rounds``, ``draw_deals``, ``discard_seed``, ...). A config file or a flag with one of them still works:
the keys describe the whole run as they did (a key not given takes its default of then), they are read as
the :data:`OLD_DEFAULTS`' equivalent list of stages, and a ``DeprecationWarning`` (and one line on stderr
from the command) says so and shows the stages to write instead.
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

__all__ = ["OLD_DEFAULTS", "add_old_flags", "old_overrides", "read_old_keys", "stages_of_old_keys"]

OLD_DEFAULTS: dict[str, Any] = {  # the keys and their defaults before the stages
    "seed": 1000, "deals": 60000, "round_deals": 60000, "chunk": 2000, "shuffles": 64, "rounds": 1,
    "min_deadwood": 1, "draw_deals": 0, "draw_seed": 2000, "draw_rate": 0.25, "draw_shuffles": 64,
    "draw_only_take": True, "discard_deals": 0, "discard_seed": 3000, "discard_rate": 0.25, "discard_shuffles": 32,
    "discard_chunk": 1000,
}


def stages_of_old_keys(old: dict[str, Any]) -> list[dict[str, Any]]:
    """The stages the old keys ``old`` meant: the knock gate's rounds, then a draw gate and a discard gate
    where their deals are above zero (each fitted with the seed it was fitted with then)."""
    o = {**OLD_DEFAULTS, **old}
    rounds = o["rounds"]
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 0:
        raise ValueError(f"train-gate rounds must be an int >= 0, got {rounds!r}")
    stages = [{"decision": "knock", "deals": o["deals"] if r == 0 else o["round_deals"], "seed": o["seed"] + r,
               "shuffles": o["shuffles"], "chunk": o["chunk"], "options": {"min_deadwood": o["min_deadwood"]},
               **({"fit_seed": o["seed"]} if r else {})} for r in range(rounds + 1)]
    if o["draw_deals"]:
        stages.append({"decision": "draw", "deals": o["draw_deals"], "seed": o["draw_seed"],
                       "shuffles": o["draw_shuffles"], "rate": o["draw_rate"], "chunk": o["chunk"],
                       "fit_seed": o["seed"], "options": {"only_take": o["draw_only_take"]}})
    if o["discard_deals"]:
        stages.append({"decision": "discard", "deals": o["discard_deals"], "seed": o["discard_seed"],
                       "shuffles": o["discard_shuffles"], "rate": o["discard_rate"], "chunk": o["discard_chunk"]})
    return stages


def add_old_flags(parser: argparse.ArgumentParser) -> None:
    """The old keys' flags (``--draw-deals N``, ...), left out of ``--help``."""
    for name in OLD_DEFAULTS:
        parser.add_argument("--" + name.replace("_", "-"), dest=f"old_{name}", default=None, help=argparse.SUPPRESS)


def old_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The old keys given as flags, each read as YAML (nested at most as deep as a config file)."""
    import yaml

    from gin3_training.configs import check_yaml_depth

    out = {}
    for name in OLD_DEFAULTS:
        raw = getattr(args, f"old_{name}", None)
        if raw is not None:
            try:
                check_yaml_depth(raw, f"--{name.replace('_', '-')} {raw[:40]!r}...")
                out[name] = yaml.safe_load(raw)
            except yaml.YAMLError:
                raise ValueError(f"--{name.replace('_', '-')}: {raw!r} is not a YAML value") from None
    return out


def read_old_keys(data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """``data`` (a config's keys) with any old keys read as ``stages``, and the deprecation line ("" where none)."""
    old = {k: data.pop(k) for k in list(data) if k in OLD_DEFAULTS}
    if not old:
        return data, ""
    data["stages"] = stages_of_old_keys(old)
    line = (f"the config keys {sorted(old)} are deprecated and go in the next release; read as stages: "
            f"{data['stages']}")
    warnings.warn(line, DeprecationWarning, stacklevel=2)
    return data, line
