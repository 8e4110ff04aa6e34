"""A model file is read once, as data: its plain fields reach no ``gym.make`` or import, the path is
opened once, pickles are checked by whole global names, malformed files (deep JSON, a tar ``.pth``,
NaN weights, a zip bomb) are one line, and a model made for another env or by plain PPO is refused
saying so, on the trusted path too. Each crafted file is built here; a marker file its payload would
create stays absent. A player is its actor network alone: loading one builds no SB3 trainer."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

import gymnasium  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from test_model_files import _data, _one_line, _rewrite  # noqa: E402

import gin3_env  # noqa: E402
from gin3_env import cli  # noqa: E402
from gin3_env.envs.single_agent import ThreeHandedGinEnv  # noqa: E402
from gin3_env.policies import load_policy, model_fields  # noqa: E402
from gin3_env.policies import model_file as mf  # noqa: E402
from gin3_env.policies.loading import PPO_MODEL, check_model_file  # noqa: E402
from gin3_env.policies.model_fields import ModelFileError  # noqa: E402
from gin3_env.policies.model_file import load_sb3_model  # noqa: E402


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("plain") / "plain.zip"
    MaskablePPO("MlpPolicy", ThreeHandedGinEnv(opponent="random"), n_steps=16, batch_size=16,
                policy_kwargs={"net_arch": [16]}, device="cpu", seed=0).save(path)
    return path


def _refused_everywhere(capsys: pytest.CaptureFixture[str], path: Path, words: str, trust: bool = False) -> None:
    """load_policy, check_model_file, gym.make(opponent=), vector_env(opponent=) and gin3 evaluate
    each refuse ``path`` in one line naming it and holding ``words``; gin3 evaluate exits 2."""
    calls: list[Any] = [lambda p: load_policy(p, trust_pickle=trust)]
    if not trust:
        calls += [check_model_file, lambda p: gymnasium.make("gin3/ThreeHandedGin-v0", opponent=p),
                  lambda p: gin3_env.vector_env(2, opponent=p)]
    for call in calls:
        with pytest.raises(ModelFileError) as caught:
            call(str(path))
        _one_line(str(caught.value), path, words)
    argv = ["evaluate", str(path), "random", "--hands", "1", "--matches", "0"]
    code = cli.main([*argv, "--trust-model-file", str(path)] if trust else argv)
    err = capsys.readouterr().err
    assert code == 2, err
    _one_line(err, path, words)


def test_a_plain_env_field_imports_nothing(plain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``"env": "mod:X-v0"`` made SB3's loader call gym.make, which imported ``mod`` from the working folder."""
    marker = tmp_path / "ran"
    module = f"gin3_probe_{os.getpid()}"
    (tmp_path / f"{module}.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    data = _data(plain)
    data["env"] = f"{module}:X-v0"
    data["device"] = f"{module}:cuda"
    path = _rewrite(plain, tmp_path / "env_field.zip", data)
    policy = load_policy(str(path))
    env = ThreeHandedGinEnv(opponent="random")
    obs, _ = env.reset(seed=3)
    assert env.action_masks()[policy.act({"observation": obs, "action_mask": env.action_masks().astype(np.int8)})]
    gymnasium.make("gin3/ThreeHandedGin-v0", opponent=str(path)).reset(seed=1)
    gin3_env.vector_env(2, opponent=str(path)).reset(seed=1)
    trainer = load_sb3_model(path)  # the trainer path (ship, resume) gets no env from the file either
    assert trainer.env is None and getattr(trainer, "device", None) != f"{module}:cuda"
    assert module not in sys.modules and not marker.exists()


def test_a_model_file_is_opened_once(plain: Path, tmp_path: Path) -> None:
    """The file was checked, then opened again by SB3's loader: a swap between the two ran a pickle."""
    path = Path(str(plain))
    opened: list[str] = []
    watching = [True]

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if watching[0] and event == "open" and args and isinstance(args[0], str | bytes | os.PathLike):
            with_name = os.fsdecode(args[0])
            if os.path.basename(with_name) == path.name:
                opened.append(with_name)

    sys.addaudithook(hook)
    try:
        for load in (lambda: load_policy(str(path)), lambda: load_sb3_model(path)):
            opened.clear()
            load()
            assert len(opened) == 1, opened
    finally:
        watching[0] = False


def test_a_pickle_is_checked_by_whole_global_names(plain: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``numpy.f2py.os.system`` is ``os.system``: it is no ``numpy`` name."""
    marker = tmp_path / "ran"
    command = f"touch {marker}".encode()
    raw = b"\x80\x02cnumpy.f2py.os\nsystem\nq\x00X" + len(command).to_bytes(4, "little") + command + b"\x85R."
    import base64

    assert model_fields.pickle_globals(raw) == ["numpy.f2py.os.system"]
    data = _data(plain)
    data["clip_range"] = {**data["clip_range"], ":serialized:": base64.b64encode(raw).decode()}
    path = _rewrite(plain, tmp_path / "prefix.zip", data)
    _refused_everywhere(capsys, path, "names numpy.f2py.os.system")
    assert not marker.exists()


def _pth_zip(plain: Path, dest: Path, state: dict[str, Any]) -> Path:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return _rewrite(plain, dest, members={"policy.pth": buffer.getvalue()})


def _policy_state(plain: Path) -> dict[str, Any]:
    with zipfile.ZipFile(plain) as archive:
        loaded: dict[str, Any] = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    return loaded


def test_malformed_files_are_one_line(plain: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.zip"
    with zipfile.ZipFile(plain) as zin, zipfile.ZipFile(deep, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, b"[" * 200_000 if info.filename == "data" else zin.read(info.filename))
    _refused_everywhere(capsys, deep, "nests JSON too deeply")

    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w") as archive:
        for name in ("sys_info", "pickle", "storages", "tensors"):
            body = b"\x80\x02}q\x00."
            info = tarfile.TarInfo(name)
            info.size = len(body)
            archive.addfile(info, io.BytesIO(body))
    legacy = _rewrite(plain, tmp_path / "tar_pth.zip", members={"policy.pth": tar.getvalue()})
    _refused_everywhere(capsys, legacy, "torch's legacy tar format")

    for value, name in ((float("nan"), "nan"), (float("inf"), "inf")):
        state = _policy_state(plain)
        key = "action_net.weight"
        state[key] = state[key].clone()
        state[key][3, 2] = value
        bad = _pth_zip(plain, tmp_path / f"{name}.zip", state)
        _refused_everywhere(capsys, bad, f"not finite (NaN or inf in {key})")


def test_a_zip_bomb_is_refused_before_it_is_inflated(plain: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    bomb = tmp_path / "bomb.zip"
    size = getattr(mf, "MEMBER_LIMIT", 256 * 2**20) + 16 * 2**20
    with zipfile.ZipFile(plain) as zin, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info.filename))
        with zout.open("extra", "w", force_zip64=True) as member:
            block = bytes(16 * 2**20)
            for _ in range(size // len(block)):
                member.write(block)
    assert bomb.stat().st_size < 4 * 2**20
    _refused_everywhere(capsys, bomb, "holds 'extra', which inflates to 272 MiB, more than the 256 MiB")


def test_weights_that_fit_no_network_are_one_line(plain: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    state = _policy_state(plain)
    state["mlp_extractor.policy_net.0.weight"] = torch.zeros(3, 3)
    path = _pth_zip(plain, tmp_path / "shape.zip", state)
    _refused_everywhere(capsys, path, "holds weights that do not fit the network")


class _OtherEnv(gymnasium.Env):  # type: ignore[type-arg]
    """Another env's spaces: Box(374) and Discrete(10)."""

    observation_space = gymnasium.spaces.Box(0.0, 1.0, (374,), np.float32)
    action_space = gymnasium.spaces.Discrete(10)

    def reset(self, *, seed: int | None = None, options: Any = None) -> tuple[Any, dict[str, Any]]:
        return np.zeros(374, np.float32), {}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return np.zeros(374, np.float32), 0.0, True, False, {}

    def action_masks(self) -> np.ndarray:
        return np.ones(10, bool)


@pytest.mark.parametrize("trust", [False, True])
def test_a_model_for_another_env_or_plain_ppo_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      trust: bool) -> None:
    from stable_baselines3 import PPO

    other = tmp_path / "other_env.zip"
    MaskablePPO("MlpPolicy", _OtherEnv(), n_steps=16, batch_size=16, policy_kwargs={"net_arch": [8]},
                device="cpu").save(other)
    _refused_everywhere(capsys, other, "is not a model for gin3's env: its action space is Discrete(10)", trust)
    ppo = tmp_path / "plain_ppo.zip"
    PPO("MlpPolicy", ThreeHandedGinEnv(opponent="random"), n_steps=16, batch_size=16,
        policy_kwargs={"net_arch": [8]}, device="cpu").save(ppo)
    _refused_everywhere(capsys, ppo, "is not a model for gin3's env: its policy class is "
                        "stable_baselines3.common.policies.ActorCriticPolicy", trust)


def test_a_player_is_its_network_alone() -> None:
    """Loading a player builds no SB3 trainer and imports no stable-baselines3; it plays as SB3 would."""
    code = ("import sys; from gin3_env.policies import load_policy; p = load_policy('ppo'); "
            "print(type(p.model).__name__, 'stable_baselines3' in sys.modules, 'sb3_contrib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["PlayerNetwork", "False", "False"], out
    player = load_policy("ppo")
    trainer = load_sb3_model(PPO_MODEL)
    obs = np.random.default_rng(0).random((64, player.obs_dim), dtype=np.float32)
    masks = np.random.default_rng(1).random((64, 107)) < 0.3
    masks[:, 0] = True
    from gin3_env.policies.player import PlayerNetwork

    assert isinstance(player.model, PlayerNetwork)
    ours, _ = player.model.predict(obs, action_masks=masks, deterministic=True)
    theirs, _ = trainer.predict(obs, action_masks=masks, deterministic=True)
    assert ours.tolist() == np.asarray(theirs).tolist()


def test_the_spec_check_reads_no_weights(tmp_path: Path) -> None:
    """``gin3 evaluate trained missing.zip`` is refused before torch is imported."""
    code = ("import sys; from gin3_env.policies.specs import check_policy_spec; check_policy_spec('gated'); "
            f"print('torch' in sys.modules); check_policy_spec({str(tmp_path / 'missing.zip')!r})")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.stdout.split() == ["False"] and "not found" in run.stderr, (run.stdout, run.stderr)


def test_the_resumed_checkpoint_gets_its_own_state_from_the_same_bytes(plain: Path, tmp_path: Path) -> None:
    from gin3_training.run.checkpoints import STATE_MEMBER, read_checkpoint

    state = {"snapshots": [], "eval_history": [], "best_mean": 0.25, "best_step": 0, "last_snapshot": 0,
             "last_eval": 0, "last_checkpoint": 0, "num_timesteps": 0}
    path = _rewrite(plain, tmp_path / "checkpoint.zip", members={})
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(STATE_MEMBER, json.dumps(state))
    checked = mf.read_model_file(path, "checkpoint")
    path.write_bytes(b"swapped after the check")
    saved, _ = read_checkpoint(path, checked)
    assert saved["best_mean"] == 0.25
    model = load_sb3_model(checked, env=ThreeHandedGinEnv(opponent="random"), overrides={"learning_rate": 1e-4})
    assert model.learning_rate == 1e-4 and model.get_env() is not None
