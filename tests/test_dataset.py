"""Minari datasets of a player's play (gin3_env.evaluation.dataset, ``gin3 dataset``): they load with
``minari.load_dataset``, the masks admit every action, the metadata names the players, a seed repeats the
data, the batched recording is the scalar env's, and behaviour cloning on it beats random."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gin3_env.evaluation.dataset import (
    DatasetExistsError,
    Episode,
    batched_episodes,
    episode_buffer,
    record_dataset,
    scalar_episodes,
)

minari = pytest.importorskip("minari")
pytest.importorskip("h5py")

ROOT = Path(__file__).resolve().parent.parent
FIELDS = ("observations", "actions", "rewards", "terminations", "truncations", "masks", "deck")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A datasets folder of the test's own; HOME moved too, so a write outside it would show."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "datasets"))
    return tmp_path / "datasets"


@pytest.fixture(scope="module")
def trained_20(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    folder = tmp_path_factory.mktemp("datasets")
    return folder, record_dataset("gated", episodes=20, root=folder, num_envs=8)


def load(folder: Path, dataset_id: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(folder))
    return minari.load_dataset(dataset_id)


def test_a_recorded_dataset_loads_with_minari_and_its_masks_admit_every_action(
        trained_20: tuple[Path, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    folder, _ = trained_20
    dataset = load(folder, "gin3/gated-v0", monkeypatch)
    assert dataset.total_episodes == 20
    assert dataset.observation_space.shape == (374,) and dataset.action_space.n == 107
    steps = 0
    for episode in dataset.iterate_episodes():
        t = len(episode.actions)
        steps += t
        assert episode.observations.shape == (t + 1, 374) and episode.observations.dtype == np.float32
        masks = episode.infos["action_mask"]
        assert masks.shape == (t + 1, 107) and masks.dtype == bool
        assert masks[np.arange(t), episode.actions].all(), "a recorded action its mask does not admit"
        assert masks[-1].all()  # after the end: any action, as the env's terminal mask
        assert episode.terminations[-1] != episode.truncations[-1] and not episode.terminations[:-1].any()
        assert not episode.rewards[:-1].any()
    assert steps == dataset.total_steps
    meta = dataset.storage.metadata
    assert (meta["player"], meta["opponent"], meta["seed"], meta["backend"]) == ("gated", "heuristic", 0, "batched")
    assert dataset.env_spec.kwargs["opponent"] == "heuristic"


def test_each_episode_deals_again_from_its_options(trained_20: tuple[Path, Any],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import gymnasium as gym

    folder, _ = trained_20
    dataset = load(folder, "gin3/gated-v0", monkeypatch)
    env = dataset.recover_environment()
    for meta, episode in zip(dataset.storage.get_episode_metadata(range(3)), dataset.iterate_episodes(range(3)),
                             strict=True):
        obs, _ = env.reset(options={"deck": list(meta["options"]["deck"]), "learner": meta["options"]["learner"]})
        np.testing.assert_array_equal(obs, episode.observations[0])
        for action, next_obs, reward in zip(episode.actions, episode.observations[1:], episode.rewards, strict=True):
            obs, r, *_ = env.step(int(action))
            np.testing.assert_array_equal(obs, next_obs)
            assert r == reward
    assert isinstance(env.unwrapped, gym.Env)


def test_the_same_seed_records_the_same_data(trained_20: tuple[Path, Any], root: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    folder, first = trained_20
    again = record_dataset("gated", episodes=20, num_envs=8)  # MINARI_DATASETS_PATH: the root fixture's
    other = record_dataset("gated", episodes=20, dataset_id="gin3/gated-v1", seed=1, num_envs=8)
    first = load(folder, "gin3/gated-v0", monkeypatch)
    for a, b in zip(first.iterate_episodes(), again.iterate_episodes(), strict=True):
        for key in ("observations", "actions", "rewards", "terminations", "truncations"):
            np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
        np.testing.assert_array_equal(a.infos["action_mask"], b.infos["action_mask"])
    assert any(len(a.actions) != len(b.actions) or (a.actions != b.actions).any()
               for a, b in zip(first.iterate_episodes(), other.iterate_episodes(), strict=True))
    assert sorted(p.name for p in root.iterdir()) == ["gin3"] and not (root.parent / "home").exists()


def same(a: Episode, b: Episode, where: str) -> None:
    assert a.learner == b.learner, where
    for key in FIELDS:
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key), err_msg=f"{where}: {key}")


@pytest.mark.parametrize("player", ["gated", "heuristic", "net"])
def test_the_batched_recording_is_the_scalar_envs_on_the_same_deals(player: str) -> None:
    """The batched core and the player's batched form against the scalar env (gym.make) and the scalar player
    on each recorded episode's deck and role: every observation, mask, action, reward and end the same."""
    batched = list(batched_episodes(player, 24, num_envs=8, seed=3))
    assert len(batched) == 24
    scalar = list(scalar_episodes(player, 24, seed=3, deals=[(list(e.deck), e.learner) for e in batched]))
    for k, (a, b) in enumerate(zip(batched, scalar, strict=True)):
        same(a, b, f"{player}, episode {k}")
    assert {e.learner for e in batched} == {0, 1}


def test_the_scalar_backend_records_too(root: Path) -> None:
    dataset = record_dataset("heuristic", episodes=3, backend="scalar", opponent="random", seed=5)
    assert dataset.total_episodes == 3 and dataset.storage.metadata["backend"] == "scalar"
    assert dataset.storage.metadata["opponent"] == "random"


def test_minari_reads_back_what_its_own_writer_would_have_written(root: Path) -> None:
    """The recorder writes Minari's HDF5 layout itself (arrays stored whole); Minari's own writer, given the same
    episodes as EpisodeBuffers, gives a dataset that loads the same."""
    episodes = list(batched_episodes("gated", 6, num_envs=3, seed=2))
    ours = record_dataset("gated", episodes=6, num_envs=3, seed=2)
    theirs = minari.create_dataset_from_buffers(
        "gin3/theirs-v0", [episode_buffer(e) for e in episodes], env="gin3/ThreeHandedGin-v0",
        eval_env="gin3/ThreeHandedGin-v0", algorithm_name="x", author="x", author_email="x", code_permalink="x",
        description="x", data_format="hdf5")
    theirs = minari.load_dataset("gin3/theirs-v0")
    assert (ours.total_episodes, ours.total_steps) == (theirs.total_episodes, theirs.total_steps)
    for a, b in zip(ours.iterate_episodes(), theirs.iterate_episodes(), strict=True):
        for key in ("id", "observations", "actions", "rewards", "terminations", "truncations"):
            np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
            assert getattr(a, key).dtype == getattr(b, key).dtype if key != "id" else True
        np.testing.assert_array_equal(a.infos["action_mask"], b.infos["action_mask"])
    n = range(6)
    for a, b in zip(ours.storage.get_episode_metadata(n), theirs.storage.get_episode_metadata(n), strict=True):
        assert a["total_steps"] == b["total_steps"] and a["options"]["learner"] == b["options"]["learner"]
        np.testing.assert_array_equal(a["options"]["deck"], b["options"]["deck"])


# ---------------------------------------------------------------- refusals
def test_an_existing_dataset_is_refused_without_overwrite(root: Path) -> None:
    record_dataset("random", episodes=2, num_envs=2)
    with pytest.raises(DatasetExistsError, match=r"already exists .*--overwrite"):
        record_dataset("random", episodes=3, num_envs=2)
    assert record_dataset("random", episodes=3, num_envs=2, overwrite=True).total_episodes == 3


@pytest.mark.parametrize("episodes", [0, -1, 2.5, True])
def test_episodes_must_be_positive(episodes: Any, root: Path) -> None:
    with pytest.raises(ValueError, match="episodes must be an int >= 1"):
        record_dataset("random", episodes=episodes)
    assert not root.exists() or not any(root.iterdir())


def test_a_failed_recording_leaves_nothing(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gin3_env.evaluation.dataset as module

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(module, "write_episodes", broken)
    with pytest.raises(RuntimeError, match="boom"):
        record_dataset("random", episodes=2, num_envs=2)
    assert not (root / "gin3").exists()  # nor the namespace folder it made


def test_a_bad_opponent_is_refused_before_anything_is_written(root: Path) -> None:
    with pytest.raises(ValueError, match="nope"):
        record_dataset("random", episodes=2, opponent="nope")
    assert not (root / "gin3").exists()


def test_without_minari_the_error_names_the_extra(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "minari", None)
    with pytest.raises(ImportError, match=r'pip install "gin3_env\[dataset\]"'):
        record_dataset("random", episodes=2)


def gin3(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gin3_env", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=env)


def test_the_command_records_then_refuses_the_same_id(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "HOME": str(tmp_path / "home")}
    env.pop("MINARI_DATASETS_PATH", None)
    folder = tmp_path / "mine"
    args = ("dataset", "heuristic", "--episodes", "5", "--out", "gin3/h-v0", "--root", str(folder), "--num-envs", "2")
    done = gin3(*args, env=env)
    assert done.returncode == 0, done.stderr
    assert "recorded 5 episodes" in done.stdout and (folder / "gin3" / "h-v0" / "data").is_dir()
    again = gin3(*args, env=env)
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "--overwrite" in again.stderr
    assert not (tmp_path / "home").exists()  # nothing outside the folder named
    for bad, said in ((("--episodes", "0"), "--episodes must be >= 1"), (("--out", "nope"), "dataset id must look"),
                      (("--overwrite", "--num-envs", "0"), "--num-envs must be >= 1")):
        refused = gin3("dataset", "heuristic", "--root", str(folder), *bad, env=env)
        assert refused.returncode == 2 and said in refused.stderr and refused.stderr.count("\n") == 1, refused.stderr
    unknown = gin3("dataset", "traind", "--root", str(folder), env=env)
    assert unknown.returncode == 2 and "gated" in unknown.stderr and unknown.stderr.count("\n") == 1, unknown.stderr


# ---------------------------------------------------------------- behaviour cloning (docs/datasets.md)
def behaviour_cloning() -> Any:
    spec = importlib.util.spec_from_file_location("behaviour_cloning", ROOT / "examples" / "behaviour_cloning.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_behaviour_cloning_on_a_small_dataset_beats_random(tmp_path: Path) -> None:
    result = behaviour_cloning().main(episodes=200, deals=100, root=str(tmp_path), epochs=10)
    assert result["accuracy"] > 0.8
    assert result["bc_points"] > result["random_points"] + 10, result


@pytest.mark.slow
def test_behaviour_cloning_on_1000_episodes_of_trained_beats_random(tmp_path: Path) -> None:
    result = behaviour_cloning().main(episodes=1000, deals=300, root=str(tmp_path))
    assert result["bc_points"] > result["random_points"] + 10, result
