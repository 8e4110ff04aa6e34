"""The player registry: one row per shipped player and per kind of file a spec may name.

Every place that turns a spec into a player reads these rows: :func:`~gin3_env.policies.load_policy`
(the row's ``load``), :func:`~gin3_env.policies.check_policy_spec` (its ``check``),
:func:`~gin3_env.policies.policy_spec_files` (its ``files``), every command's ``--help`` and the refusal
of an unknown name (:func:`~gin3_env.policies.policy_spec_help`: the rows' sentences), the batched forms
(:func:`gin3_env.vector.as_batch` and :func:`~gin3_env.policies.opponent_model.opponent_model`: its
``batched``), and the shipped model files (its ``model_file``). A new player is one more row in
:data:`PLAYER_ROWS` and the module that plays it.

The shipped players, each with its one sentence (every command's ``--help`` prints them):

- ``random``: a legal move drawn uniformly at random (:class:`~gin3_env.policies.RandomPolicy`, ``seed=``)
- ``heuristic``: the rule-based player: takes the discard when it improves the hand, discards to keep
  deadwood low and melds in reach, knocks well (:class:`~gin3_env.policies.HeuristicPolicy`, config keywords)
- ``search``: a decision-time search over deals consistent with what it has seen, weighted by a belief
  about the hidden cards (:class:`~gin3_env.policies.search.SearchPolicy`: ``seed=``, option keywords;
  ``"search:k=v,..."`` with options, e.g. ``"search:samples=16,time_budget=none"``)
- ``gated``: the heuristic with three learnt gates (knock, draw and discard), gate file models/gated.json
  (:class:`~gin3_env.policies.gated.GatedPolicy`)
- ``net``: a network acting alone, distilled from gated and improved on its own discards valued on the true deal:
  it scores each legal move from that move's own inputs, model file models/net.npz
  (:class:`~gin3_env.policies.net.NetPolicy`)
- ``trained``: the strongest learnt player shipped, whatever its form: today net (an alias)
  (``net``'s row and model file under another name, out of the ladder; :data:`STRONGEST` names the player)
- ``ppo``: the earlier MaskablePPO agent, model file models/ppo.zip (:class:`~gin3_env.policies.SB3Policy`)

and the other specs (rows keyed on a prefix or a file's suffix):

| spec                     | result                                                                    |
|--------------------------|---------------------------------------------------------------------------|
| ``"rllib:PATH"``         | a ``gin3 train --backend rllib`` checkpoint folder (torch only)           |
| a path to a ``.json``    | a gate file (``gin3 train-gate``) as a ``GatedPolicy``                    |
| a path to a ``.npz``     | a network model file (``gin3 train --config quick``) as a ``NetPolicy``   |
| a path to a ``.zip``     | a saved sb3-contrib ``MaskablePPO`` model as an ``SB3Policy`` (also any other path) |
| an object with ``act()`` | returned as is (with ``rules``: refused if built for others)              |

The rules reach every player one way: ``load_policy(spec, rules=...)`` hands the game's
:class:`~gin3_env.engine.rules.Rules` to the row's loader, which builds the player for them. A row says
which options its player reads (``reads``: none, the knock limit, or all) and how (``rules_note``);
docs/design.md, "How the rules reach a player", says why.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from ..engine.rules import Rules
from .shipped import GATE_MODEL, MODELS_DIR, NET_MODEL, PPO_MODEL, PPO_SIDECAR

__all__ = [
    "BATCHED_FORMS",
    "GATE_MODEL",
    "MODELS_DIR",
    "NET_MODEL",
    "PLAYER_ROWS",
    "PPO_MODEL",
    "PPO_SIDECAR",
    "PlayerRow",
    "find_row",
    "ladder_players",
    "model_path",
    "player_sentences",
    "shipped_names",
    "takes_seed",
]

ALL_RULES: tuple[str, ...] = Rules.option_names()
NO_RULES: tuple[str, ...] = ()
KNOCK_LIMIT: tuple[str, ...] = ("knock_limit",)
RLLIB_PREFIX = "rllib:"

# The batched forms a row may name (what gin3_env.vector.as_batch and opponent_model make of its player):
# "random" uniform over the legal moves, "heuristic" the compiled heuristic, "rows" the player's own
# act_batch(observations, masks), "model" one torch forward of a saved model, "blueprint" a search's blueprint.
BatchedForm = Literal["random", "heuristic", "rows", "model", "blueprint"]
BATCHED_FORMS: tuple[str, ...] = ("random", "heuristic", "rows", "model", "blueprint")
Match = Literal["name", "options", "prefix", "suffix"]

Loader = Callable[[str, "Rules | None", dict[str, Any]], Any]
Checker = Callable[[str], None]
FileLister = Callable[[str], list[str]]


def _no_check(spec: str) -> None:
    """A built-in player: nothing to read before it is loaded."""


def _no_files(spec: str) -> list[str]:
    return []


def _the_file(spec: str) -> list[str]:
    return [spec]


@dataclass(frozen=True)
class PlayerRow:
    """One player (or one kind of file a spec names) and everything the package needs to know of it.

    ``name``: the spec (``"heuristic"``), its prefix (``"rllib:"``) or a file suffix (``".json"``), as
    ``match`` says (``"name"`` exactly; ``"options"`` the name or ``name:k=v,...``; ``"prefix"``; ``"suffix"``).
    ``description``: one sentence (a shipped player's is printed by every ``--help``, and the README and the
    docs state it). ``reads``: the :class:`Rules` options it reads; ``rules_note`` how it takes them.
    ``load(spec, rules, kwargs)``: the player built for ``rules``. ``check(spec)``: refuse the spec now,
    importing no torch. ``files(spec)``: the files the spec names (a command must never write them).
    ``batched``: its batched form (:data:`BATCHED_FORMS`), None where it has none. ``model_file``: the
    shipped file it plays from (None: none, or the spec's own path). ``seeded``: its loader takes ``seed=``.
    ``ladder``: its place in ``gin3 ladder``'s default roster, weakest first by expectation (None: not in it).
    ``needs``: the optional module it imports to play (``"torch"``), None for none. ``shipped``: a named
    player (listed with its sentence) rather than a kind of file. ``alias_of``: the row this name stands for
    (``trained``: the strongest learnt player), None for a player of its own."""

    name: str
    description: str
    reads: tuple[str, ...]
    rules_note: str
    load: Loader
    check: Checker = _no_check
    files: FileLister = _no_files
    batched: BatchedForm | None = None
    model_file: Path | None = None
    seeded: bool = False
    needs: str | None = None
    match: Match = "name"
    shipped: bool = True
    ladder: int | None = None
    alias_of: str | None = None

    def __post_init__(self) -> None:
        if self.batched is not None and self.batched not in BATCHED_FORMS:
            raise ValueError(f"player row {self.name!r}: batched must be one of {BATCHED_FORMS} or None")
        unknown = [o for o in self.reads if o not in ALL_RULES]
        if unknown:
            raise ValueError(f"player row {self.name!r} reads unknown rules options {unknown}")

    def matches(self, text: str, is_str: bool = True) -> bool:
        if self.match == "name":
            return text == self.name
        if self.match == "options":
            return text == self.name or text.startswith(self.name + ":")
        if self.match == "prefix":
            return is_str and text.startswith(self.name)
        return text.endswith(self.name)


# ---- the loaders, checks and file lists (each imports its player's module when called) ----------------------------


def _load_random(spec: str, rules: Rules | None, kwargs: dict[str, Any]) -> Any:
    from .random_policy import RandomPolicy

    return RandomPolicy(**kwargs)  # reads no rule


def _load_heuristic(spec: str, rules: Rules | None, kwargs: dict[str, Any]) -> Any:
    """The heuristic at the game's knock limit (a ``knock_limit=`` keyword other than the rules' is refused)."""
    from .heuristic import HeuristicPolicy

    return HeuristicPolicy(rules=rules, **kwargs)


def _search_options(spec: str) -> str | None:
    return spec[len("search:"):] if spec.startswith("search:") else None


def _load_search(spec: str, rules: Rules | None, kwargs: dict[str, Any]) -> Any:
    from .search import SearchPolicy, parse_options  # imports the compiled core (numba)

    text = _search_options(spec)
    options = parse_options(text) if text is not None else {}
    return SearchPolicy(**{**options, **kwargs}, rules=rules)


def _check_search(spec: str) -> None:
    text = _search_options(spec)
    if text is not None:
        from .search import parse_options

        parse_options(text)


def _search_files(spec: str) -> list[str]:
    """Each option's value that names a file, and the files that value names in turn (a model file's
    description beside it)."""
    text = _search_options(spec)
    if text is None:
        return []
    values = [item.partition("=")[2].strip() for item in text.split(",") if "=" in item]
    out: list[str] = []
    for value in values:
        if not value or value.startswith("search:"):
            continue
        row = find_row(value)
        out.extend(dict.fromkeys([value, *(row.files(value) if row is not None else [])]))
    return list(dict.fromkeys(out))


def _load_gated(spec: str, rules: Rules | None, kwargs: dict[str, Any]) -> Any:
    """``gated`` (the shipped gate file) or a gate file's path, as a GatedPolicy for the game's rules."""
    from .gate_file import load_gated
    from .gated import GatedPolicy  # imports the compiled core (numba)

    if kwargs:
        raise ValueError(f"a gated player ({spec}) takes no options, got {sorted(kwargs)}")
    name = spec if spec in PLAYER_ROWS else Path(spec).stem
    return GatedPolicy(load_gated(model_path(spec)), name=name, rules=rules)


def _check_gate_file(spec: str) -> None:
    from .gate_file import load_gated

    load_gated(model_path(spec))


def _load_net(spec: str, rules: Rules | None, kwargs: dict[str, Any]) -> Any:
    from .net import NetPolicy, load_net  # imports the compiled core (numba)

    name = spec if spec in PLAYER_ROWS else Path(spec).stem
    return NetPolicy(load_net(model_path(spec)), name=name, rules=rules, **kwargs)


def _check_net(spec: str) -> None:
    from .net import load_net

    load_net(model_path(spec))


def _load_ppo(spec: str, rules: Rules | None, kwargs: dict[str, Any]) -> Any:
    # a saved model: rule-blind, it plays any rules from the mask and the observation
    from .saved_model import load_model_policy, read_sidecar

    if not PPO_MODEL.is_file():
        raise FileNotFoundError(
            f"no PPO model is shipped ({PPO_MODEL} does not exist); "
            "train one with `gin3 train` and pass its .zip path instead"
        )
    sidecar = read_sidecar(PPO_SIDECAR)
    return load_model_policy(PPO_MODEL, name=str(sidecar.get("name", "ppo")), **kwargs)


def _check_ppo(spec: str) -> None:
    from .saved_model import check_model_file

    check_model_file(PPO_MODEL, "shipped model file", weights=False)


def _load_saved_model(spec: str, rules: Rules | None, kwargs: dict[str, Any]) -> Any:
    from .saved_model import load_model_policy

    return load_model_policy(spec, **kwargs)  # rule-blind, as the ppo player


def _check_saved_model(spec: str) -> None:
    from .saved_model import check_model_file

    check_model_file(spec, "policy model file", weights=False)


def _saved_model_files(spec: str) -> list[str]:
    return [spec, str(Path(spec).with_suffix(".json"))] if spec.endswith(".zip") else [spec]


def _load_rllib(spec: str, rules: Rules | None, kwargs: dict[str, Any]) -> Any:
    from .rllib_policy import load_rllib_policy  # lazy: needs torch

    return load_rllib_policy(spec[len(RLLIB_PREFIX):], **kwargs)  # rule-blind: the mask says what is legal


def _check_rllib(spec: str) -> None:
    folder = Path(spec[len(RLLIB_PREFIX):])
    if not folder.exists():
        raise FileNotFoundError(f"RLlib checkpoint not found: {folder}")
    if not folder.is_dir():
        raise ValueError(f"an RLlib checkpoint is a folder (RUN_DIR/checkpoint), but {folder} is a file")


def _rllib_files(spec: str) -> list[str]:
    return [spec[len(RLLIB_PREFIX):]]


_RULE_BLIND = ("reads no rule: a saved model (ppo, a .zip, rllib:PATH) acts from the mask and the observation, "
               "which the game's rules made, so it plays any rules (as well as it learnt to under them)")
_GATED_RULES = "the game's knock_limit, for its base heuristic (GatedPolicy(gate, rules=...))"
_NET_RULES = "the game's knock_limit, one of the network's inputs"

_ROWS: tuple[PlayerRow, ...] = (
    PlayerRow(
        "random", "a legal move drawn uniformly at random",
        NO_RULES, "reads no rule: the legal mask is all it needs",
        _load_random, batched="random", seeded=True, ladder=0,
    ),
    PlayerRow(
        "heuristic", "the rule-based player: takes the discard when it improves the hand, discards to keep deadwood "
                     "low and melds in reach, knocks well",
        KNOCK_LIMIT, "the game's knock_limit (the one rule it reads: it judges a take that lets it knock at once)",
        _load_heuristic, batched="heuristic", ladder=1,
    ),
    PlayerRow(
        "search", "a decision-time search over deals consistent with what it has seen, weighted by a belief about "
                  "the hidden cards",
        ALL_RULES, "all of them: its belief, its playouts and its blueprint play the game's rules",
        _load_search, _check_search, _search_files, batched="blueprint", seeded=True, match="options", ladder=5,
    ),
    PlayerRow(
        "gated", "the heuristic with three learnt gates (knock, draw and discard), gate file models/gated.json",
        KNOCK_LIMIT, _GATED_RULES,
        _load_gated, _check_gate_file, batched="rows", model_file=GATE_MODEL, ladder=2,
    ),
    PlayerRow(
        "net", "a network acting alone, distilled from gated and improved on its own discards valued on the true "
               "deal: it scores each legal move from that move's own inputs, model file models/net.npz",
        KNOCK_LIMIT, _NET_RULES,
        _load_net, _check_net, batched="rows", model_file=NET_MODEL, ladder=3,
    ),
    PlayerRow(
        "ppo", "the earlier MaskablePPO agent, model file models/ppo.zip",
        NO_RULES, _RULE_BLIND,
        _load_ppo, _check_ppo, batched="model", model_file=PPO_MODEL, needs="torch", ladder=4,
    ),
    PlayerRow(
        RLLIB_PREFIX, "an RLlib checkpoint folder", NO_RULES, _RULE_BLIND,
        _load_rllib, _check_rllib, _rllib_files, needs="torch", match="prefix", shipped=False,
    ),
    PlayerRow(
        ".json", "a gate file, as gin3 train-gate writes", KNOCK_LIMIT, _GATED_RULES,
        _load_gated, _check_gate_file, _the_file, batched="rows", match="suffix", shipped=False,
    ),
    PlayerRow(
        ".npz", "a network model file", KNOCK_LIMIT, _NET_RULES,
        _load_net, _check_net, _the_file, batched="rows", match="suffix", shipped=False,
    ),
    PlayerRow(
        ".zip", "a saved model; any other path is read as one", NO_RULES, _RULE_BLIND,
        _load_saved_model, _check_saved_model, _saved_model_files, batched="model", needs="torch", match="suffix",
        shipped=False,
    ),
)

STRONGEST = "net"  # the player the alias trained names: the strongest learnt player shipped (docs/distillation.md)


def alias(name: str, of: PlayerRow, description: str) -> PlayerRow:
    """``of``'s row under another ``name`` (its loader, model file and batched form), out of the ladder."""
    return replace(of, name=name, description=description, ladder=None, alias_of=of.name)


def _listed(rows: tuple[PlayerRow, ...]) -> tuple[PlayerRow, ...]:
    """The rows in the order help lists them: ``trained`` right after the player it names."""
    trained = alias("trained", next(row for row in rows if row.name == STRONGEST),
                    f"the strongest learnt player shipped, whatever its form: today {STRONGEST} (an alias)")
    return tuple(r for row in rows for r in ((row, trained) if row.name == STRONGEST else (row,)))


# name -> row, in the order help lists them. A new player is one more row (tests add one by monkeypatching this).
PLAYER_ROWS: dict[str, PlayerRow] = {row.name: row for row in _listed(_ROWS)}
SAVED_MODEL = ".zip"  # the row of a path that names no other row (a saved model)


def find_row(spec: str | os.PathLike[str]) -> PlayerRow | None:
    """The row of a spec: a shipped name first, then a name with options or a prefix, then a file suffix, then any
    other path (a saved model); None for a spec that names nothing."""
    text = os.fspath(spec)
    is_str = isinstance(spec, str)
    rows = list(PLAYER_ROWS.values())
    for kinds in (("name",), ("options", "prefix"), ("suffix",)):
        for row in rows:
            if row.match in kinds and row.matches(text, is_str):
                return row
    if isinstance(spec, os.PathLike) or os.sep in text or Path(text).exists():
        return PLAYER_ROWS.get(SAVED_MODEL)
    return None


def model_path(spec: str | os.PathLike[str]) -> Path:
    """The file a spec's player is read from: a shipped player's model file, else the spec's own path."""
    row = PLAYER_ROWS.get(os.fspath(spec))
    if row is not None and row.model_file is not None:
        return row.model_file
    return Path(spec)


def takes_seed(spec: str) -> bool:
    """Whether the player of ``spec`` takes ``seed=`` (random, a search)."""
    row = find_row(spec)
    return row is not None and row.seeded


def shipped_names() -> list[str]:
    """The names of the shipped players, in the registry's order."""
    return [row.name for row in PLAYER_ROWS.values() if row.shipped]


def ladder_players() -> tuple[str, ...]:
    """The shipped players of ``gin3 ladder``'s default roster, weakest first by expectation (rows' ``ladder``)."""
    rows = sorted((row for row in PLAYER_ROWS.values() if row.ladder is not None), key=lambda row: row.ladder or 0)
    return tuple(row.name for row in rows)


def player_sentences() -> dict[str, str]:
    """Each shipped player's one sentence, by name (what every ``--help`` prints)."""
    return {row.name: row.description for row in PLAYER_ROWS.values() if row.shipped}
