"""Checkpoints that are one unit, writes that fail cleanly, and reading them back.

A checkpoint is ``checkpoint.zip``: the stable-baselines3 model with the
training state (evaluation history, best score, opponent snapshots, step
counters) stored *inside* the zip as ``gin3_state.json``. The zip is written to
a temporary name, flushed to disk and renamed over the old one, so whatever
kills the process, ``checkpoint.zip`` is the old unit or the new one, never a
new model with an old state or the reverse. ``checkpoint.json`` beside it is a
readable copy written afterwards (with the zip's SHA-256); on resume the state
inside the zip is the one used, and a copy that does not match is reported.

A write that fails (disk full, permission denied) removes its temporary file,
leaves the file it was replacing as it was, and raises :class:`RunWriteError`
naming the file. :func:`remove_partial_files` clears what a killed run left
half-written.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import stat
import zipfile
from pathlib import Path
from typing import Any

from gin3_env.files import PARTIAL, read_npz, save_json
from gin3_env.policies.model_fields import ModelFileError
from gin3_env.policies.model_file import ModelFile, read_model_file
from gin3_training.run.folder import RUN_FILES, SIDECARS, in_run_folder, plain_path, read_manifest, write_in_run

STATE_MEMBER = "gin3_state.json"
CHECKPOINT = "checkpoint.zip"
PARTIAL_SUFFIX = ".partial.zip"
STATE_KEYS = ("snapshots", "eval_history", "best_mean", "best_step", "last_snapshot", "last_eval", "last_checkpoint")
OPTIONAL_STATE_KEYS = ("candidates",)  # kept when present (older checkpoints have none)
MAX_SHARD_BYTES = 1 << 30  # a label shard


class RunWriteError(OSError):
    """Writing a file of the run failed; the file it would have replaced is unchanged."""

    def __init__(self, path: Path, cause: BaseException) -> None:
        reason = getattr(cause, "strerror", None) or " ".join(str(cause).split()) or type(cause).__name__
        super().__init__(getattr(cause, "errno", None), f"cannot write {path}: {reason}")
        self.path = path

    def __str__(self) -> str:
        return str(self.args[1])


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not possible on every platform; the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def save_model(model: Any, path: Path, state: dict[str, Any] | None = None) -> None:
    """Save an SB3 model (and ``state`` inside it) so ``path`` is the old file or the complete new one;
    in a held run folder through its descriptor (:func:`~.folder.write_in_run`)."""
    buffer = io.BytesIO()
    tb_log = getattr(model, "tensorboard_log", None)
    try:
        if isinstance(tb_log, str):  # the file names the run's tb folder, not this process's descriptor of it
            model.tensorboard_log = plain_path(tb_log)
        model.save(buffer)
        if state is not None:
            with zipfile.ZipFile(buffer, "a", compression=zipfile.ZIP_DEFLATED) as archive:
                archive.writestr(STATE_MEMBER, json.dumps(state))
    except OSError as exc:  # nothing was written yet: the old file stands
        raise RunWriteError(path, exc) from exc
    finally:
        if isinstance(tb_log, str):
            model.tensorboard_log = tb_log
    write_bytes(path, buffer.getvalue())


def write_bytes(path: Path, data: bytes) -> None:
    """``data`` as ``path``, atomically: through the held run folder where ``path`` is in one, else by
    path (a temporary beside it, then a rename); a failure is a :class:`RunWriteError` naming ``path``."""
    try:
        if write_in_run(path, data):
            return
    except OSError as exc:
        raise RunWriteError(path, exc) from exc
    tmp = path.with_name(path.stem + PARTIAL_SUFFIX)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise RunWriteError(path, exc) from exc
        raise
    _fsync_dir(path.parent)


def write_json(path: Path, data: Any) -> None:
    """``data`` as JSON, atomically (through the held run folder, else ``save_json``), a failure raised
    as :class:`RunWriteError` naming ``path``."""
    try:
        if write_in_run(path, (json.dumps(data, indent=2) + "\n").encode("utf-8")):
            return
        save_json(path, data)
    except OSError as exc:
        raise RunWriteError(path, exc) from exc


def check_shard_key(path: Path, key: dict[str, Any]) -> None:
    """Refuse a label shard that cannot be read or whose recorded run settings (its ``run`` entry)
    differ from ``key``, in one line naming the shard and the first setting that differs."""
    try:
        written = json.loads(str(read_npz(path, "label shard", MAX_SHARD_BYTES)["run"]))
    except Exception as exc:
        raise ValueError(f"label shard {path} cannot be read: {exc}") from None
    for name, value in key.items():
        if written.get(name) != value:
            raise ValueError(f"label shard {path} was written with {name}={written.get(name)!r}, "
                             f"this run has {value!r}")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_checkpoint(model: Any, state: dict[str, Any], run_dir: Path, features: str | None = None) -> Path:
    """Write ``checkpoint.zip`` (model + state, the commit point), then the readable copies;
    ``features`` is named in ``checkpoint.json`` (the model's description, read by ``load_policy``)."""
    path = run_dir / CHECKPOINT
    unit = {**state, "num_timesteps": int(model.num_timesteps)}
    if features is not None:
        unit["features"] = features
    save_model(model, path, unit)
    write_json(run_dir / "checkpoint.json", {**unit, "checkpoint_sha256": sha256(path)})
    write_json(run_dir / "eval_history.json", state["eval_history"])
    return path


def read_checkpoint(path: str | os.PathLike[str], model: ModelFile | None = None) -> tuple[dict[str, Any], list[str]]:
    """The training state of a checkpoint (``{}`` for a plain model such as ``best.zip``) and notes
    for the person; :class:`~gin3_env.policies.model_file.ModelFileError` if the file or its state is bad.
    ``model``: the file as already read and checked (:func:`~gin3_env.policies.model_file.read_model_file`),
    so the state comes from the same bytes as the model resumed."""
    if model is None:
        model = read_model_file(path, "checkpoint")
    file = model.path
    notes: list[str] = []
    raw_steps = model.data.get("num_timesteps")
    steps = raw_steps if isinstance(raw_steps, int) else None
    inside = model.members.get(STATE_MEMBER)
    sidecar = file.with_suffix(".json")
    if inside is not None:
        try:
            state = json.loads(inside.decode("utf-8"))
        except RecursionError:
            raise ModelFileError(file, "holds a damaged training state (JSON nested too deeply)",
                                 "checkpoint") from None
        except ValueError as exc:
            raise ModelFileError(file, f"holds a damaged training state ({exc})", "checkpoint") from None
        if sidecar.is_file() and _sidecar_digest(sidecar) != sha256(file):
            notes.append(f"{sidecar} is not the copy of this checkpoint (the run stopped between the two "
                         f"writes); the state stored inside {file.name} is used")
    elif sidecar.is_file():  # a checkpoint written before the state moved inside the zip
        try:
            state = json.loads(sidecar.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            raise ModelFileError(sidecar, f"is not valid JSON ({exc})", "checkpoint state") from None
        if not isinstance(state, dict):
            raise ModelFileError(sidecar, "must hold a JSON object", "checkpoint state")
        saved = state.get("num_timesteps")
        if saved is not None and steps is not None and saved != steps:
            raise ModelFileError(
                sidecar, f"is for step {saved:,} but {file.name} holds step {steps:,}: they are not one checkpoint",
                "checkpoint state",
            )
    else:
        notes.append(f"{file} holds no training state: the evaluation history and opponent snapshots start afresh")
        return {}, notes
    if not isinstance(state, dict) or any(key not in state for key in STATE_KEYS):
        raise ModelFileError(file, f"holds an incomplete training state (needs {', '.join(STATE_KEYS)})",
                             "checkpoint")
    if state.get("num_timesteps", steps) != steps:
        raise ModelFileError(file, "holds a training state of another step than its model", "checkpoint")
    state = {key: state[key] for key in (*STATE_KEYS, *OPTIONAL_STATE_KEYS) if key in state}
    missing = [snap for snap in state["snapshots"] if not Path(snap).is_file()]
    if missing:
        notes.append(f"opponent snapshot(s) no longer on disk, dropped from the pool: {', '.join(missing)}")
        state["snapshots"] = [snap for snap in state["snapshots"] if snap not in missing]
    return state, notes


def _sidecar_digest(sidecar: Path) -> str | None:
    try:
        data = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return data.get("checkpoint_sha256") if isinstance(data, dict) else None


def remove_partial_files(run_dir: Path) -> list[Path]:
    """Delete the temporary files a killed run left in ``run_dir`` (beside the files it writes and those
    its record names); returns them. A file of the user's, whatever its name, is left alone, and nothing is
    reached through a link (the deletes go through the run folder's descriptor, :func:`~.folder.in_run_folder`)."""
    names = {*RUN_FILES, *SIDECARS}
    with contextlib.suppress(ValueError):
        names |= set(read_manifest(run_dir))
    removed: list[Path] = []
    if not run_dir.is_dir() or run_dir.is_symlink():
        return removed
    with in_run_folder(run_dir) as folder:

        def drop(rel: str) -> None:
            try:
                st = folder.lstat(rel)
                if st is not None and stat.S_ISREG(st.st_mode) and folder.unlink(rel):
                    removed.append(run_dir / rel)
            except (OSError, ValueError):  # a link on its way inside the folder: never followed
                pass

        for rel in sorted(names):
            head, _, name = rel.rpartition("/")
            prefix = f"{head}/" if head else ""
            drop(f"{prefix}.{name}{PARTIAL}")
            if name.endswith(".zip"):
                drop(f"{prefix}{name[:-4]}{PARTIAL_SUFFIX}")
        for sub in ("snapshots", "candidates"):  # those of snapshots and candidates, named as the run names them
            try:
                fd = folder.subfolder([sub], create=False)
            except (OSError, ValueError):
                continue
            try:
                entries = sorted(os.listdir(fd))
            finally:
                os.close(fd)
            for entry in entries:
                if (entry.startswith("step_") and entry.endswith(PARTIAL_SUFFIX)
                        and run_dir / sub / entry not in removed):
                    drop(f"{sub}/{entry}")
    return removed


def atomic_save_model(model: Any, path: Path, features: str | None = None) -> None:
    """Save an SB3 model so that ``path`` is either the old file or the complete new one
    (a failed write: :class:`~gin3_training.run.checkpoints.RunWriteError`, the old file kept);
    with ``features``, also its description (``path`` with ``.json``) naming them."""
    save_model(model, path)
    if features is not None:
        write_json(path.with_suffix(".json"), {"name": path.stem, "features": features})
