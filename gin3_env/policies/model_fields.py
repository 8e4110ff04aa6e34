"""What the fields of a saved stable-baselines3 model may say, checked as data (:mod:`.model_file` reads the file).

SB3 stores what JSON cannot hold in a model's ``data`` as base64 pickles; none is ever opened here. Each
serialized field is recognised from the readable description SB3 writes beside it (:func:`describe`) and
rebuilt from what this package knows (:func:`rebuilt_fields`); a pickle may name only the whole global names
of :data:`PICKLE_GLOBALS`, read from its opcodes without running it (:func:`pickle_globals`). The spaces must
be those of the env the model is for (:class:`EnvFit`, :func:`check_env_fit`). A file that says anything else
is refused with :class:`ModelFileError`, one line naming the file and the field.
"""

from __future__ import annotations

import base64
import binascii
import math
import os
import pickletools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.actions import NUM_ACTIONS
from ..observation.features import FEATURE_SETS
from ..observation.layout import MATCH_OBS_SIZE, OBS_SIZE

SERIALIZED = ":serialized:"
POLICY_CLASSES = {  # (module, class name) as a model file names them -> what is built
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "mlp",
    ("gin3_env.policies.sb3_network", "CardAwarePolicy"): "card",
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

PICKLE_GLOBALS = frozenset({  # the whole global names the pickles of the fields above may name (checked, never loaded)
    "gymnasium.spaces.box.Box", "gymnasium.spaces.discrete.Discrete",
    "numpy.dtype", "numpy.ndarray", "numpy._core.multiarray.scalar", "numpy.core.multiarray.scalar",
    "numpy._core.multiarray._reconstruct", "numpy.core.multiarray._reconstruct",
    "numpy._core.numeric._frombuffer", "numpy.core.numeric._frombuffer",
    "numpy.random._pcg64.PCG64", "numpy.random._pickle.__bit_generator_ctor",
    "numpy.random._pickle.__generator_ctor", "numpy.random.bit_generator.SeedSequence",
    "numpy.random.bit_generator.__pyx_unpickle_SeedSequence",
    "collections.OrderedDict", "collections.deque",
    "stable_baselines3.common.utils.ConstantSchedule", "stable_baselines3.common.utils.FloatSchedule",
    "stable_baselines3.common.utils.LinearSchedule",
    "sb3_contrib.common.maskable.buffers.MaskableRolloutBuffer",
    *(f"{module}.{name}" for module, name in POLICY_CLASSES),
    *(f"torch.nn.modules.activation.{name}" for name in ACTIVATIONS),
})
_STRINGS = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINSTRING", "BINSTRING", "STRING"}
_NO_PUSH = {"PROTO", "FRAME", "MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT"}


class ModelFileError(ValueError):
    """A model or checkpoint file that cannot be used; ``str()`` is one line naming it and the problem."""

    def __init__(self, path: str | os.PathLike[str], problem: str, what: str = "model file") -> None:
        self.path = Path(path)
        self.problem = " ".join(problem.split())
        super().__init__(f"{what} {self.path} {self.problem}")


class MissingModelFileError(ModelFileError, FileNotFoundError):
    """The model file does not exist."""


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
    foreign = [n for n in names if n not in PICKLE_GLOBALS]  # whole names: numpy.f2py.os.system is not numpy
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


# ------------------------------------------------------- made for this env?
_SPACE_TYPE = re.compile(r"<class 'gymnasium\.spaces\.[\w.]+\.(\w+)'>")


def _space_text(entry: Any) -> str | None:
    """A gymnasium space as its readable description names it (``Box of shape (3,)``,
    ``Discrete(10)``), or None where it names no gymnasium space."""
    if not isinstance(entry, dict):
        return None
    kind = entry.get(":type:")
    match = _SPACE_TYPE.fullmatch(kind) if isinstance(kind, str) else None
    if match is None:
        return None
    name = match.group(1)
    if name == "Discrete":
        return f"Discrete({entry.get('n')})" if entry.get("start") in ("0", None) else \
            f"Discrete({entry.get('n')}, start={entry.get('start')})"
    if name == "Box":
        shape = entry.get("_shape")
        shown = tuple(shape) if isinstance(shape, list) else shape
        return f"a {entry.get('dtype')} Box of shape {shown}"
    return name


@dataclass(frozen=True)
class EnvFit:
    """The spaces a model file must have been made for: a float32 Box of one of ``sizes`` and
    ``Discrete(actions)``, played by MaskablePPO; ``name`` says whose they are in a refusal."""

    sizes: tuple[int, ...]
    actions: int
    name: str = "gin3's env"
    box: str = "Box(0, 1)"

    def text(self) -> str:
        return (f"{self.name} has a float32 {self.box} of one of the sizes {list(self.sizes)} "
                f"and Discrete({self.actions}), "
                "played by sb3-contrib's MaskablePPO")


GIN3_FIT = EnvFit(tuple(INPUT_SIZES), NUM_ACTIONS)  # the game's envs: every feature set, hand and match


def check_env_fit(file: Path, data: dict[str, Any], what: str = "model file", fit: EnvFit = GIN3_FIT) -> None:
    """A :class:`ModelFileError` saying why, where the file's readable descriptions show a model made for
    another env (other spaces) or by another algorithm (plain PPO): trusting the file cannot help there."""
    gin3 = fit.text()
    policy = data.get("policy_class")
    module = policy.get("__module__") if isinstance(policy, dict) else None
    if isinstance(module, str) and module.split(".")[0] in ("stable_baselines3", "sb3_contrib"):
        name = _class_name(policy) if isinstance(policy, dict) else None
        shown = ".".join(name) if name else module
        if name not in POLICY_CLASSES:
            raise ModelFileError(file, f"is not a model for {fit.name}: its policy class is {shown} (a plain PPO "
                                 "or other stable-baselines3 model, without action masks); gin3 plays MaskablePPO "
                                 "models (MaskableActorCriticPolicy or gin3's CardAwarePolicy)", what)
    buffer = data.get("rollout_buffer_class")
    if isinstance(buffer, dict) and buffer.get("__module__") == "stable_baselines3.common.buffers":
        raise ModelFileError(file, f"is not a model for {fit.name}: it is a plain PPO model (rollout buffer "
                             "stable_baselines3.common.buffers.RolloutBuffer, no action masks); gin3 plays "
                             "MaskablePPO models", what)
    obs = _space_text(data.get("observation_space"))
    if obs is not None:
        entry = data["observation_space"]
        shape = entry.get("_shape")
        if not (obs.startswith("a float32 Box") and isinstance(shape, list) and len(shape) == 1
                and shape[0] in fit.sizes):
            raise ModelFileError(file, f"is not a model for {fit.name}: its observation space is {obs}; {gin3}", what)
    act = _space_text(data.get("action_space"))
    if act is not None and act != f"Discrete({fit.actions})":
        raise ModelFileError(file, f"is not a model for {fit.name}: its action space is {act}; {gin3}", what)


def check_loaded_fit(file: Path, model: Any, what: str = "model file", fit: EnvFit = GIN3_FIT) -> None:
    """The same check on a model SB3's own loader built (the trusted path)."""
    from sb3_contrib import MaskablePPO

    gin3 = fit.text()
    if not isinstance(model, MaskablePPO):
        raise ModelFileError(file, f"is not a model for {fit.name}: it is a {type(model).__name__} model; gin3 "
                             "plays MaskablePPO models", what)
    obs, act = model.observation_space, model.action_space
    shape = getattr(obs, "shape", None)
    if type(obs).__name__ != "Box" or not shape or len(shape) != 1 or shape[0] not in fit.sizes:
        raise ModelFileError(file, f"is not a model for {fit.name}: its observation space is {obs}; {gin3}", what)
    if type(act).__name__ != "Discrete" or int(getattr(act, "n", -1)) != fit.actions \
            or int(getattr(act, "start", 0)) != 0:
        raise ModelFileError(file, f"is not a model for {fit.name}: its action space is {act}; {gin3}", what)


# ------------------------------------------------------------- the weights
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
