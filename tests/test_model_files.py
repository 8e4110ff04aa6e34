"""Model files are data: a crafted file is refused in one line at every entry point, and nothing in
it runs (a marker file its payload would create stays absent); honest files still load."""

from __future__ import annotations

import base64
import io
import json
import pickle
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

import gymnasium  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from test_rllib_policy import write_checkpoint  # noqa: E402

import gin3_env  # noqa: E402
from gin3_env import cli  # noqa: E402
from gin3_env.envs.single_agent import ThreeHandedGinEnv  # noqa: E402
from gin3_env.policies import load_policy  # noqa: E402
from gin3_env.policies.loading import PPO_MODEL, SB3Policy, check_model_file  # noqa: E402
from gin3_env.policies.model_fields import ModelFileError, pickle_globals  # noqa: E402
from gin3_env.policies.model_file import load_sb3_model  # noqa: E402
from gin3_env.policies.rllib_policy import MODULE_DIR, MODULE_STATE, SIDECAR  # noqa: E402

TINY_TRAIN = ["--config", "ppo_quick", "--n-envs", "1", "--vec-env", "dummy", "--n-steps", "64", "--batch-size", "64",
              "--n-epochs", "1", "--bc-samples", "0", "--eval-every", "0", "--checkpoint-every", "64",
              "--final-eval-hands", "2", "--total-timesteps", "64", "--progress-bar", "false"]


class _Touch:
    """Unpickled, creates ``path`` (what a hostile payload would do, harmlessly)."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (self.path, "w"))


def _payload(marker: Path) -> str:
    return base64.b64encode(pickle.dumps(_Touch(marker))).decode()


def _rewrite(
    src: Path, dest: Path, data: dict[str, Any] | None = None, members: dict[str, bytes] | None = None
) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename == "data" and data is not None:
                body = json.dumps(data).encode()
            body = (members or {}).get(info.filename, body)
            zout.writestr(info.filename, body)
    return dest


def _data(path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(path) as archive:
        loaded: dict[str, Any] = json.loads(archive.read("data"))
    return loaded


@pytest.fixture(scope="module")
def plain_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model saved by plain SB3: MaskablePPO with its standard MlpPolicy."""
    path = tmp_path_factory.mktemp("plain") / "plain.zip"
    model = MaskablePPO("MlpPolicy", ThreeHandedGinEnv(opponent="random"), n_steps=16, batch_size=16,
                        policy_kwargs={"net_arch": [16]}, device="cpu", seed=0)
    model.save(path)
    return path


def _crafted(plain: Path, folder: Path, marker: Path) -> dict[str, tuple[Path, str]]:
    """kind -> (file, the words its refusal must hold)."""
    payload = _payload(marker)
    out: dict[str, tuple[Path, str]] = {}
    data = _data(plain)
    data["clip_range"] = {**data["clip_range"], ":serialized:": payload}  # its readable description kept
    out["payload in a field"] = (_rewrite(plain, folder / "field.zip", data), "pickled field 'clip_range'")
    data = _data(plain)
    data["observation_space"] = {":type:": "<class 'builtins.object'>", ":serialized:": payload}
    out["field replaced"] = (_rewrite(plain, folder / "replaced.zip", data), "pickled field 'observation_space'")
    data = _data(plain)
    data["extra"] = {":type:": "<class 'builtins.object'>", ":serialized:": payload}
    out["extra key"] = (_rewrite(plain, folder / "extra.zip", data), "pickled field 'extra'")
    data = _data(plain)
    data["policy_class"] = {**data["policy_class"], "__module__": "evil.policies"}
    out["unknown class"] = (_rewrite(plain, folder / "class.zip", data), "pickled field 'policy_class'")
    buffer = io.BytesIO()
    torch.save(_Touch(marker), buffer)
    with zipfile.ZipFile(plain) as archive:
        pth = [name for name in archive.namelist() if name.endswith(".pth")]
    assert {"policy.pth", "policy.optimizer.pth", "pytorch_variables.pth"} <= set(pth)
    for name in pth:
        file = _rewrite(plain, folder / f"{name.replace('.', '_')}.zip", members={name: buffer.getvalue()})
        out[f"payload in {name}"] = (file, f"holds {name!r}, which is not plain weights")
    return out


def _one_line(text: str, path: Path, words: str) -> None:
    assert "\n" not in text.strip() and str(path) in text and words in text and "Traceback" not in text, text


ENTRY_POINTS: dict[str, Callable[[str], Any]] = {
    "load_policy": load_policy,
    "check_model_file": check_model_file,
    "gym.make": lambda spec: gymnasium.make("gin3/ThreeHandedGin-v0", opponent=spec),
    "vector_env": lambda spec: gin3_env.vector_env(2, opponent=spec),
}


def _refused(call: Callable[[str], Any], path: Path, words: str) -> None:
    with pytest.raises(ModelFileError) as caught:
        call(str(path))
    _one_line(str(caught.value), path, words)


def _cli_refused(capsys: pytest.CaptureFixture[str], argv: list[str], path: Path, words: str) -> None:
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    _one_line(err, path, words)


def test_the_payload_is_live_under_sb3s_own_loader(plain_model: Path, tmp_path: Path) -> None:
    """The crafted payload really runs when a file is unpickled: the opt-in does what it says."""
    marker = tmp_path / "ran"
    file, _ = _crafted(plain_model, tmp_path, marker)["extra key"]
    policy = load_policy(str(file), trust_pickle=True)
    assert isinstance(policy, SB3Policy) and marker.exists()


def test_crafted_files_are_refused_everywhere_and_nothing_runs(
    plain_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    for kind, (path, words) in _crafted(plain_model, tmp_path, marker).items():
        for call in ENTRY_POINTS.values():
            _refused(call, path, words)
        _cli_refused(capsys, ["evaluate", str(path), "random", "--hands", "1", "--matches", "0"], path, words)
        _cli_refused(capsys, ["play", "--opponent", str(path)], path, words)
        _cli_refused(capsys, ["train", *TINY_TRAIN, "--out-dir", str(tmp_path / "out"), "--run-name",
                              kind.replace(" ", "_"), "--resume", str(path)], path, words)
        assert not marker.exists(), kind


def test_the_trust_flag_opens_a_file_with_sb3s_loader(
    plain_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    file, _ = _crafted(plain_model, tmp_path, marker)["extra key"]
    code = cli.main(["evaluate", str(file), "random", "--hands", "1", "--matches", "0", "--trust-model-file",
                     str(file)])
    capsys.readouterr()
    assert code == 0 and marker.exists()


def test_a_tampered_rllib_module_id_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "ran"
    outside = tmp_path / "outside" / MODULE_STATE
    outside.parent.mkdir()
    outside.write_bytes(pickle.dumps(_Touch(marker)))
    folder = tmp_path / "checkpoint"
    write_checkpoint(folder)
    for module_id, words in (("../../../../outside", "not a plain module name"), ("a/b", "not a plain module name"),
                             ("..", "not a plain module name"), ("ghost", "has no module 'ghost'")):
        meta = json.loads((folder / SIDECAR).read_text())
        meta["play_modules"] = {"any": module_id}
        (folder / SIDECAR).write_text(json.dumps(meta))
        spec = f"rllib:{folder}"
        with pytest.raises(ValueError) as caught:
            load_policy(spec)
        assert words in str(caught.value) and "\n" not in str(caught.value)
        with pytest.raises(ValueError, match=words):
            gymnasium.make("gin3/ThreeHandedGin-v0", opponent=spec)
        for argv in (["evaluate", spec, "random", "--hands", "1", "--matches", "0"], ["play", "--opponent", spec]):
            assert cli.main(argv) == 2
            err = capsys.readouterr().err
            assert words in err and "\n" not in err.strip(), err
        assert not marker.exists()
    assert (folder / MODULE_DIR / "shared" / MODULE_STATE).is_file()  # the honest module is still there


def test_plain_sb3_models_load_without_unpickling(plain_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import cloudpickle

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("cloudpickle.loads was called")

    monkeypatch.setattr(cloudpickle, "loads", refuse)
    policy = load_policy(str(plain_model))
    env = ThreeHandedGinEnv(opponent="random")
    obs, _ = env.reset(seed=1)
    action = policy.act({"observation": obs, "action_mask": env.action_masks().astype(np.int8)})
    assert env.action_masks()[action]
    shipped = load_sb3_model(PPO_MODEL)
    assert type(shipped.policy).__module__ == "gin3_env.policies.sb3_network"


def test_schedules_and_activations_are_rebuilt_from_their_description(tmp_path: Path) -> None:
    from stable_baselines3.common.utils import LinearSchedule

    path = tmp_path / "linear.zip"
    model = MaskablePPO("MlpPolicy", ThreeHandedGinEnv(opponent="random"), n_steps=16, batch_size=16,
                        learning_rate=LinearSchedule(3e-4, 1e-5, 0.5), clip_range=0.3,
                        policy_kwargs={"net_arch": [8], "activation_fn": torch.nn.ReLU}, device="cpu")
    model.save(path)
    loaded = load_sb3_model(path)
    assert loaded.lr_schedule(1.0) == pytest.approx(3e-4) and loaded.lr_schedule(0.0) == pytest.approx(1e-5)
    assert loaded.clip_range(0.5) == pytest.approx(0.3)
    assert loaded.policy.activation_fn is torch.nn.ReLU
    for a, b in zip(loaded.policy.state_dict().values(), model.policy.state_dict().values(), strict=True):
        assert torch.equal(a, b)


def test_the_shipped_model_names_no_training_class() -> None:
    with zipfile.ZipFile(PPO_MODEL) as archive:
        data = json.loads(archive.read("data"))
    named = []
    for entry in data.values():
        if isinstance(entry, dict) and ":serialized:" in entry:
            names = pickle_globals(base64.b64decode(entry[":serialized:"]))
            assert names is not None
            named += names
    assert "gin3_env.policies.sb3_network.CardAwarePolicy" in named
    assert not [n for n in named if n.startswith("gin3_training")], named


def test_the_shipped_model_loads_as_a_checkpoint_with_the_configs_settings(tmp_path: Path) -> None:
    """The card-aware model gin3 train writes loads again, the config's PPO settings replacing the file's."""
    copy = shutil.copy(PPO_MODEL, tmp_path / "trained.zip")
    assert check_model_file(copy) == Path(copy)
    model = load_sb3_model(copy, env=None, overrides={"learning_rate": 1e-4, "clip_range": 0.2})
    assert model.learning_rate == 1e-4 and model.clip_range(1.0) == pytest.approx(0.2)
