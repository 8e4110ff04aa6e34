"""A saved stable-baselines3 model read as data: nothing in the file is ever executed.

An SB3 model file is a zip: ``data`` (JSON), ``policy.pth`` and
``policy.optimizer.pth`` (torch tensors), ``pytorch_variables.pth``. SB3 stores
what JSON cannot hold (the policy class, the spaces, the schedules, the last
rollout's arrays) in ``data`` as base64 *pickles* (``":serialized:"``), and its
own loader unpickles them: a crafted file runs code. Here no pickle in ``data``
is ever opened. Each serialized field is recognised from the readable
description SB3 writes beside it and rebuilt from what this package knows:

- ``policy_class``: ``MaskableActorCriticPolicy`` (``"MlpPolicy"``) or the card-aware
  :class:`~gin3_env.policies.sb3_network.CardAwarePolicy`, by module and class name;
- ``observation_space``: ``Box(0, 1, (n,), float32)`` for an input size of this package's observations;
- ``action_space``: ``Discrete(107)``;
- ``learning_rate``, ``lr_schedule``, ``clip_range``, ``clip_range_vf``: a constant or linear
  schedule from its written values (or the config's, on resume);
- ``rollout_buffer_class``: sb3-contrib's ``MaskableRolloutBuffer``;
- ``policy_kwargs``: its plain entries, ``activation_fn`` one of :data:`ACTIVATIONS`;
- ``_last_obs``, ``_last_episode_starts``, ``_last_original_obs``, ``ep_info_buffer``,
  ``ep_success_buffer``: left empty (the last rollout's state; the next ``learn`` starts afresh).

Any other serialized field, a class not in the list, or a pickle that names
anything outside the libraries these fields come from (:data:`PICKLE_MODULES`,
read from the pickle's opcodes without running it) is refused with
:class:`ModelFileError` naming the file and the field. Every ``.pth`` member is
read with torch's weights-only reader (tensors and plain containers, no code).
SB3's loader then gets every serialized field already rebuilt
(``custom_objects``), so it has nothing left to unpickle.

Trusting a file: :func:`trust_model_file` (``load_policy(path,
trust_pickle=True)``, ``--trust-model-file PATH`` on the command line) lets
SB3's own loader open that one file, which **runs whatever code the file
holds**: only for a file you made or fully trust.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import math
import os
import pickletools
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.actions import NUM_ACTIONS
from ..observation.features import FEATURE_SETS
from ..observation.layout import MATCH_OBS_SIZE, OBS_SIZE

SB3_MEMBERS = ("data", "policy.pth")
SERIALIZED = ":serialized:"
POLICY_CLASSES = {  # (module, class name) as a model file names them -> what is built
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "mlp",
    ("gin3_env.policies.sb3_network", "CardAwarePolicy"): "card",
    ("gin3_env.training.network", "CardAwarePolicy"): "card",  # where the class lived before
}
ACTIVATIONS = ("Tanh", "ReLU", "ELU", "LeakyReLU", "SiLU", "GELU")  # torch.nn activations policy_kwargs may name
INPUT_SIZES = sorted({fs.input_size(base) for fs in FEATURE_SETS.values() for base in (OBS_SIZE, MATCH_OBS_SIZE)})
SCHEDULE_FIELDS = ("learning_rate", "lr_schedule", "clip_range", "clip_range_vf")
ROLLOUT_STATE_FIELDS = (
    "_last_obs", "_last_episode_starts", "_last_original_obs", "ep_info_buffer", "ep_success_buffer",
)
_FUNCTION = re.compile(r"<function ([A-Za-z_][\w]*)\.[A-Za-z_]\w* at 0x[0-9a-fA-F]+>")
_CLASS = re.compile(r"<class '([A-Za-z_][\w.]*)'>")
_NUMBER = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
_CONSTANT = re.compile(rf"ConstantSchedule\(val={_NUMBER}\)")
_LINEAR = re.compile(rf"LinearSchedule\(start={_NUMBER}, end={_NUMBER}, end_fraction={_NUMBER}\)")

PICKLE_MODULES = (  # what the pickles of the fields above may name (checked, never loaded)
    "numpy", "collections", "gymnasium.spaces", "stable_baselines3.common.utils",
    "sb3_contrib.common.maskable.policies", "sb3_contrib.common.maskable.buffers",
    "gin3_env.policies.sb3_network", "gin3_env.training.network", "torch.nn.modules.activation",
)
_STRINGS = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINSTRING", "BINSTRING", "STRING"}
_NO_PUSH = {"PROTO", "FRAME", "MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT"}

_trusted: set[Path] = set()


class ModelFileError(ValueError):
    """A model or checkpoint file that cannot be used; ``str()`` is one line naming it and the problem."""

    def __init__(self, path: str | os.PathLike[str], problem: str, what: str = "model file") -> None:
        self.path = Path(path)
        self.problem = " ".join(problem.split())
        super().__init__(f"{what} {self.path} {self.problem}")


class MissingModelFileError(ModelFileError, FileNotFoundError):
    """The model file does not exist."""


def trust_model_file(path: str | os.PathLike[str]) -> None:
    """Let SB3's own loader (which unpickles, so runs code from the file) open ``path`` in this process."""
    _trusted.add(Path(path).resolve())


def is_trusted(path: str | os.PathLike[str]) -> bool:
    return Path(path).resolve() in _trusted


TRUST_FLAG = "--trust-model-file"


def add_trust_flag(parser: Any) -> None:
    """The command-line opt-in to SB3's own loader for named files (``--trust-model-file PATH``, repeatable)."""
    parser.add_argument(
        TRUST_FLAG, action="append", default=[], metavar="PATH",
        help="load this model file with stable-baselines3's own loader, which RUNS CODE stored in the file "
        "(by default a model is read as data and nothing in it runs): only for a file you made or fully trust",
    )


def trust_from_args(args: Any) -> None:
    """Trust the files named by :func:`add_trust_flag`'s flag."""
    for path in getattr(args, "trust_model_file", None) or []:
        trust_model_file(path)


def short_error(exc: BaseException) -> str:
    """``Type: first 200 characters of the message`` on one line."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


# ------------------------------------------------------------------ the zip
_MAGIC = {b"\x89PNG": "a PNG image", b"%PDF": "a PDF document", b"\xff\xd8\xff": "a JPEG image",
          b"\x1f\x8b": "a gzip file", b"{": "JSON text", b"#!": "a script"}


def _looks_like(head: bytes) -> str:
    for magic, name in _MAGIC.items():
        if head.startswith(magic):
            return f" (it looks like {name})"
    return ""


def _open_zip(file: Path, what: str) -> dict[str, Any]:
    """The ``data`` JSON of a complete SB3 zip (every member passing its checksum)."""
    if not file.exists():
        raise MissingModelFileError(file, "not found", what)
    if file.is_dir():
        raise ModelFileError(file, "is a folder, not a saved model (.zip)", what)
    try:
        with open(file, "rb") as fh:
            head = fh.read(8)
        size = file.stat().st_size
    except OSError as exc:
        raise ModelFileError(file, f"cannot be read ({exc.strerror or short_error(exc)})", what) from None
    if size == 0:
        raise ModelFileError(file, "is empty (0 bytes)", what)
    if not zipfile.is_zipfile(file):
        if head.startswith(b"PK"):
            raise ModelFileError(file, f"is truncated or damaged: a zip file without its end ({size} bytes)", what)
        raise ModelFileError(file, f"is not a saved model: not a zip file{_looks_like(head)}", what)
    try:
        with zipfile.ZipFile(file) as archive:
            names = set(archive.namelist())
            missing = [m for m in SB3_MEMBERS if m not in names]
            if missing and min((i.header_offset for i in archive.infolist()), default=0) > 0:
                # the directory found is that of a zip stored inside (torch's .pth): the end is cut off
                raise ModelFileError(file, f"is truncated or damaged: a zip file without its end ({size} bytes)", what)
            if missing:
                problem = f"is a zip file but not a saved stable-baselines3 model (no {', '.join(missing)} inside)"
                raise ModelFileError(file, problem, what)
            bad = archive.testzip()
            if bad is not None:
                raise ModelFileError(file, f"is corrupted: {bad!r} inside fails its checksum", what)
            data = json.loads(archive.read("data").decode("utf-8"))
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, UnicodeDecodeError, ValueError) as exc:
        raise ModelFileError(file, f"is truncated or corrupted ({short_error(exc)})", what) from None
    if not isinstance(data, dict):
        raise ModelFileError(file, "is corrupted: its 'data' member is not a JSON object", what)
    return data


# ------------------------------------------------- the serialized fields, as data
@dataclass
class ModelDescription:
    """What a model file's ``data`` says, with every serialized field recognised (nothing unpickled)."""

    file: Path
    policy: str  # "mlp" or "card"
    obs_size: int
    schedules: dict[str, tuple[float, ...] | None] = field(default_factory=dict)  # (value,) or (start, end, fraction)
    policy_kwargs: dict[str, Any] | None = None  # rebuilt, when serialized
    rollout_buffer: bool = False  # sb3-contrib's MaskableRolloutBuffer named
    cleared: list[str] = field(default_factory=list)  # rollout state left empty


def _refuse(file: Path, key: str, why: str, what: str) -> ModelFileError:
    return ModelFileError(
        file,
        f"holds a pickled field {key!r} that gin3 does not load ({why}); nothing in it was run. "
        "To open it with stable-baselines3's own loader, which runs code from the file, trust the file "
        "explicitly (load_policy(path, trust_pickle=True) or --trust-model-file PATH)",
        what,
    )


def pickle_globals(raw: bytes) -> list[str] | None:
    """The globals (``module.name``) a pickle would import, read from its opcodes without running it;
    None where that cannot be told for sure."""
    pushed: list[str | None] = []  # what each op left on top of the stack, where it is a known string
    memo: dict[int, str | None] = {}
    found: list[str] = []
    try:
        for op, arg, _ in pickletools.genops(raw):
            name = op.name
            if name in _STRINGS:
                pushed.append(arg if isinstance(arg, str) else None)
            elif name == "MEMOIZE":
                memo[len(memo)] = pushed[-1] if pushed else None
            elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
                memo[int(arg)] = pushed[-1] if pushed else None  # type: ignore[arg-type]
            elif name in ("GET", "BINGET", "LONG_BINGET"):
                pushed.append(memo.get(int(arg)))  # type: ignore[arg-type]
            elif name in ("GLOBAL", "INST"):
                found.append(str(arg).replace(" ", "."))
                pushed.append(None)
            elif name == "STACK_GLOBAL":
                module, qualname = (pushed[-2], pushed[-1]) if len(pushed) >= 2 else (None, None)
                if module is None or qualname is None:
                    return None
                found.append(f"{module}.{qualname}")
                pushed.append(None)
            elif name not in _NO_PUSH:
                pushed.append(None)  # any other op: what is on top is not a string this scan knows
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return found


def _check_pickle(file: Path, key: str, entry: dict[str, Any], what: str) -> None:
    try:
        raw = base64.b64decode(str(entry[SERIALIZED]).encode(), validate=True)
    except (binascii.Error, ValueError):
        raise _refuse(file, key, "its pickle is not valid base64", what) from None
    names = pickle_globals(raw)
    if names is None:
        raise _refuse(file, key, "its pickle cannot be read without running it", what)
    foreign = [n for n in names if not any(n == m or n.startswith(m + ".") for m in PICKLE_MODULES)]
    if foreign:
        raise _refuse(file, key, f"its pickle names {', '.join(sorted(set(foreign))[:3])}", what)


def _class_name(entry: dict[str, Any]) -> tuple[str, str] | None:
    """(module, class name) of a serialized class, read from the names of the methods SB3 listed."""
    module = entry.get("__module__")
    methods = [_FUNCTION.fullmatch(value) for value in entry.values() if isinstance(value, str)]
    owners = {m.group(1) for m in methods if m}
    if not isinstance(module, str) or len(owners) != 1:
        return None
    return module, owners.pop()


def _schedule(entry: dict[str, Any]) -> tuple[float, ...] | None:
    text = entry.get("value_schedule") if "value_schedule" in entry else None
    kind = entry.get(":type:", "")
    if text is None and isinstance(kind, str) and kind.endswith(("ConstantSchedule'>", "LinearSchedule'>")):
        if kind.endswith("ConstantSchedule'>"):
            text = f"ConstantSchedule(val={entry.get('val')})"
        else:
            start, end, fraction = (entry.get(k) for k in ("start", "end", "end_fraction"))
            text = f"LinearSchedule(start={start}, end={end}, end_fraction={fraction})"
    if not isinstance(text, str):
        return None
    match = _CONSTANT.fullmatch(text) or _LINEAR.fullmatch(text)
    if match is None:
        return None
    values = tuple(float(v) for v in match.groups())
    return values if all(math.isfinite(v) for v in values) else None


def _unit_bounds(text: Any, value: float, n: int) -> bool:
    if not isinstance(text, str):
        return False
    numbers = re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+|inf)(?:[eE][-+]?\d+)?", text)
    return len(numbers) == n and all(float(x) == value for x in numbers)


def _observation_size(file: Path, entry: dict[str, Any], what: str) -> int:
    shape = entry.get("_shape")
    ok = (entry.get(":type:") == "<class 'gymnasium.spaces.box.Box'>" and entry.get("dtype") == "float32"
          and isinstance(shape, list) and len(shape) == 1 and shape[0] in INPUT_SIZES)
    if not ok:
        raise _refuse(file, "observation_space", f"not a float32 Box of one of the sizes {INPUT_SIZES}", what)
    n = int(shape[0])  # type: ignore[index]
    if not (_unit_bounds(entry.get("low"), 0.0, n) and _unit_bounds(entry.get("high"), 1.0, n)):
        raise _refuse(file, "observation_space", "a Box with bounds other than 0 and 1", what)
    return n


def _policy_kwargs(file: Path, entry: dict[str, Any], what: str) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for key, value in entry.items():
        if key in (":type:", SERIALIZED):
            continue
        if key == "activation_fn":
            match = _CLASS.fullmatch(value) if isinstance(value, str) else None
            name = match.group(1).rsplit(".", 1) if match else ["", ""]
            if name[0] != "torch.nn.modules.activation" or name[1] not in ACTIVATIONS:
                raise _refuse(file, "policy_kwargs", f"activation_fn {value!r} is not one of {', '.join(ACTIVATIONS)}",
                              what)
            kwargs[key] = name[1]
        elif isinstance(value, str) and (_CLASS.fullmatch(value) or value.startswith("<")):
            raise _refuse(file, "policy_kwargs", f"its entry {key!r} is an object ({value[:60]})", what)
        else:
            kwargs[key] = value
    if entry.get(":type:") != "<class 'dict'>":
        raise _refuse(file, "policy_kwargs", "not a dict", what)
    return kwargs


def describe(data: dict[str, Any], file: Path, what: str = "model file",
             overrides: frozenset[str] = frozenset()) -> ModelDescription:
    """Recognise every serialized field of ``data`` (keys in ``overrides`` are given by the caller)."""
    policy: str | None = None
    obs_size: int | None = None
    desc = ModelDescription(file, "mlp", 0)
    for key, entry in data.items():
        if not (isinstance(entry, dict) and SERIALIZED in entry) or key in overrides:
            continue
        _check_pickle(file, key, entry, what)
        if key == "policy_class":
            name = _class_name(entry)
            policy = POLICY_CLASSES.get(name) if name else None
            if policy is None:
                shown = ".".join(name) if name else "an unnamed class"
                raise _refuse(file, key, f"{shown} is not a policy class gin3 knows", what)
        elif key == "observation_space":
            obs_size = _observation_size(file, entry, what)
        elif key == "action_space":
            if entry.get(":type:") != "<class 'gymnasium.spaces.discrete.Discrete'>" or entry.get("n") != str(
                NUM_ACTIONS
            ) or entry.get("start") != "0":
                raise _refuse(file, key, f"not Discrete({NUM_ACTIONS})", what)
        elif key in SCHEDULE_FIELDS:
            values = _schedule(entry)
            if values is None:
                raise _refuse(file, key, "not a constant or linear schedule with its values written out", what)
            desc.schedules[key] = values
        elif key == "rollout_buffer_class":
            if _class_name(entry) != ("sb3_contrib.common.maskable.buffers", "MaskableRolloutBuffer"):
                raise _refuse(file, key, "not sb3-contrib's MaskableRolloutBuffer", what)
            desc.rollout_buffer = True
        elif key == "policy_kwargs":
            desc.policy_kwargs = _policy_kwargs(file, entry, what)
        elif key in ROLLOUT_STATE_FIELDS:
            desc.cleared.append(key)
        else:
            raise _refuse(file, key, "not a field of a MaskablePPO model", what)
    if policy is None and "policy_class" not in overrides:
        raise ModelFileError(file, "names no policy class (no 'policy_class' in its data)", what)
    if obs_size is None and "observation_space" not in overrides:
        raise ModelFileError(file, "describes no observation space (no 'observation_space' in its data)", what)
    desc.policy = policy or "mlp"
    desc.obs_size = obs_size or 0
    return desc


def check_weights(file: Path, what: str = "model file") -> None:
    """Every ``.pth`` member read by torch's weights-only reader (no code runs); else :class:`ModelFileError`."""
    import pickle

    import torch

    with zipfile.ZipFile(file) as archive:
        for name in archive.namelist():
            if not name.endswith(".pth"):
                continue
            try:
                torch.load(io.BytesIO(archive.read(name)), map_location="cpu", weights_only=True)
            except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, TypeError, AttributeError,
                    zipfile.BadZipFile, OSError) as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise ModelFileError(
                    file, f"holds {name!r}, which is not plain weights: torch's weights-only reader refused it "
                    f"({first[:160]}); nothing in it was run", what,
                ) from None


def check_model_file(path: str | os.PathLike[str], what: str = "model file") -> Path:
    """``path`` if it is a complete saved stable-baselines3 model (a zip holding ``data`` and
    ``policy.pth``, every member passing its checksum) that loads as data (every serialized field
    known, every ``.pth`` plain weights); else :class:`ModelFileError` saying why. A file passed to
    :func:`trust_model_file` gets the zip checks only."""
    file = Path(path)
    data = _open_zip(file, what)
    if not is_trusted(file):
        describe(data, file, what)
        check_weights(file, what)
    return file


def model_data(path: str | os.PathLike[str], what: str = "model file") -> dict[str, Any]:
    """The plain JSON fields of a checked model file's ``data`` (the serialized ones left out)."""
    data = _open_zip(Path(path), what)
    return {k: v for k, v in data.items() if not (isinstance(v, dict) and SERIALIZED in v)}


# ------------------------------------------------------------- rebuilding
def _build_schedule(values: tuple[float, ...]) -> Any:
    from stable_baselines3.common import utils

    if len(values) == 1:
        if hasattr(utils, "ConstantSchedule"):
            return utils.FloatSchedule(utils.ConstantSchedule(values[0]))
        return utils.get_schedule_fn(values[0])  # pragma: no cover - stable-baselines3 < 2.6
    if hasattr(utils, "LinearSchedule"):
        return utils.FloatSchedule(utils.LinearSchedule(*values))
    return utils.get_linear_fn(*values)  # pragma: no cover - stable-baselines3 < 2.6


def rebuilt_fields(desc: ModelDescription) -> dict[str, Any]:
    """The objects that replace the serialized fields (SB3's ``custom_objects``)."""
    import gymnasium as gym
    import numpy as np
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from torch import nn

    from .sb3_network import CardAwarePolicy

    out: dict[str, Any] = {
        "policy_class": CardAwarePolicy if desc.policy == "card" else MaskableActorCriticPolicy,
        "action_space": gym.spaces.Discrete(NUM_ACTIONS),
    }
    if desc.obs_size:
        out["observation_space"] = gym.spaces.Box(0.0, 1.0, (desc.obs_size,), np.float32)
    for key, values in desc.schedules.items():
        out[key] = _build_schedule(values) if values is not None else None
    if desc.rollout_buffer:
        out["rollout_buffer_class"] = MaskableRolloutBuffer
    if desc.policy_kwargs is not None:
        kwargs = dict(desc.policy_kwargs)
        if "activation_fn" in kwargs:
            kwargs["activation_fn"] = {a: getattr(nn, a) for a in ACTIVATIONS}[kwargs["activation_fn"]]
        out["policy_kwargs"] = kwargs
    for key in desc.cleared:
        out[key] = None
    return out


def load_sb3_model(
    path: str | os.PathLike[str],
    *,
    device: str = "cpu",
    env: Any = None,
    overrides: dict[str, Any] | None = None,
    trust_pickle: bool = False,
    what: str = "model file",
    problem: str = "cannot be loaded as a MaskablePPO model",
    **kwargs: Any,
) -> Any:
    """``MaskablePPO.load`` of ``path`` with nothing in the file executed (see the module doc).

    ``overrides`` replace fields of the file (the config's PPO settings on resume); ``env`` and
    ``kwargs`` go to ``MaskablePPO.load``; a file SB3 cannot load raises :class:`ModelFileError` with
    ``problem`` and SB3's reason. ``trust_pickle`` (or :func:`trust_model_file`) opens the
    file with SB3's own loader instead, which runs code from the file."""
    file = Path(path)
    data = _open_zip(file, what)
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(f"loading {file} needs sb3-contrib: pip install 'gin3_env[train]' ({exc})") from None
    given = dict(overrides or {})
    if trust_pickle or is_trusted(file):
        custom = given or None
    else:
        desc = describe(data, file, what, frozenset(given))
        check_weights(file, what)
        custom = {**rebuilt_fields(desc), **given}
        unpickled = [k for k, v in data.items() if isinstance(v, dict) and SERIALIZED in v and k not in custom]
        assert not unpickled, f"serialized fields left to unpickle: {unpickled}"
    try:
        return MaskablePPO.load(str(file), env=env, device=device, custom_objects=custom, **kwargs)
    except Exception as exc:  # sb3 raises many kinds on a file that does not fit
        raise ModelFileError(file, f"{problem} ({short_error(exc)})", what) from None
