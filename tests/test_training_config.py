"""Training config loading and validation (no training here)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("yaml")

from gin3_training.configs import resolve_config_path
from gin3_training.ppo.config import TrainConfig, load_config
from gin3_training.ppo.envs import opponent_pool


@pytest.mark.parametrize("name", ["ppo_quick", "default", "selfplay"])
def test_shipped_configs_load(name: str) -> None:
    cfg = load_config(name)
    assert cfg.run_name == name
    assert cfg.opponent_schedule[-1]["until"] == 1.0


def test_repository_configs_folder_is_the_shipped_one() -> None:
    repo_configs = Path(__file__).resolve().parent.parent / "configs"
    assert (repo_configs / "quick.yaml").read_text() == resolve_config_path("quick").read_text()


def test_overrides_win_over_the_file() -> None:
    cfg = load_config("ppo_quick", {"total_timesteps": 1234, "seed": 9})
    assert (cfg.total_timesteps, cfg.seed) == (1234, 9)


def test_unknown_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("total_timesteps: 10\nlearning_rat: 0.1\n")
    with pytest.raises(ValueError, match="learning_rat"):
        load_config(str(path))


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("total_timesteps", "many", "total_timesteps"),
        ("total_timesteps", 0, "total_timesteps"),
        ("learner", "sitter", "learner"),
        ("vec_env", "threads", "vec_env"),
        ("learning_rate", 2.0, "learning_rate"),
        ("net_arch", [], "net_arch"),
        ("progress_bar", "yes", "progress_bar"),
        ("opponent_schedule", [{"until": 0.5, "random": 1}], "until: 1.0"),
        ("opponent_schedule", [{"until": 1.0, "bogus": 1}], "bogus"),
        ("opponent_schedule", [{"until": 1.0, "random": 0}], "positive weight"),
        ("opponent_schedule", [{"random": 1}], "until"),
    ],
)
def test_bad_values_are_named(key: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_config("ppo_quick", {key: value})


def test_missing_config_file_lists_shipped_ones() -> None:
    with pytest.raises(FileNotFoundError, match="quick"):
        load_config("no-such-config")


def test_opponent_pool_follows_the_schedule() -> None:
    cfg = TrainConfig(
        opponent_schedule=[
            {"until": 0.5, "random": 1, "heuristic": 3},
            {"until": 1.0, "heuristic": 1, "self": 2},
        ]
    )
    assert opponent_pool(cfg, 0.1, []) == (["random", "heuristic"], [1.0, 3.0])
    # second phase without snapshots: only the heuristic is left
    assert opponent_pool(cfg, 0.7, []) == (["heuristic"], [1.0])
    specs, weights = opponent_pool(cfg, 0.7, ["a.zip", "b.zip"])
    assert specs == ["heuristic", "a.zip", "b.zip"]
    assert weights == [1.0, 1.0, 1.0]


def test_a_checkout_config_path_works_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys

    from gin3_training.configs import CONFIG_DIR

    monkeypatch.chdir(tmp_path)  # not the repository root: configs/quick.yaml is not a path from here
    assert resolve_config_path("configs/quick.yaml") == CONFIG_DIR / "quick.yaml"
    assert resolve_config_path("configs/rllib/quick.yaml", CONFIG_DIR / "rllib") == CONFIG_DIR / "rllib" / "quick.yaml"
    assert load_config("configs/ppo_quick.yaml").run_name == "ppo_quick"
    with pytest.raises(FileNotFoundError, match=r"no config file 'configs/nope\.yaml'"):
        resolve_config_path("configs/nope.yaml")
    (tmp_path / "configs").mkdir()  # a configs folder here wins: the path means what it says
    (tmp_path / "configs" / "quick.yaml").write_text("run_name: mine\n")
    assert load_config("configs/quick.yaml").run_name == "mine"
    script = Path(__file__).resolve().parents[1] / "training" / "train.py"
    other = tmp_path / "elsewhere"
    other.mkdir()
    done = subprocess.run([sys.executable, str(script), "--config", "configs/ppo_quick.yaml", "--learning-rate", "5"],
                          cwd=other, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "'learning_rate' must be in (0, 1)" in done.stderr, done.stderr  # read, checked
