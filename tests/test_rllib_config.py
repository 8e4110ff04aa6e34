"""The RLlib backend without Ray: its config and ``--help``, the iteration lines, a resume that has
nothing left to train, and the batched-core vector env that RLlib's single-agent runner steps."""

from __future__ import annotations

import dataclasses
import json
import pickle
import sys
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

from gin3_env.interop.rllib_vector import HandsVectorEnv, make_vector_env
from gin3_training.ppo.rllib import train as rllib_train
from gin3_training.ppo.rllib.config import CONFIG_DIR, RLlibConfig, load_config

REPO = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ config and --help
def test_every_config_key_is_described_once_and_help_shows_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        rllib_train.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert "override '" not in text
    for f in dataclasses.fields(RLlibConfig):
        about = f.metadata.get("help")
        assert about, f"config key {f.name!r} has no description"
        flag = "--" + f.name.rstrip("_").replace("_", "-")
        assert flag in text and " ".join(about.split()) in text, f.name


def test_num_envs_per_env_runner_is_in_every_shipped_config_and_checked() -> None:
    for path in sorted(CONFIG_DIR.glob("*.yaml")):
        assert "num_envs_per_env_runner:" in path.read_text(), path.name
        assert load_config(path.stem).num_envs_per_env_runner > 1
    with pytest.raises(ValueError, match="'num_envs_per_env_runner' must be > 0"):
        RLlibConfig(num_envs_per_env_runner=0)
    with pytest.raises(ValueError, match="vs_heuristic is for env: hand"):
        RLlibConfig(env="match", policies="vs_heuristic")


# ------------------------------------------------------------------ the iteration line
def _record(episodes: int, returns: dict[str, float]) -> dict[str, object]:
    return {"iteration": 3, "timesteps": 3000, "steps_per_s": 512.0, "episodes": episodes,
            "episode_len_mean": 121.4 if episodes else None, "seat_returns": returns}


def test_an_iteration_line_counts_the_hands_that_ended() -> None:
    quiet = rllib_train.record_text(_record(0, {}))
    assert quiet.endswith("no hand ended in this iteration") and "+0.00" not in quiet
    line = rllib_train.record_text(_record(8, {"team_0": 0.0, "box_0": 0.0}))
    assert line.endswith("8 hands ended (121 steps on average); mean return (points): team_0 +0.00, box_0 +0.00")
    one = rllib_train.record_text(_record(1, {"learner": -12.5}), unit=("match", "matches"))
    assert one.endswith("1 match ended (121 steps on average); mean return (points): learner -12.50")


def test_the_plan_says_how_the_target_is_rounded() -> None:
    cfg = RLlibConfig(total_timesteps=2000, train_batch_size=1000, num_env_runners=2, num_envs_per_env_runner=8)
    text = rllib_train.plan_text(cfg, {"timesteps": 0})
    assert "2 env runner(s), 8 hands at a time each" in text
    assert "target 2,000 env steps, trained in whole iterations of about 1,000" in text
    assert "about 2 iteration(s), stopping after the first that reaches the target" in text


# ------------------------------------------------------------------ a resume with nothing to train
def _checkpoint(run: Path, timesteps: int) -> Path:
    """A finished run's checkpoint (weights in RLlib's layout, sidecar, state) as the trainer writes it."""
    import torch

    from gin3_env.policies.network import MaskedActorCritic
    from gin3_env.policies.rllib_net import input_size
    from gin3_env.policies.rllib_policy import MODULE_DIR, MODULE_STATE, SIDECAR

    cfg = RLlibConfig(out_dir=str(run.parent), run_name=run.name, hidden=[16], total_timesteps=timesteps)
    state = {"timesteps": timesteps, "iterations": 2, "history": []}
    checkpoint = run / rllib_train.CHECKPOINT
    weights = checkpoint / MODULE_DIR / "shared" / MODULE_STATE
    weights.parent.mkdir(parents=True)
    torch.manual_seed(0)
    net = MaskedActorCritic(input_size("hand", "augmented"), [16], card_head=True)
    weights.write_bytes(pickle.dumps(OrderedDict((f"net.{k}", v.numpy()) for k, v in net.state_dict().items())))
    (checkpoint / SIDECAR).write_text(json.dumps(rllib_train.policy_metadata(cfg, state)))
    (checkpoint / rllib_train.STATE_FILE).write_text(json.dumps({**state, "config": dataclasses.asdict(cfg)}))
    return checkpoint


def _resume(tmp_path: Path, total: int) -> list[str]:
    return ["--out-dir", str(tmp_path), "--run-name", "R", "--hidden", "[16]", "--total-timesteps", str(total),
            "--final-eval-hands", "3", "--resume"]


def test_a_resume_past_the_target_trains_nothing_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkpoint = _checkpoint(tmp_path / "R", timesteps=2048)
    had_ray = "ray" in sys.modules
    assert rllib_train.main(_resume(tmp_path, 2000)) == 0  # no final evaluation yet: it is made once
    out = capsys.readouterr().out
    assert "nothing to train" in out and "holds 2,048 env steps, which reaches total_timesteps 2,000" in out
    assert "no final evaluation yet" in out and "heuristic" in out and "[iter" not in out
    summary = json.loads((tmp_path / "R" / rllib_train.FINAL_EVAL).read_text())
    assert summary["num_timesteps"] == 2048 and summary["vs"]["heuristic"]["deals"] == 3
    assert ("ray" in sys.modules) == had_ray, "a run with nothing to train started Ray"

    (tmp_path / "R" / rllib_train.FINAL_EVAL).write_text(json.dumps({**summary, "marker": 1}))
    assert rllib_train.main(_resume(tmp_path, 1000)) == 0  # the evaluation is shown, not made again
    out = capsys.readouterr().out
    assert "its final evaluation, made when training ended" in out and "no final evaluation yet" not in out
    assert json.loads((tmp_path / "R" / rllib_train.FINAL_EVAL).read_text())["marker"] == 1
    assert (checkpoint / rllib_train.STATE_FILE).is_file()


# ------------------------------------------------------------------ the vector env RLlib steps
def _legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def test_vector_env_resets_on_the_next_step_as_rllib_expects() -> None:
    env = HandsVectorEnv(8, reward_scale=0.5)
    obs, infos = env.reset(seed=3)
    assert infos == {} and env.observation_space.contains(obs)
    assert env.metadata["autoreset_mode"].value == "NextStep"
    rng = np.random.default_rng(0)
    returns, running = [], np.zeros(8)
    held = np.zeros(8, dtype=bool)
    for _ in range(600):
        masks = obs["action_mask"]
        assert (masks[~held].sum(axis=1) > 0).all()  # a live slot has a legal action
        assert not masks[held].any()  # an ended hand's last observation allows nothing
        actions = np.array([_legal(m, rng) if not h else 0 for m, h in zip(masks, held, strict=True)])
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert env.observation_space.contains(obs)
        # the step after an end: the slot's next hand, reward 0, not done, the action ignored
        assert not rewards[held].any() and not (terminated | truncated)[held].any()
        assert (obs["action_mask"][held].sum(axis=1) > 0).all()
        running += rewards
        held = terminated | truncated
        returns += list(running[held] / 0.5)
        running[held] = 0.0
    assert len(returns) > 50
    assert all(float(r).is_integer() for r in returns)  # whole game points, one reward per hand
    assert np.mean(returns) < 0  # random play loses to the heuristic


def test_vector_env_is_seeded_and_refuses_bad_input() -> None:
    def play(seed: int) -> list[np.ndarray]:
        env = HandsVectorEnv(4, features="plain")
        obs, _ = env.reset(seed=seed)
        rng, seen = np.random.default_rng(1), [obs["observations"]]
        for _ in range(40):
            masks = obs["action_mask"]
            obs, *_ = env.step([_legal(m, rng) if m.any() else 0 for m in masks])
            seen.append(obs["observations"])
        return seen

    assert all(np.array_equal(a, b) for a, b in zip(play(5), play(5), strict=True))
    assert play(5)[0].shape == (4, 374)
    with pytest.raises(ValueError, match="unknown env config key"):
        make_vector_env({"num_envs": 2, "reward_scal": 1})
    with pytest.raises(ValueError, match="num_envs must be an integer >= 1"):
        make_vector_env({"num_envs": 0})
    with pytest.raises(TypeError, match="knock_limt"):  # an unknown keyword, as Python names one
        make_vector_env({"num_envs": 2, "rules": {"knock_limt": 5}})
    env = make_vector_env({"num_envs": 2, "features": "plain", "reward_scale": 1.0})
    env.reset(seed=0)
    with pytest.raises(ValueError, match="107"):
        env.step([0, 107])
