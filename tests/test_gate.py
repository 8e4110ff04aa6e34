"""The knock gate: its inputs are the player's own view, its player is the heuristic elsewhere,
its labels and model file, and the training command on a tiny config."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pytest

from gin3_env.engine.actions import DISCARD_BASE, KNOCK_BASE
from gin3_env.kernels import gate_kernels as gk
from gin3_env.kernels import hand_kernels as hk
from gin3_env.kernels.heuristic_params import HeuristicConfig, heuristic_params
from gin3_env.policies import load_policy
from gin3_env.policies.gated import GatedPolicy, KnockGate, load_gate
from gin3_env.policies.model_fields import MissingModelFileError, ModelFileError
from gin3_env.training.gate.labels import LabelRun, _decks, label_chunk, run_labels
from gin3_env.training.gate.train import GateConfig, train_gate
from gin3_env.vector import HeuristicBatch, VectorHands

F = gk.NUM_GATE_FEATURES


def linear_gate(threshold: float, weights: np.ndarray | None = None) -> KnockGate:
    w = np.zeros(F) if weights is None else weights
    return KnockGate(mean=np.zeros(F), scale=np.ones(F), W1=np.zeros((0, F)), b1=np.zeros(0), w2=w, b2=0.0,
                     threshold=threshold)


def knock_rows(n_deals: int, seed: int) -> tuple[VectorHands, list[int]]:
    """Hands played by the heuristic up to the first decision where it would knock (rows at one)."""
    hands = VectorHands(n_deals)
    hands.reset(decks=_decks(seed, 0, n_deals))
    heur = HeuristicBatch()
    at = np.zeros(n_deals, dtype=bool)
    for _ in range(400):
        live = np.flatnonzero((hands.phase != hk.OVER) & ~at)
        if not len(live):
            break
        acts = heur.act(hands.observe_rows(live), hands.mask_view[live])
        knock = acts >= KNOCK_BASE
        at[live[knock]] = True
        go = live[~knock]
        if len(go):
            hands.apply(go, acts[~knock])
    return hands, [int(i) for i in np.flatnonzero(at)]


def test_the_gate_reads_only_the_observation_and_the_mask() -> None:
    for fn in (gk.gate_features, gk.gated_act_row, gk.hold_action):
        names = list(inspect.signature(fn.py_func).parameters)
        assert names[:3] == ["obs", "mask", "k"], names
        assert not {"S", "M", "deck", "pile", "hands"} & set(names)


def test_the_label_runs_features_are_those_of_the_players_own_view_and_ignore_hidden_cards() -> None:
    seed, n = 11, 40
    labels = label_chunk(LabelRun(seed=seed, deals=n, chunk=n, shuffles=4), 0, None)
    hands, rows = knock_rows(n, seed)
    assert rows and set(rows) <= set(labels["deal"].tolist())
    fp, ip = heuristic_params(HeuristicConfig())
    obs = hands.observe_rows(np.array(rows))
    mask = np.ascontiguousarray(hands.mask_view[rows])
    feats = np.zeros((len(rows), F))
    gk.features_rows(obs, mask, fp, ip, feats)
    first = {int(d): labels["feats"][np.flatnonzero(labels["deal"] == d)[0]] for d in rows}
    np.testing.assert_allclose(feats, np.array([first[d] for d in rows]))
    # swap one of the opponent's hidden cards with a stock card: the player's features and choice stay
    gate = GatedPolicy(linear_gate(-1.0, np.eye(F)[gk.GATE_FEATURES.index("gin_outs")]))
    before = gate.act_batch(obs, mask)
    for r in rows:
        p = int(hands.players_view[r])
        opp = int(hands._M[r, 1 - p]) & ~int(hands._M[r, hk.KNOWN0 + 1 - p])
        pos = int(hands._S[r, hk.POS])
        if not opp:
            continue
        c_opp = (opp & -opp).bit_length() - 1
        j = pos + 1
        c_stock = int(hands._deck[r, j])
        hands._M[r, 1 - p] = (opp | int(hands._M[r, hk.KNOWN0 + 1 - p])) & ~(1 << c_opp) | (1 << c_stock)
        hands._deck[r, j] = c_opp
    obs2 = hands.observe_rows(np.array(rows))
    np.testing.assert_array_equal(obs, obs2)
    feats2 = np.zeros_like(feats)
    gk.features_rows(obs2, mask, fp, ip, feats2)
    np.testing.assert_array_equal(feats, feats2)
    np.testing.assert_array_equal(before, gate.act_batch(obs2, mask))


def test_a_gate_that_never_holds_is_the_heuristic_and_one_that_always_holds_plays_its_plain_discard() -> None:
    hands, rows = knock_rows(60, 5)
    obs, mask = hands.observe_rows(np.array(rows)), np.ascontiguousarray(hands.mask_view[rows])
    heur = HeuristicBatch().act(obs, mask)
    assert (heur >= KNOCK_BASE).all()
    np.testing.assert_array_equal(GatedPolicy(linear_gate(1e9)).act_batch(obs, mask), heur)
    held = GatedPolicy(linear_gate(-1e9)).act_batch(obs, mask)
    plain = mask.copy()
    plain[:, KNOCK_BASE:] = 0
    expect = HeuristicBatch().act(obs, plain)
    gin = obs[:, hk.DEADWOOD_INDEX] == 0
    np.testing.assert_array_equal(held[~gin], expect[~gin])  # gin is always knocked
    np.testing.assert_array_equal(held[gin], heur[gin])
    assert ((held[~gin] >= DISCARD_BASE) & (held[~gin] < KNOCK_BASE)).all()
    assert mask[np.arange(len(rows)), held].all()


def test_labels_value_the_knock_by_its_showdown_and_repeat_with_the_seed() -> None:
    run = LabelRun(seed=3, deals=30, chunk=30, shuffles=6)
    a, b = label_chunk(run, 0, None), label_chunk(run, 0, None)
    for key in ("feats", "D", "hold_v", "knock_v"):
        np.testing.assert_array_equal(a[key], b[key])
    gin = a["feats"][:, 0] == 0
    assert (a["knock_v"][gin] >= 25).all()  # a gin scores the bonus at least
    np.testing.assert_allclose(a["D"], a["hold_v"] - a["knock_v"])
    assert (a["hold_se"] > 0).any()


def test_the_gate_file_round_trips_and_every_bad_file_is_one_clear_error(tmp_path: Path) -> None:
    gate = linear_gate(0.5, np.arange(F, dtype=float))
    path = tmp_path / "g.json"
    gate.save(path)
    back = load_gate(path)
    np.testing.assert_array_equal(back.w2, gate.w2)
    assert back.threshold == 0.5 and back.kind == "ridge"
    with pytest.raises(MissingModelFileError):
        load_gate(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ModelFileError, match="not a JSON knock gate"):
        load_gate(bad)
    data = json.loads(path.read_text())
    for change, match in (({"format": "x"}, "not a knock gate"), ({"features": ["a"]}, "other features"),
                          ({"w2": [1.0]}, "w2 must have"), ({"threshold": "high"}, "threshold")):
        bad.write_text(json.dumps({**data, **change}))
        with pytest.raises(ModelFileError, match=match):
            load_gate(bad)


def test_the_shipped_trained_player_loads_and_plays_legal_moves() -> None:
    from gin3_env.evaluation import evaluate_hands

    policy = load_policy("trained")
    assert isinstance(policy, GatedPolicy)
    report = evaluate_hands(policy, load_policy("heuristic"), 60, seed=1, batched=True)
    assert report.n_deals == 60
    hands, rows = knock_rows(30, 9)
    obs, mask = hands.observe_rows(np.array(rows)), hands.mask_view[rows]
    for o, m in zip(obs, mask, strict=True):
        assert m[policy.act({"observation": o, "action_mask": m})] == 1


def test_the_training_command_rebuilds_a_model_file_and_resumes(tmp_path: Path) -> None:
    cfg = GateConfig(seed=4, deals=120, round_deals=60, chunk=60, shuffles=4, rounds=1, folds=2, epochs=1, hidden=4)
    said: list[str] = []
    path = train_gate(cfg, tmp_path / "run", progress=said.append)
    gate = load_gate(path)
    assert gate.provenance["config"]["deals"] == 120 and len(gate.provenance["rounds"]) == 2
    assert any("round 1: labelling" in s for s in said)
    assert sorted(p.name for p in (tmp_path / "run" / "labels_r0").iterdir()) == ["labels_00000.npz",
                                                                                 "labels_00001.npz"]
    said.clear()
    again = train_gate(cfg, tmp_path / "run", progress=said.append)
    assert any("already fitted" in s for s in said) and load_gate(again).threshold == gate.threshold
    with pytest.raises(ValueError, match="shuffles=4, this run has 5"):
        run_labels(tmp_path / "run" / "labels_r0", LabelRun(seed=4, deals=120, chunk=60, shuffles=5))


def test_the_labels_benchmark_reports_decisions_per_second() -> None:
    from gin3_env.benchmarks import labels

    report = labels.run(quick=True)
    assert report["decisions"] > 50 and report["decisions_per_s"] > 0
    assert "labelled decisions/s" in labels.format_report(report)


def test_the_training_command_refuses_a_bad_config_value_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from gin3_env.training.gate.train import main

    with pytest.raises(SystemExit) as stop:
        main(["--out", "unused", "--shuffles", "1"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "shuffles must be at least 2" in err[-1]
