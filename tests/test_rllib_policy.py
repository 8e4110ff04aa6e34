"""The RLlib backend's parts that need no Ray: the torch-only player of ``rllib:PATH``, the config,
and the bad inputs of ``gin3 train --backend rllib`` that are refused before Ray starts.

The checkpoints here are written by hand in the layout RLlib uses (``tests/test_rllib.py``, marked
``rllib``, trains real ones in a venv with Ray).
"""

from __future__ import annotations

import json
import os
import pickle
import socket
import subprocess
from collections import OrderedDict
from pathlib import Path

import forkrun
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gin3_env.cli import split_backend  # noqa: E402
from gin3_env.evaluation import evaluate_hands, evaluate_matches  # noqa: E402
from gin3_env.observation.layout import MATCH_OBS_SIZE, OBS_SIZE, ROLE_OFFSET  # noqa: E402
from gin3_env.policies import HeuristicPolicy, load_policy  # noqa: E402
from gin3_env.policies.network import MaskedActorCritic  # noqa: E402
from gin3_env.policies.rllib_net import input_size, model_input  # noqa: E402
from gin3_env.policies.rllib_policy import (  # noqa: E402
    FORMAT,
    FORMAT_VERSION,
    MODULE_DIR,
    MODULE_STATE,
    SIDECAR,
    RLlibPolicy,
    hand_as_match,
    load_rllib_policy,
)
from gin3_training.ppo.rllib.config import RLlibConfig, load_config  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def write_checkpoint(
    folder: Path,
    env: str = "hand",
    features: str = "augmented",
    card_head: bool = True,
    hidden: tuple[int, ...] = (32,),
    play_modules: dict[str, str] | None = None,
    seed: int = 0,
) -> dict[str, MaskedActorCritic]:
    """A checkpoint folder as ``gin3 train --backend rllib`` writes it (weights and sidecar)."""
    play_modules = play_modules or {"any": "shared"}
    nets = {}
    for i, module in enumerate(sorted(set(play_modules.values()))):
        torch.manual_seed(seed + i)
        net = MaskedActorCritic(input_size(env, features), hidden, card_head)
        for p in net.parameters():  # not near-uniform: the modules must differ visibly
            torch.nn.init.normal_(p, std=0.5)
        state = OrderedDict((f"net.{k}", v.detach().numpy().copy()) for k, v in net.state_dict().items())
        file = folder / MODULE_DIR / module / MODULE_STATE
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(pickle.dumps(state, protocol=5))
        nets[module] = net.eval()
    meta = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "name": "handmade",
        "env": env,
        "features": features,
        "hidden": list(hidden),
        "card_head": card_head,
        "play_modules": play_modules,
    }
    (folder / SIDECAR).write_text(json.dumps(meta))
    (folder / "rllib_checkpoint.json").write_text("{}")
    return nets


def test_checkpoint_plays_hands_and_matches_legally(tmp_path: Path) -> None:
    write_checkpoint(tmp_path)
    policy = load_policy(f"rllib:{tmp_path}")
    assert isinstance(policy, RLlibPolicy)
    # the envs raise on an illegal action, and act() checks the mask as well
    report = evaluate_hands(policy, HeuristicPolicy(), n_hands=4, seed=3)
    assert report.n_deals == 4
    matches = evaluate_matches(policy, HeuristicPolicy(), n_matches=1, seed=5, max_hands=3)
    assert matches.n_matches == 1


def test_masked_logits_never_pick_an_illegal_action(tmp_path: Path) -> None:
    nets = write_checkpoint(tmp_path, features="plain", card_head=False)
    policy = load_rllib_policy(tmp_path, deterministic=False, seed=0)
    rng = np.random.default_rng(0)
    vector = np.zeros(OBS_SIZE, dtype=np.float32)
    vector[ROLE_OFFSET] = 1.0
    for _ in range(50):
        mask = np.zeros(107, dtype=np.int8)
        mask[rng.choice(107, size=int(rng.integers(1, 4)), replace=False)] = 1
        action = policy.act({"observation": vector, "action_mask": mask})
        assert mask[action] == 1
    # deterministic play is the argmax of the network's masked logits
    policy = load_rllib_policy(tmp_path)
    mask = np.ones(107, dtype=np.int8)
    with torch.no_grad():
        logits = nets["shared"].masked_logits(torch.from_numpy(vector)[None], torch.ones(1, 107))[0]
    assert policy.act({"observation": vector, "action_mask": mask}) == int(torch.argmax(logits))


def test_per_seat_checkpoint_picks_the_module_of_the_role(tmp_path: Path) -> None:
    write_checkpoint(tmp_path, play_modules={"team": "team", "box": "box"})
    policy = load_rllib_policy(tmp_path)
    team = np.zeros(OBS_SIZE, dtype=np.float32)
    team[ROLE_OFFSET] = 1.0
    box = np.zeros(OBS_SIZE, dtype=np.float32)
    box[ROLE_OFFSET + 1] = 1.0
    assert policy.module_for(team) is policy.nets["team"]
    assert policy.module_for(box) is policy.nets["box"]


def test_match_checkpoint_plays_a_lone_hand_as_a_match_start(tmp_path: Path) -> None:
    write_checkpoint(tmp_path, env="match")
    policy = load_rllib_policy(tmp_path)
    assert policy.base_size == MATCH_OBS_SIZE
    report = evaluate_hands(policy, HeuristicPolicy(), n_hands=2, seed=1)
    assert report.n_deals == 2
    box = np.zeros(OBS_SIZE, dtype=np.float32)
    box[ROLE_OFFSET + 1] = 1.0
    extended = hand_as_match(box)
    assert extended.shape == (MATCH_OBS_SIZE,)
    assert list(extended[OBS_SIZE:]) == [1, 0, 0, 0, 0, 0]  # box; scores 0
    assert model_input(extended, MATCH_OBS_SIZE, "augmented").shape == (input_size("match", "augmented"),)


def test_missing_and_foreign_checkpoints_are_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not found"):
        load_policy(f"rllib:{tmp_path / 'nope'}")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is a file"):
        load_policy(f"rllib:{tmp_path / 'file'}")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="not written by `gin3 train --backend rllib`"):
        load_policy(f"rllib:{empty}")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "rllib_checkpoint.json").write_text("{}")
    with pytest.raises(ValueError, match="is an RLlib checkpoint not written by"):
        load_policy(f"rllib:{foreign}")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / SIDECAR).write_text(json.dumps({"format": "something else"}))
    with pytest.raises(ValueError, match="does not describe a gin3 RLlib checkpoint"):
        load_policy(f"rllib:{bad}")


class _Payload:
    def __reduce__(self):  # what a tampered weights file could hold
        return (os.system, ("touch PWNED",))


def test_weights_file_holding_code_is_refused_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_checkpoint(tmp_path)
    file = tmp_path / MODULE_DIR / "shared" / MODULE_STATE
    file.write_bytes(pickle.dumps(OrderedDict({"net.x": _Payload()})))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"unexpected object .*system"):
        load_rllib_policy(tmp_path)
    assert not (tmp_path / "PWNED").exists()


def test_weights_that_do_not_fit_the_sidecar_are_refused(tmp_path: Path) -> None:
    write_checkpoint(tmp_path, hidden=(32,))
    meta = json.loads((tmp_path / SIDECAR).read_text())
    meta["hidden"] = [64]
    (tmp_path / SIDECAR).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="does not fit"):
        load_rllib_policy(tmp_path)
    (tmp_path / MODULE_DIR / "shared" / MODULE_STATE).unlink()
    with pytest.raises(ValueError, match="lacks the weights of module 'shared'"):
        load_rllib_policy(tmp_path)


# ------------------------------------------------------------------ config and command line
def test_rllib_config_checks_keys_and_values() -> None:
    assert load_config("quick").policies == "shared"
    for name in ("selfplay", "per_seat", "vs_heuristic", "match"):
        load_config(name)
    with pytest.raises(ValueError, match=r"unknown config key\(s\) \['bogus'\]"):
        load_config("quick", {"bogus": 1})
    with pytest.raises(ValueError, match="per_seat is for env: hand"):
        RLlibConfig(env="match", policies="per_seat")
    with pytest.raises(ValueError, match="card_head"):
        RLlibConfig(features="plain", card_head=True)
    with pytest.raises(ValueError, match="knock_limt"):
        RLlibConfig(rules={"knock_limt": 5})
    with pytest.raises(ValueError, match="'num_env_runners' must be >= 0"):
        RLlibConfig(num_env_runners=-1)


def test_split_backend() -> None:
    assert split_backend(["--backend", "rllib", "--seed", "3"]) == ("rllib", ["--seed", "3"])
    assert split_backend(["--seed", "3", "--backend=rllib"]) == ("rllib", ["--seed", "3"])
    assert split_backend(["--seed", "3"]) == ("sb3", ["--seed", "3"])


def _gin3(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return forkrun.run(args, cwd=cwd, env=env, timeout=120)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _one_error_line(result: subprocess.CompletedProcess[str], needle: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], result.stderr


def test_train_rllib_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    base = ("train", "--backend", "rllib", "--out-dir", str(out), "--run-name", "R")
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("total_timesteps: 100\nlearning_rate_typo: 0.1\n")
    _one_error_line(
        _gin3(*base, "--config", str(bad_yaml), cwd=tmp_path), "unknown config key(s) ['learning_rate_typo']"
    )
    _one_error_line(
        _gin3(*base, "--address", f"127.0.0.1:{_free_port()}", cwd=tmp_path), "cannot reach a Ray cluster at 127.0.0.1:"
    )
    _one_error_line(_gin3(*base, "--resume", cwd=tmp_path), "nothing to resume")
    assert not out.exists()
    _one_error_line(_gin3("train", "--backend", "tensorflow", cwd=tmp_path), "unknown --backend 'tensorflow'")
    foreign = out / "R" / "checkpoint"
    foreign.mkdir(parents=True)
    (foreign / "rllib_checkpoint.json").write_text("{}")
    _one_error_line(_gin3(*base, "--resume", cwd=tmp_path), "is an RLlib checkpoint not written by")
    _one_error_line(_gin3(*base, cwd=tmp_path), "already holds a run")
    assert sorted(p.name for p in (out / "R").iterdir()) == ["checkpoint"]
    assert sorted(p.name for p in foreign.iterdir()) == ["rllib_checkpoint.json"]


def test_evaluate_refuses_a_missing_rllib_checkpoint(tmp_path: Path) -> None:
    result = _gin3("evaluate", f"rllib:{tmp_path / 'none'}", "heuristic", "--hands", "2", cwd=tmp_path)
    assert result.returncode == 2
    assert "RLlib checkpoint not found" in result.stderr
