"""A saved stable-baselines3 model read as data: nothing in the file is ever executed.

An SB3 model file is a zip: ``data`` (JSON), ``policy.pth`` and
``policy.optimizer.pth`` (torch tensors), ``pytorch_variables.pth``. SB3 stores
what JSON cannot hold (the policy class, the spaces, the schedules, the last
rollout's arrays) in ``data`` as base64 *pickles* (``":serialized:"``), and its
own loader unpickles them, and calls ``gym.make`` on a plain ``env`` field: a
crafted file runs code. Here the file is opened once and its bytes read once
(:func:`read_model_file`: at most :data:`TOTAL_LIMIT` bytes, each member inflating
to at most :data:`MEMBER_LIMIT`, checked before it is inflated), and no pickle in
``data`` is ever opened. The readable descriptions must show a model for this env
(:func:`check_env_fit`: its spaces and a MaskablePPO policy; a model for other
spaces or a plain PPO one is refused saying so). Each serialized field is
recognised from the readable description SB3 writes beside it and rebuilt from
what this package knows:

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
a global other than the whole names these fields use (:data:`PICKLE_GLOBALS`,
read from the pickle's opcodes without running it; ``numpy.f2py.os.system`` is not a
``numpy`` name) is refused with :class:`ModelFileError` naming the file and the
field. Every ``.pth`` member is read with torch's weights-only reader (tensors and
plain containers, no code; torch's legacy tar format refused) and every weight must
be finite (:func:`load_weights`). A player is built from that alone
(:mod:`gin3_env.policies.player`); a trainer (:func:`load_sb3_model`: resume, ship)
is SB3's loader handed the checked bytes (:func:`sb3_zip`: only the known plain
fields, the pickles emptied) with every serialized field rebuilt (``custom_objects``),
so it has nothing to unpickle and no path to open again.

Trusting a file: :func:`trust_model_file` (``load_policy(path,
trust_pickle=True)``, ``--trust-model-file PATH`` on the command line) lets
SB3's own loader open that one file, which **runs whatever code the file
holds**: only for a file you made or fully trust.
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .model_fields import (
    GIN3_FIT,
    ROLLOUT_STATE_FIELDS,
    SERIALIZED,
    EnvFit,
    MissingModelFileError,
    ModelDescription,
    ModelFileError,
    check_env_fit,
    check_loaded_fit,
    describe,
    rebuilt_fields,
)

SB3_MEMBERS = ("data", "policy.pth")
_trusted: set[Path] = set()  # the files trusted in this process (trust_model_file)


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
MEMBER_LIMIT = 256 * 2**20  # the most one member of a model file may inflate to
TOTAL_LIMIT = 512 * 2**20  # the most the file, and all its members inflated together, may hold
MAX_MEMBERS = 64
_MAGIC = {b"\x89PNG": "a PNG image", b"%PDF": "a PDF document", b"\xff\xd8\xff": "a JPEG image",
          b"\x1f\x8b": "a gzip file", b"{": "JSON text", b"#!": "a script"}


def _looks_like(head: bytes) -> str:
    for magic, name in _MAGIC.items():
        if head.startswith(magic):
            return f" (it looks like {name})"
    if len(head) > 262 and head[257:262] == b"ustar":
        return " (it looks like a tar archive: torch's legacy format, not a saved stable-baselines3 model)"
    return ""


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB" if n >= 2**20 else f"{n:,} bytes"


def _read_bytes(file: Path, what: str) -> bytes:
    """The whole file, read once through one open (at most :data:`TOTAL_LIMIT` bytes)."""
    try:
        # opened without blocking, so a FIFO is refused below instead of waited on; then read as usual
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise ModelFileError(file, "is a folder, not a saved model (.zip)", what)
            if not stat.S_ISREG(st.st_mode):
                raise ModelFileError(file, "is not a regular file", what)
            if st.st_size > TOTAL_LIMIT:
                raise ModelFileError(file, f"is {_mib(st.st_size)}, more than the {_mib(TOTAL_LIMIT)} a model "
                                     "file may hold", what)
            if hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)
            raw = fh.read(TOTAL_LIMIT + 1)
    except FileNotFoundError:
        raise MissingModelFileError(file, "not found", what) from None
    except IsADirectoryError:
        raise ModelFileError(file, "is a folder, not a saved model (.zip)", what) from None
    except OSError as exc:
        raise ModelFileError(file, f"cannot be read ({exc.strerror or short_error(exc)})", what) from None
    if len(raw) > TOTAL_LIMIT:
        raise ModelFileError(file, f"is more than the {_mib(TOTAL_LIMIT)} a model file may hold", what)
    return raw


def _read_members(file: Path, raw: bytes, what: str) -> dict[str, bytes]:
    """Every member of the zip ``raw``, inflated within the limits, each passing its checksum."""
    size = len(raw)
    if size == 0:
        raise ModelFileError(file, "is empty (0 bytes)", what)
    buffer = io.BytesIO(raw)
    if not zipfile.is_zipfile(buffer):
        if raw.startswith(b"PK"):
            raise ModelFileError(file, f"is truncated or damaged: a zip file without its end ({size} bytes)", what)
        raise ModelFileError(file, f"is not a saved model: not a zip file{_looks_like(raw[:512])}", what)
    members: dict[str, bytes] = {}
    try:
        with zipfile.ZipFile(buffer) as archive:
            infos = archive.infolist()
            names = [i.filename for i in infos]
            missing = [m for m in SB3_MEMBERS if m not in names]
            if missing and min((i.header_offset for i in infos), default=0) > 0:
                # the directory found is that of a zip stored inside (torch's .pth): the end is cut off
                raise ModelFileError(file, f"is truncated or damaged: a zip file without its end ({size} bytes)", what)
            if missing:
                problem = f"is a zip file but not a saved stable-baselines3 model (no {', '.join(missing)} inside)"
                raise ModelFileError(file, problem, what)
            if len(infos) > MAX_MEMBERS:
                raise ModelFileError(file, f"holds {len(infos)} members, more than the {MAX_MEMBERS} a model "
                                     "file may hold", what)
            twice = sorted({n for n in names if names.count(n) > 1})
            if twice:
                raise ModelFileError(file, f"holds the member {twice[0]!r} twice", what)
            total = 0
            for info in infos:
                if info.file_size > MEMBER_LIMIT:
                    raise ModelFileError(file, f"holds {info.filename!r}, which inflates to {_mib(info.file_size)}, "
                                         f"more than the {_mib(MEMBER_LIMIT)} a member may hold", what)
                total += info.file_size
                if total > TOTAL_LIMIT:
                    raise ModelFileError(file, f"inflates to more than {_mib(TOTAL_LIMIT)} in all", what)
            for info in infos:
                with archive.open(info) as member:
                    body = member.read(info.file_size + 1)  # the reader stops at the declared size
                if len(body) != info.file_size:
                    raise ModelFileError(file, f"is corrupted: {info.filename!r} inside is not the size its "
                                         "header says", what)
                members[info.filename] = body
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError,
            RuntimeError) as exc:
        text = str(exc)
        if "CRC" in text:
            bad = next((n for n in names if n in text), None)
            shown = f"{bad!r} inside" if bad else "a member"
            raise ModelFileError(file, f"is corrupted: {shown} fails its checksum", what) from None
        raise ModelFileError(file, f"is truncated or corrupted ({short_error(exc)})", what) from None
    return members


def _parse_data(file: Path, body: bytes, what: str) -> dict[str, Any]:
    try:
        data = json.loads(body.decode("utf-8"))
    except RecursionError:
        raise ModelFileError(file, "is corrupted: its 'data' member nests JSON too deeply to be a saved model",
                             what) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise ModelFileError(file, f"is truncated or corrupted: its 'data' member is not JSON ({short_error(exc)})",
                             what) from None
    if not isinstance(data, dict):
        raise ModelFileError(file, "is corrupted: its 'data' member is not a JSON object", what)
    return data


def _open_zip(file: Path, what: str) -> dict[str, Any]:
    """The ``data`` JSON of a complete SB3 zip (every member passing its checksum)."""
    members = _read_members(file, _read_bytes(file, what), what)
    return _parse_data(file, members["data"], what)


# ------------------------------------------------- the serialized fields, as data
def _non_finite(value: Any, prefix: str = "") -> str | None:
    """The first entry of a loaded ``.pth`` object holding NaN or inf, or None."""
    import numpy as np
    import torch

    if isinstance(value, torch.Tensor):
        if not (value.is_floating_point() or value.is_complex()):
            return None
        try:  # numpy's check: one thread, where torch's spreads a small check over every core
            finite = bool(np.isfinite(value.detach().numpy()).all())
        except (TypeError, RuntimeError):  # bfloat16 and the like
            finite = bool(torch.isfinite(value).all())
        return None if finite else (prefix or "a tensor")
    if isinstance(value, float):
        return None if math.isfinite(value) else (prefix or "a number")
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _non_finite(item, f"{prefix}.{key}" if prefix else str(key))
        if found:
            return found
    return None


def load_weights(file: Path, members: dict[str, bytes], what: str = "model file") -> dict[str, Any]:
    """Every ``.pth`` member read by torch's weights-only reader (no code runs) and checked finite:
    name -> what it holds; else :class:`ModelFileError`."""
    import torch

    out: dict[str, Any] = {}
    for name, body in members.items():
        if not name.endswith(".pth"):
            continue
        if len(body) > 262 and body[257:262] == b"ustar":
            raise ModelFileError(file, f"holds {name!r} in torch's legacy tar format, which gin3 does not read; "
                                 "nothing in it was run", what)
        try:
            out[name] = torch.load(io.BytesIO(body), map_location="cpu", weights_only=True)
        except Exception as exc:  # the weights-only reader raises many kinds on what is not plain weights
            text = str(exc).strip()
            first = text.splitlines()[0] if text else type(exc).__name__
            raise ModelFileError(
                file, f"holds {name!r}, which is not plain weights: torch's weights-only reader refused it "
                f"({first[:160]}); nothing in it was run", what,
            ) from None
        bad = _non_finite(out[name])
        if bad:
            raise ModelFileError(file, f"holds {name!r} with weights that are not finite (NaN or inf in {bad})",
                                 what)
    return out


def check_weights(file: Path, what: str = "model file") -> None:
    """:func:`load_weights` of the file at ``file`` (read once)."""
    load_weights(file, _read_members(file, _read_bytes(file, what), what), what)


# ------------------------------------------------------------- the file, read once
@dataclass
class ModelFile:
    """A model file read once and checked: its bytes, its members, its ``data`` and what it describes.

    ``weights`` holds every ``.pth`` member as loaded by torch's weights-only reader (empty when the file
    was read without them); ``description`` is None for a trusted file (its pickles are SB3's to open)."""

    path: Path
    raw: bytes
    members: dict[str, bytes]
    data: dict[str, Any]
    description: ModelDescription | None
    weights: dict[str, Any] = field(default_factory=dict)
    what: str = "model file"


def read_model_file(path: str | os.PathLike[str], what: str = "model file", *, weights: bool = True,
                    overrides: frozenset[str] = frozenset(), trusted: bool | None = None,
                    fit: EnvFit = GIN3_FIT) -> ModelFile:
    """Read ``path`` once (one open, within :data:`MEMBER_LIMIT` and :data:`TOTAL_LIMIT`) and check it:
    a complete zip with ``data`` and ``policy.pth``, made for this env (:func:`check_env_fit`), every
    serialized field known (:func:`describe`) and, with ``weights``, every ``.pth`` member plain and finite
    weights (:func:`load_weights`). A trusted file (``trusted``, or :func:`trust_model_file`) gets the zip
    and env checks only. Anything else: :class:`ModelFileError`, one line naming the file."""
    file = Path(path)
    raw = _read_bytes(file, what)
    members = _read_members(file, raw, what)
    data = _parse_data(file, members["data"], what)
    check_env_fit(file, data, what, fit)
    if trusted is None:
        trusted = is_trusted(file)
    desc = None if trusted else describe(data, file, what, overrides)
    loaded = load_weights(file, members, what) if weights and not trusted else {}
    return ModelFile(file, raw, members, data, desc, loaded, what)


def check_model_file(path: str | os.PathLike[str], what: str = "model file", weights: bool = True) -> Path:
    """``path`` if it is a complete saved stable-baselines3 model (a zip holding ``data`` and
    ``policy.pth``, every member passing its checksum, within the size limits) for this env that loads
    as data (every serialized field known; with ``weights``, every ``.pth`` plain, finite weights); else
    :class:`ModelFileError` saying why. A file passed to :func:`trust_model_file` gets the zip and env
    checks only. ``weights=False`` does not import torch."""
    read_model_file(path, what, weights=weights)
    return Path(path)


def model_data(path: str | os.PathLike[str], what: str = "model file") -> dict[str, Any]:
    """The plain JSON fields of a checked model file's ``data`` (the serialized ones left out)."""
    data = _open_zip(Path(path), what)
    return {k: v for k, v in data.items() if not (isinstance(v, dict) and SERIALIZED in v)}


# ------------------------------------------------------------- rebuilding
PLAIN_FIELDS = (  # the plain fields of a MaskablePPO model's data that SB3 is given back (all others dropped)
    "verbose", "num_timesteps", "_total_timesteps", "_num_timesteps_at_start", "seed", "action_noise",
    "start_time", "tensorboard_log", "_episode_num", "use_sde", "sde_sample_freq", "_current_progress_remaining",
    "_stats_window_size", "_n_updates", "n_envs", "n_steps", "gamma", "gae_lambda", "ent_coef", "vf_coef",
    "max_grad_norm", "batch_size", "n_epochs", "normalize_advantage", "target_kl", "learning_rate",
    "clip_range_vf", "rollout_buffer_kwargs", "policy_kwargs", *ROLLOUT_STATE_FIELDS,
)
NULL_FIELDS = ("action_noise", "rollout_buffer_kwargs", *ROLLOUT_STATE_FIELDS)  # given back only when empty


def _plain(value: Any, depth: int = 0) -> bool:
    if value is None or isinstance(value, bool | int | float | str):
        return True
    if depth < 4 and isinstance(value, list):
        return all(_plain(v, depth + 1) for v in value)
    if depth < 4 and isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v, depth + 1) for k, v in value.items())
    return False


def sb3_zip(model: ModelFile) -> bytes:
    """The checked file as the zip SB3's loader is handed: its checked ``.pth`` members and a ``data``
    holding only :data:`PLAIN_FIELDS` with plain values and the serialized fields with their pickles
    emptied (each is rebuilt, never unpickled); no other field (``env``, say) reaches SB3."""
    data: dict[str, Any] = {}
    for key, value in model.data.items():
        if isinstance(value, dict) and SERIALIZED in value:
            data[key] = {**value, SERIALIZED: ""} if model.description is not None else value
        elif key in PLAIN_FIELDS and _plain(value) and not (key in NULL_FIELDS and value not in (None, {}, [])):
            data[key] = value
        elif key in PLAIN_FIELDS:
            raise ModelFileError(model.path, f"holds a field {key!r} whose value is not what a MaskablePPO model "
                                 f"saves ({str(value)[:60]!r})", model.what)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("data", json.dumps(data))
        for name, body in model.members.items():
            if name.endswith(".pth"):
                archive.writestr(name, body)
    return out.getvalue()


def load_sb3_model(
    path: str | os.PathLike[str] | ModelFile,
    *,
    device: str = "cpu",
    env: Any = None,
    overrides: dict[str, Any] | None = None,
    trust_pickle: bool = False,
    what: str = "model file",
    problem: str = "cannot be loaded as a MaskablePPO model",
    fit: EnvFit = GIN3_FIT,
    **kwargs: Any,
) -> Any:
    """A ``MaskablePPO`` trainer of ``path`` (to train on or save again) with nothing in the file executed:
    the file is read once and checked (:func:`read_model_file`), then SB3's loader is handed those checked
    bytes (:func:`sb3_zip`, an ``io.BytesIO``: the path is never opened again) with every serialized field
    rebuilt (``custom_objects``), and ``env`` (None: none, never one the file names). ``path`` may be a
    :class:`ModelFile` already read.

    ``overrides`` replace fields of the file (the config's PPO settings on resume); ``kwargs`` go to
    ``MaskablePPO.load``; a file SB3 cannot load raises :class:`ModelFileError` with ``problem`` and
    SB3's reason. ``fit``: the spaces the model must be for (gin3's envs by default). ``trust_pickle``
    (or :func:`trust_model_file`) lets SB3's loader unpickle the file's fields, which runs code from the
    file; the env checks are made either way. A player needs none of this:
    :func:`gin3_env.policies.player.load_player` builds the network alone."""
    given = dict(overrides or {})
    if isinstance(path, ModelFile):  # already read and checked (the resumed checkpoint); its overrides are ours
        model = path
        if model.description is not None:
            model.description = describe(model.data, model.path, model.what, frozenset(given))
    else:
        trusted = trust_pickle or is_trusted(path)
        model = read_model_file(path, what, overrides=frozenset(given), trusted=trusted, fit=fit)
    file = model.path
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(f"loading {file} needs sb3-contrib: pip install 'gin3_env[train]' ({exc})") from None
    if model.description is None:
        custom: dict[str, Any] = {**given, "env": None}
    else:
        custom = {**rebuilt_fields(model.description), **given}
        unpickled = [k for k, v in model.data.items() if isinstance(v, dict) and SERIALIZED in v and k not in custom]
        if unpickled:
            raise ModelFileError(file, f"holds serialized fields gin3 cannot rebuild ({', '.join(unpickled)})", what)
    try:
        loaded = MaskablePPO.load(io.BytesIO(sb3_zip(model)), env=env, device=device, custom_objects=custom, **kwargs)
    except Exception as exc:  # sb3 raises many kinds on a file that does not fit
        raise ModelFileError(file, f"{problem} ({short_error(exc)})", what) from None
    check_loaded_fit(file, loaded, what, fit)
    return loaded
