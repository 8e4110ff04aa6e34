"""The shipped configs (the checkout's top-level ``configs/``) and reading a YAML config into a typed record's
keys: one reader for every pipeline (PPO, distillation, improvement, the gates).

An installed wheel carries the configs as ``gin3_training/configs/`` (``setup.py`` copies them); a checkout reads
``configs/`` beside ``training/``.
"""

from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path
from typing import Any

_PACKAGED_CONFIGS = Path(__file__).resolve().parent / "configs"
_CHECKOUT_CONFIGS = Path(__file__).resolve().parents[1] / "configs"
CONFIG_DIR = _PACKAGED_CONFIGS if _PACKAGED_CONFIGS.is_dir() else _CHECKOUT_CONFIGS
MAX_CONFIG_BYTES = 1 << 20
MAX_CONFIG_DEPTH = 20  # nesting of mappings and lists in a config: the shipped ones nest three levels


def check_yaml_depth(data: bytes | str, what: str, max_depth: int = MAX_CONFIG_DEPTH) -> None:
    """A ``ValueError`` naming ``what`` where the YAML ``data`` nests deeper than ``max_depth``, decided on the
    parser's events (no recursion, no object built); text that is not YAML raises ``yaml.YAMLError``."""
    import yaml

    depth = 0
    for event in yaml.parse(data, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > max_depth:
                raise ValueError(f"{what} nests more than {max_depth} levels; not read")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def parse_yaml(data: bytes, path: Path) -> Any:
    """A config file's YAML (safe loader: plain data only), refused in one line where it is not YAML or nests
    deeper than :data:`MAX_CONFIG_DEPTH` (checked on the parsed events, before any object is built)."""
    import yaml

    try:
        check_yaml_depth(data, f"config {path}")
        return yaml.safe_load(data)
    except yaml.YAMLError as exc:
        raise ValueError(f"config {path} is not valid YAML: {exc}") from None


def resolve_config_path(spec: str, folder: Path = CONFIG_DIR, kind: str = "config") -> Path:
    """A config file path, or the name of a shipped config in ``folder`` (``quick``, ``default``, ...); a
    relative path through a ``configs`` folder that is not found from here is the shipped file it names
    (``configs/quick.yaml`` works from any folder)."""
    path = Path(spec)
    if path.is_file():
        return path
    shipped = folder / f"{spec}.yaml"
    if shipped.is_file():
        return shipped
    if not path.is_absolute() and "configs" in path.parts:
        # a checkout's path (configs/quick.yaml, configs/rllib/quick.yaml) typed from another folder: the
        # shipped file it names, wherever the command runs
        parts = path.parts
        rest = parts[len(parts) - parts[::-1].index("configs"):]
        if rest and (CONFIG_DIR.joinpath(*rest)).is_file():
            return CONFIG_DIR.joinpath(*rest)
    names = sorted(p.stem for p in folder.glob("*.yaml"))
    close = difflib.get_close_matches(spec, names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise FileNotFoundError(f"no {kind} file {spec!r} (shipped {kind}s: {', '.join(names)}){hint}")


def read_config(
    spec: str | None,
    overrides: dict[str, Any] | None,
    record: type,
    folder: Path = CONFIG_DIR,
    kind: str = "config",
) -> dict[str, Any]:
    """The keys of a YAML config (path or shipped name) with ``overrides`` applied, each one a field
    of the dataclass ``record`` (an unknown key is a ``ValueError`` naming it)."""
    from gin3_env.files import read_regular_file

    data: dict[str, Any] = {}
    if spec:
        path = resolve_config_path(spec, folder, kind)
        loaded = parse_yaml(read_regular_file(path, kind, MAX_CONFIG_BYTES), path)
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise ValueError(f"config {path} must be a mapping of keys to values")
        data.update(loaded)
    data.update(overrides or {})
    known = {f.name for f in dataclasses.fields(record)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown config key(s) {unknown} (known: {', '.join(sorted(known))})")
    return data


def pipeline_of_config(spec: str) -> str:
    """The ``pipeline`` key of the config ``spec`` (a path or a shipped name): ``ppo`` where it has none. A
    config that cannot be found or read is a ``ValueError`` naming it, with the shipped names and, for a
    near miss, the name meant."""
    from gin3_env.files import read_regular_file

    try:
        path = resolve_config_path(spec)
    except FileNotFoundError as exc:  # its message has the near miss (resolve_config_path)
        raise ValueError(str(exc)) from None
    data = parse_yaml(read_regular_file(path, "config", MAX_CONFIG_BYTES), path)
    pipeline = data.get("pipeline", "ppo") if isinstance(data, dict) else "ppo"
    return str(pipeline)
