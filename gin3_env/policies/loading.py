"""``load_policy(spec, rules=...)``: built-in players, the shipped model, or a saved model file, each
built for the rules of the game it will play (``rules``, a :class:`~gin3_env.engine.rules.Rules`; None:
the rule book's).

The shipped players, each with its one sentence (:data:`PLAYERS`, which every command's
``--help`` prints):

- ``random``: a legal move drawn uniformly at random (:class:`RandomPolicy`, ``seed=`` keyword)
- ``heuristic``: the rule-based player: takes the discard when it improves the hand, discards to
  keep deadwood low and melds in reach, knocks well (:class:`HeuristicPolicy`, config keywords)
- ``search``: a decision-time search over deals consistent with what it has seen, weighted by a
  belief about the hidden cards (:class:`~gin3_env.policies.search.SearchPolicy`: ``seed=``,
  ``rules=``, option keywords; ``"search:k=v,..."`` with options, e.g.
  ``"search:samples=16,time_budget=none"``)
- ``trained``: the heuristic with three learnt gates (knock, draw and discard), model file
  models/gated.json (:class:`~gin3_env.policies.gated.GatedPolicy`)
- ``net``: a network acting alone, distilled from trained: it scores each legal move from that
  move's own inputs, model file models/net.npz (:class:`~gin3_env.policies.net.NetPolicy`:
  ``rules=`` or ``knock_limit=``)
- ``ppo``: the earlier MaskablePPO agent, model file models/ppo.zip (:class:`SB3Policy`)

and the other specs:

| spec                     | result                                                       |
|--------------------------|--------------------------------------------------------------|
| a path to a ``.npz``     | a network model file (``gin3 train --config quick``) as ``NetPolicy`` |
| a path to a ``.json``    | a gated model file (``gin3 train-gate``) as :class:`~gin3_env.policies.gated.GatedPolicy` |
| a path to a ``.zip``     | a saved sb3-contrib ``MaskablePPO`` model as :class:`SB3Policy` |
| ``"rllib:PATH"``         | a ``gin3 train --backend rllib`` checkpoint folder (torch only) |
| an object with ``act()`` | returned as is (with ``rules``: refused if built for others)   |

The rules: the one way they reach a player is ``load_policy(spec, rules=...)``; every command and
env that loads a player passes the game's. What each shipped player reads of them is
:data:`RULES_OF_PLAYERS`: ``random`` none; ``heuristic`` the knock limit (``HeuristicPolicy(knock_limit=)``);
``search`` all (``SearchPolicy(rules=)``: belief, playouts, blueprint); ``trained`` and a gate file the
knock limit (``GatedPolicy(gate, rules=)``); ``net`` and a ``.npz`` the knock limit
(``NetPolicy(rules=)``); a saved model (``ppo``, a ``.zip``, ``rllib:PATH``) none: it acts from the
mask and the observation, which the game's rules made, so it plays any rules (docs/design.md, "How
the rules reach a player"). A player that reads rules says the ones it was built for (``rules``, or
``knock_limit``), and :func:`~gin3_env.game.policy.check_plays_rules` refuses, in one line naming the
player and the option, a player object built for other rules than the game's; so does a
``knock_limit=`` keyword that contradicts ``rules``.

A model acts with **one torch thread** unless told otherwise (``threads=``
keyword; ``None`` leaves torch's own setting): a policy's forward pass is one
observation, far too small for several threads, and torch's default of one
thread per core made the same evaluation 3x slower, and sometimes 10x, as soon
as another process kept a core busy. The setting applies only while the model
acts (:func:`torch_threads`), so a training loop's own thread count is kept.

A model file is read once as data, never unpickled (:mod:`gin3_env.policies.model_file`),
and played by its actor network alone (:mod:`gin3_env.policies.player`: no SB3
trainer is built); ``trust_pickle=True`` is the explicit opt-in to SB3's own loader,
which runs code from the file. A model file that is missing, empty, not a zip, truncated,
corrupted (a checksum fails), a zip that is not a saved model, or one holding a
pickled field or class this package does not know raises :class:`ModelFileError` (a
``ValueError``; :class:`MissingModelFileError`, also a ``FileNotFoundError``,
for a missing one) with one line naming the file and what is wrong
(:func:`check_model_file`); an unknown name is a ``ValueError`` listing the choices.
torch is imported only when a model or an ``rllib:`` checkpoint is loaded,
``sb3_contrib`` (the ``train`` extra) only for a trusted file (Ray is never needed to play one).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.rules import Rules
from ..files import InputFileError, read_json
from ..game.policy import check_plays_rules
from ..observation.decoding import check_observation
from ..observation.features import FEATURE_NAMES, FeatureSet, feature_set, features_for_size
from ..observation.layout import OBS_SIZE
from .heuristic import HeuristicPolicy
from .model_fields import ModelFileError
from .model_file import is_trusted, load_sb3_model, read_model_file
from .random_policy import RandomPolicy

__all__ = [
    "BUILTIN_SPECS",
    "PLAYERS",
    "RULES_OF_PLAYERS",
    "SB3Policy",
    "check_model_file",
    "load_model_policy",
    "load_policy",
    "model_features",
    "torch_threads",
]

# One sentence per shipped player, the same everywhere: the CLI's help (policy_spec_help), this module's table,
# the README and the docs (tests/test_players_described.py holds them to it). A new player is one more row.
PLAYERS: dict[str, str] = {
    "random": "a legal move drawn uniformly at random",
    "heuristic": "the rule-based player: takes the discard when it improves the hand, discards to keep deadwood low "
                 "and melds in reach, knocks well",
    "search": "a decision-time search over deals consistent with what it has seen, weighted by a belief about the "
              "hidden cards",
    "trained": "the heuristic with three learnt gates (knock, draw and discard), model file models/gated.json",
    "net": "a network acting alone, distilled from trained: it scores each legal move from that move's own inputs, "
           "model file models/net.npz",
    "ppo": "the earlier MaskablePPO agent, model file models/ppo.zip",
}
BUILTIN_SPECS = ("random", "heuristic", "trained", "net", "ppo", "search")
# How each shipped player takes the rules of the game it plays (load_policy(spec, rules=...); docs/design.md).
RULES_OF_PLAYERS: dict[str, str] = {
    "random": "reads no rule: the legal mask is all it needs",
    "heuristic": "the game's knock_limit (the one rule it reads: it judges a take that lets it knock at once)",
    "search": "all of them: its belief, its playouts and its blueprint play the game's rules",
    "trained": "the game's knock_limit, for its base heuristic (GatedPolicy(gate, rules=...))",
    "net": "the game's knock_limit, one of the network's inputs",
    "ppo": "reads no rule: a saved model (ppo, a .zip, rllib:PATH) acts from the mask and the observation, "
           "which the game's rules made, so it plays any rules (as well as it learnt to under them)",
}
RLLIB_PREFIX = "rllib:"
MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
PPO_MODEL = MODELS_DIR / "ppo.zip"  # the MaskablePPO player (spec "ppo")
PPO_SIDECAR = MODELS_DIR / "ppo.json"
MAX_SIDECAR_BYTES = 1 << 20  # a model's description (best.json): a few lines
GATE_MODEL = MODELS_DIR / "gated.json"  # the "trained" player (PLAYERS["trained"]): the heuristic with its gates
NET_MODEL = MODELS_DIR / "net.npz"  # the "net" player (PLAYERS["net"])
INFERENCE_THREADS = 1  # torch threads while a model acts (see the module doc)


def policy_spec_help() -> str:
    """The policy specs every command accepts, in one line (their ``--help`` uses it)."""
    players = "; ".join(f"{name}: {sentence}" for name, sentence in PLAYERS.items())
    return (
        f"{players} (search takes options: search:k=v,...); or {RLLIB_PREFIX}PATH (an RLlib checkpoint folder), "
        "the path of a gate model file .json, of a network model file .npz or of a saved model .zip"
    )


def unknown_policy(spec: str, also: Sequence[str] = ()) -> ValueError:
    """The one-line refusal of a spec that names nothing, with the closest name ("did you mean"); ``also``:
    the names the command accepts besides the players (``openspiel-simple`` for an opponent)."""
    import difflib

    names = list(dict.fromkeys([*PLAYERS, *BUILTIN_SPECS, *also]))
    close = difflib.get_close_matches(spec, names, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ValueError(
        f"unknown policy {spec!r}{hint}: choose {', '.join(names)}, {RLLIB_PREFIX}PATH, a gate model .json, "
        "a network model .npz or a saved model .zip (--help describes each)"
    )


@contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run the block with ``threads`` torch threads, then restore the previous count (None: no change)."""
    if threads is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    if before == threads:
        yield
        return
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class SB3Policy:
    """A saved sb3-contrib ``MaskablePPO`` model acting from the observation dict.

    ``act`` calls ``model.predict(obs["observation"][:obs_dim], action_masks=mask,
    deterministic=True)``, where ``obs_dim`` is the model's observation size (a
    hand model can thus play in the match environment, whose vector is longer).
    A model trained on the derived features gets
    :func:`~gin3_env.observation.features.augment` of the observation instead.
    Which features a model was trained on is read from its description (the
    sidecar JSON beside the ``.zip``: ``"features"``, or ``"config"."features"``,
    ``"augmented"`` or ``"plain"``); a model without one is taken as augmented when
    its observation has ``AUGMENTED_SIZE`` entries.
    ``threads`` is the torch thread count while it acts (default 1; ``None``: torch's own).
    """

    def __init__(
        self,
        model: Any,
        name: str = "model",
        metadata: dict[str, Any] | None = None,
        deterministic: bool = True,
        threads: int | None = INFERENCE_THREADS,
    ) -> None:
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads must be an int >= 1 or None, got {threads!r}")
        shape = getattr(getattr(model, "observation_space", None), "shape", None)
        if not shape or len(shape) != 1:
            raise ValueError(f"model {name!r} must have a flat Box observation space, got shape {shape}")
        self.model = model
        self.obs_dim = int(shape[0])
        self.name = name
        self.metadata = dict(metadata or {})
        self.deterministic = deterministic
        self.features = model_features(self.metadata, self.obs_dim)
        self.feature_set: FeatureSet = feature_set(self.features)
        if self.feature_set.extra and self.obs_dim != self.feature_set.size:
            raise ValueError(
                f"model {name!r} is described as trained on the {self.features} features "
                f"({self.feature_set.size} entries) but its observation space has {self.obs_dim}"
            )
        self.base_size = self.obs_dim - self.feature_set.extra  # observation entries the input is made of
        self.threads = threads

    def act(self, observation: dict[str, Any]) -> int:
        vector, mask = check_observation(observation)
        if vector.shape[0] < min(self.obs_dim, OBS_SIZE):
            raise ValueError(f"model {self.name!r} expects {self.obs_dim} observation entries, got {vector.shape[0]}")
        model_input = self.feature_set.encode(vector, self.base_size)
        with torch_threads(self.threads):
            action, _ = self.model.predict(
                np.asarray(model_input, dtype=np.float32),
                action_masks=mask.astype(bool),
                deterministic=self.deterministic,
            )
        action = int(np.asarray(action).reshape(-1)[0])
        if not mask[action]:
            raise ValueError(f"model {self.name!r} chose illegal action {action}")
        return action

    def __repr__(self) -> str:
        return f"SB3Policy(name={self.name!r}, obs_dim={self.obs_dim})"


def model_features(metadata: dict[str, Any], obs_dim: int) -> str:
    """``"augmented"`` or ``"plain"``: from a model's description, else from its observation size."""
    features = metadata.get("features")
    config = metadata.get("config")
    if features is None and isinstance(config, dict):
        features = config.get("features")
    if features is None:
        return features_for_size(obs_dim).name
    if features not in FEATURE_NAMES:
        raise ValueError(f"model description names unknown features {features!r} (known: {', '.join(FEATURE_NAMES)})")
    return str(features)


def _read_sidecar(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = read_json(path, "model description", MAX_SIDECAR_BYTES)
    except InputFileError as exc:
        raise ModelFileError(path, exc.reason, "model description") from None
    if not isinstance(data, dict):
        raise ModelFileError(path, "must hold a JSON object", "model description")
    return data


def check_model_file(path: str | os.PathLike[str], what: str = "model file", weights: bool = True) -> Path:
    """``path`` if it is a model file a player can be made of, else :class:`ModelFileError` saying why:
    :func:`~gin3_env.policies.model_file.read_model_file`'s checks and, with ``weights``, its weights
    fitting the network its description names (:func:`~gin3_env.policies.player.build_player`).
    ``weights=False`` reads the file and its description only, and imports no torch."""
    model = read_model_file(path, what, weights=weights)
    if weights and model.description is not None:
        from .player import build_player  # imports torch

        build_player(model)
    return Path(path)


def load_model_policy(path: str | os.PathLike[str], name: str | None = None, **kwargs: Any) -> SB3Policy:
    """Load a MaskablePPO ``.zip`` as an :class:`SB3Policy` (``device``, ``deterministic``, ``threads``
    keywords): read once as data and its actor network built alone (:mod:`.player`, no SB3 trainer);
    ``trust_pickle=True`` opens it with SB3's own loader instead, which runs code from the file: only
    for a file you trust (the env checks are made either way)."""
    file = Path(path)
    device = kwargs.pop("device", "cpu")
    deterministic = kwargs.pop("deterministic", True)
    threads = kwargs.pop("threads", INFERENCE_THREADS)
    trust_pickle = kwargs.pop("trust_pickle", False)
    if kwargs:
        raise ValueError(f"unknown option(s) for a model policy: {sorted(kwargs)}")
    if not isinstance(trust_pickle, bool):
        raise ValueError(f"trust_pickle must be True or False, got {trust_pickle!r}")
    if trust_pickle or is_trusted(file):
        model: Any = load_sb3_model(file, device=device, trust_pickle=True, what="policy model file")
    else:
        from .player import load_player  # imports torch, never stable-baselines3

        model = load_player(file, "policy model file", device)
    metadata = _read_sidecar(file.with_suffix(".json"))
    return SB3Policy(model, name or str(metadata.get("name", file.stem)), metadata, deterministic, threads)


# the optional modules a player may need, and the extra that installs each
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
    text = os.fspath(spec)
    needs_torch = text == "ppo" or text.startswith(RLLIB_PREFIX) or text.endswith(".zip")
    return "torch" if needs_torch and not importable("torch") else None


def load_policy(spec: Any, rules: Rules | None = None, **kwargs: Any) -> Any:
    """A policy from a spec (see the module table), built for the rules of the game it will play
    (``rules``; None: the default rules); ``kwargs`` go to its constructor. Each player takes the rules
    its own way (:data:`RULES_OF_PLAYERS`); a policy object passed in must have been built for them
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


def _heuristic(rules: Rules | None, kwargs: dict[str, Any]) -> HeuristicPolicy:
    """The heuristic at the game's knock limit (a ``knock_limit=`` keyword other than the rules' is refused)."""
    if rules is None:
        return HeuristicPolicy(**kwargs)
    limit = kwargs.pop("knock_limit", rules.knock_limit)
    if limit != rules.knock_limit:
        raise ValueError(f"the player 'heuristic' was given knock_limit={limit!r} but the game's rules have "
                         f"knock_limit {rules.knock_limit}: give the rules alone")
    return HeuristicPolicy(**kwargs, knock_limit=rules.knock_limit)


def _load_policy(spec: Any, rules: Rules | None, **kwargs: Any) -> Any:
    if not isinstance(spec, str | os.PathLike):
        if callable(getattr(spec, "act", None)):
            if kwargs:
                raise ValueError("options cannot be applied to a policy object passed in")
            if rules is not None:
                check_plays_rules(spec, rules)
            return spec
        raise ValueError(
            f"policy spec must be one of {', '.join(BUILTIN_SPECS)}, a model path or an object with act(); got {spec!r}"
        )
    text = os.fspath(spec)
    if isinstance(spec, str) and text.startswith(RLLIB_PREFIX):
        from .rllib_policy import load_rllib_policy  # lazy: needs torch

        return load_rllib_policy(text[len(RLLIB_PREFIX) :], **kwargs)  # rule-blind: the mask says what is legal
    if text == "random":
        return RandomPolicy(**kwargs)  # reads no rule
    if text == "heuristic":
        return _heuristic(rules, kwargs)
    if text == "search" or text.startswith("search:"):
        from .search import SearchPolicy, parse_options  # imports the compiled core (numba)

        options = parse_options(text[len("search:") :]) if text.startswith("search:") else {}
        return SearchPolicy(**{**options, **kwargs}, rules=rules)
    if text == "trained" or text.endswith(".json"):
        from .gate_file import load_gated
        from .gated import GatedPolicy  # imports the compiled core (numba)

        if kwargs:
            raise ValueError(f"a gated player ({text}) takes no options, got {sorted(kwargs)}")
        if text == "trained":
            return GatedPolicy(load_gated(GATE_MODEL), name="trained", rules=rules)
        return GatedPolicy(load_gated(text), name=Path(text).stem, rules=rules)
    if text == "net" or text.endswith(".npz"):
        from .net import NetPolicy, load_net  # imports the compiled core (numba)

        if text == "net":
            return NetPolicy(load_net(NET_MODEL), name="net", rules=rules, **kwargs)
        return NetPolicy(load_net(text), name=Path(text).stem, rules=rules, **kwargs)
    # a saved model (ppo, a .zip): rule-blind, it plays any rules from the mask and the observation
    if text == "ppo":
        if not PPO_MODEL.is_file():
            raise FileNotFoundError(
                f"no PPO model is shipped ({PPO_MODEL} does not exist); "
                "train one with `gin3 train` and pass its .zip path instead"
            )
        sidecar = _read_sidecar(PPO_SIDECAR)
        return load_model_policy(PPO_MODEL, name=str(sidecar.get("name", "ppo")), **kwargs)
    if isinstance(spec, os.PathLike) or text.endswith(".zip") or os.sep in text or Path(text).exists():
        return load_model_policy(text, **kwargs)
    raise unknown_policy(text)
