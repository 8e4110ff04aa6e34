"""The network player `net`: its inputs come from the observation, it plays legal moves alone, follows the
rules' knock limit, and its model file is data checked on load."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from gin3_env.engine.actions import DISCARD_BASE, KNOCK_BASE
from gin3_env.engine.rules import Rules
from gin3_env.kernels.hands import VectorHands
from gin3_env.kernels.net_features import ACTION_FEATURES, STATE_FEATURES, net_inputs
from gin3_env.policies import load_policy
from gin3_env.policies.model_fields import ModelFileError
from gin3_env.policies.net import STATE_SIZE, ActionNet, NetPolicy, load_net
from gin3_env.vector import NetBatch, as_batch


def tiny_net(seed: int = 0, hidden: tuple[int, int] = (8, 4)) -> ActionNet:
    rng = np.random.default_rng(seed)
    fa = len(ACTION_FEATURES)
    h1, h2 = hidden
    return ActionNet(np.zeros(STATE_SIZE), np.ones(STATE_SIZE), np.zeros(fa), np.ones(fa),
                     rng.normal(size=(h1, STATE_SIZE)) * 0.05, rng.normal(size=(h1, fa)), np.zeros(h1),
                     rng.normal(size=(h2, h1)), np.zeros(h2), rng.normal(size=h2), np.float32(0.0))


def states(n: int = 64, steps: int = 12, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    hands = VectorHands(n, seed=seed)
    heuristic = as_batch("heuristic")
    obs, masks = [], []
    for _ in range(steps):
        o, m = hands.observe(), hands.action_mask.astype(np.int8)
        obs.append(o.copy())
        masks.append(m.copy())
        hands.step(heuristic.act(o, m))
    return np.concatenate(obs), np.concatenate(masks)


def test_inputs_describe_each_legal_action() -> None:
    obs, masks = states()
    state, acts, start, legal = net_inputs(obs, masks, 10)
    assert state.shape == (len(obs), len(STATE_FEATURES)) and acts.shape == (int(masks.sum()), len(ACTION_FEATURES))
    rows, cols = np.nonzero(masks)
    assert (legal == cols).all() and (np.repeat(np.arange(len(obs)), np.diff(start)) == rows).all()
    kind = acts[:, :5].argmax(axis=1)
    assert (acts[:, :5].sum(axis=1) == 1).all()
    assert ((kind == 3) == ((legal >= DISCARD_BASE) & (legal < KNOCK_BASE))).all()
    dw = ACTION_FEATURES.index("deadwood_after")
    knockable = ACTION_FEATURES.index("knockable")
    knocks = legal >= KNOCK_BASE
    assert knocks.any() and (acts[knocks, dw] <= 10).all() and (acts[knocks, knockable] == 1).all()
    # a knock and the discard of the same card leave the same deadwood
    for j in np.flatnonzero(knocks)[:20]:
        twin = np.flatnonzero((rows == rows[j]) & (legal == legal[j] - (KNOCK_BASE - DISCARD_BASE)))
        assert len(twin) == 1 and acts[twin[0], dw] == acts[j, dw]
    # the knock limit is an input: a lower one makes fewer discards knockable
    _, acts5, _, _ = net_inputs(obs, masks, 5)
    assert acts5[:, knockable].sum() <= acts[:, knockable].sum()


def test_the_network_plays_legal_moves_batched_and_alone() -> None:
    obs, masks = states()
    policy = NetPolicy(tiny_net())
    batch = policy.act_batch(obs, masks)
    assert masks[np.arange(len(obs)), batch].all()
    one = [policy.act({"observation": obs[k], "action_mask": masks[k]}) for k in range(0, len(obs), 37)]
    assert one == list(batch[::37])
    assert isinstance(as_batch(policy), NetBatch)


def test_the_rules_knock_limit_reaches_the_player(tmp_path: Path) -> None:
    path = tmp_path / "n.npz"
    tiny_net().save(path)
    assert load_policy(str(path), rules=Rules(knock_limit=4)).knock_limit == 4
    assert load_policy(str(path)).knock_limit == Rules().knock_limit
    with pytest.raises(ValueError, match="rules must be a Rules"):
        NetPolicy(tiny_net(), rules=-1)  # type: ignore[arg-type]


def test_a_model_file_round_trips(tmp_path: Path) -> None:
    net = tiny_net()
    net.provenance = {"made_by": "test"}
    path = tmp_path / "n.npz"
    net.save(path)
    back = load_net(path)
    assert back.provenance == {"made_by": "test"} and back.hidden == (8, 4)
    obs, masks = states(16, 4)
    assert (NetPolicy(back).act_batch(obs, masks) == NetPolicy(net).act_batch(obs, masks)).all()


def _members(net: ActionNet) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(net.to_bytes()), allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def _write(path: Path, members: dict[str, np.ndarray]) -> Path:
    buffer = io.BytesIO()
    np.savez(buffer, **members)
    path.write_bytes(buffer.getvalue())
    return path


@pytest.mark.parametrize("damage, message", [
    (lambda m: m.update(W2=np.full_like(m["W2"], np.nan)), "not finite"),
    (lambda m: m.update(Wa=m["Wa"][:, :3]), "Wa has shape"),
    (lambda m: m.pop("b3"), "lacks b3"),
    (lambda m: m.update(extra=np.zeros(2)), "unknown member"),
    (lambda m: m.update(meta=np.array(json.dumps({"format": "other"}))), "format 'other'"),
    (lambda m: m.update(state_scale=np.zeros_like(m["state_scale"])), "must be > 0"),
])
def test_a_bad_model_file_is_refused_in_one_line(tmp_path: Path, damage: object, message: str) -> None:
    members = _members(tiny_net())
    damage(members)  # type: ignore[operator]
    path = _write(tmp_path / "bad.npz", members)
    with pytest.raises(ModelFileError, match=message) as info:
        load_net(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_files_that_are_not_networks_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="does not exist"):
        load_net(tmp_path / "none.npz")
    (tmp_path / "text.npz").write_text("hello")
    with pytest.raises(ModelFileError, match=r"not an \.npz"):
        load_net(tmp_path / "text.npz")
    with zipfile.ZipFile(tmp_path / "pickle.npz", "w") as zf:  # an object array would need a pickle
        buffer = io.BytesIO()
        np.save(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)
        zf.writestr("meta.npy", buffer.getvalue())
    with pytest.raises(ModelFileError):
        load_net(tmp_path / "pickle.npz")


def test_the_shipped_net_loads_and_plays() -> None:
    policy = load_policy("net")
    assert isinstance(policy, NetPolicy) and policy.name == "net"
    obs, masks = states(8, 4)
    assert masks[np.arange(len(obs)), policy.act_batch(obs, masks)].all()


def test_bench_reports_the_players_decisions_per_second() -> None:
    from gin3_env.benchmarks import players

    report = players.run(quick=True)
    assert report["rows"] >= 4096 and set(report) == {"rows", *players.BENCHED_PLAYERS}
    assert all(report[name]["decisions_per_s"] > 0 for name in players.BENCHED_PLAYERS)
    assert "net:" in players.format_report(report)
