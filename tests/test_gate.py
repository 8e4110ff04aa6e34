"""The gates: their inputs are the player's own view, their player is the heuristic elsewhere,
their labels and model file, and the training command on a tiny config."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import as_from_a_shell

from gin3_env.engine.actions import DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from gin3_env.kernels import decision_features as df
from gin3_env.kernels import decision_views as dv
from gin3_env.kernels import hand_kernels as hk
from gin3_env.kernels.decisions import (
    DISCARD_DECISION,
    DISCARD_FEATURES,
    DRAW_DECISION,
    DRAW_FEATURES,
    KNOCK_DECISION,
    KNOCK_FEATURES,
)
from gin3_env.kernels.gates import features_rows, gated_act_row, stack_gates
from gin3_env.kernels.heuristic_params import HeuristicConfig, heuristic_params
from gin3_env.policies import load_policy
from gin3_env.policies.gate_file import Gate, GatedModel, load_gated
from gin3_env.policies.gated import GatedPolicy
from gin3_env.policies.model_fields import MissingModelFileError, ModelFileError
from gin3_env.vector import HeuristicBatch, VectorHands
from gin3_training.gates.labels import LabelRun, LabelsStopped, _decks, label_chunk, run_labels
from gin3_training.gates.train import GateConfig, train_gate

GATE_MODEL = Path(__file__).parent.parent / "gin3_env" / "models" / "gated.json"

F = len(KNOCK_FEATURES)
FD = len(DRAW_FEATURES)
FX = len(DISCARD_FEATURES)


def linear(decision: str, threshold: float, weights: np.ndarray | None = None, **options: Any) -> Gate:
    """A ridge gate of ``decision`` scoring ``weights . x`` (zeros: every score 0)."""
    n = {"knock": F, "draw": FD, "discard": FX}[decision]
    w = np.zeros(n) if weights is None else weights
    return Gate(decision, np.zeros(n), np.ones(n), np.zeros((0, n)), np.zeros(0), w, 0.0, threshold, options)


def linear_gate(threshold: float, weights: np.ndarray | None = None) -> GatedModel:
    """The heuristic with a knock gate alone (see :func:`linear`)."""
    return GatedModel((linear("knock", threshold, weights),))


def rows_kernel(kind: int) -> Any:
    """``features_rows`` of ``kind`` with the usual knock limit, in the form the helpers below call."""
    return lambda obs, mask, fp, ip, out: features_rows(kind, obs, mask, fp, ip, 10, out)


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


def swap_hidden_with_stock(hands: VectorHands, rows: list[int], ahead: int) -> None:
    """Swap one of the opponent's hidden cards (of the player to act) with the stock card ``ahead``
    places from its top, in each row: nothing the player has seen changes."""
    for r in rows:
        p = int(hands.players_view[r])
        opp = int(hands._M[r, 1 - p]) & ~int(hands._M[r, hk.KNOWN0 + 1 - p])
        if not opp:
            continue
        c_opp = (opp & -opp).bit_length() - 1
        j = int(hands._S[r, hk.POS]) + ahead
        c_stock = int(hands._deck[r, j])
        hands._M[r, 1 - p] = int(hands._M[r, 1 - p]) & ~(1 << c_opp) | (1 << c_stock)
        hands._deck[r, j] = c_opp


def assert_blind_to_hidden_cards(hands: VectorHands, rows: list[int], ahead: int, feats: np.ndarray,
                                 features_rows: Any, policy: GatedPolicy) -> None:
    """Swap one of the opponent's hidden cards with a stock card: the player's observation, its
    features (``feats``, by ``features_rows``) and the policy's choice stay the same."""
    obs = hands.observe_rows(np.array(rows))
    mask = np.ascontiguousarray(hands.mask_view[rows])
    before = policy.act_batch(obs, mask)
    swap_hidden_with_stock(hands, rows, ahead)
    obs2 = hands.observe_rows(np.array(rows))
    np.testing.assert_array_equal(obs, obs2)
    feats2 = np.zeros_like(feats)
    features_rows(obs2, mask, *heuristic_params(HeuristicConfig()), feats2)
    np.testing.assert_array_equal(feats, feats2)
    np.testing.assert_array_equal(before, policy.act_batch(obs2, mask))


def test_the_gate_reads_only_the_observation_and_the_mask() -> None:
    for fn in (df.knock_features, gated_act_row, dv.hold_action, df.draw_features, df.discard_features,
               dv.discard_top):
        names = list(inspect.signature(fn.py_func).parameters)
        assert names[:3] == ["obs", "mask", "k"], names
        assert not {"S", "M", "deck", "pile", "hands"} & set(names)
    for fn in (df.features, df.alternatives):
        names = list(inspect.signature(fn.py_func).parameters)
        assert names[:4] == ["kind", "obs", "mask", "k"], names
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
    rows_kernel(KNOCK_DECISION)(obs, mask, fp, ip, feats)
    first = {int(d): labels["feats"][np.flatnonzero(labels["deal"] == d)[0]] for d in rows}
    np.testing.assert_allclose(feats, np.array([first[d] for d in rows]))
    gate = GatedPolicy(linear_gate(-1.0, np.eye(F)[KNOCK_FEATURES.index("gin_outs")]))
    assert_blind_to_hidden_cards(hands, rows, 1, feats, rows_kernel(KNOCK_DECISION), gate)


def test_a_gate_that_never_holds_is_the_heuristic_and_one_that_always_holds_plays_its_plain_discard() -> None:
    hands, rows = knock_rows(60, 5)
    obs, mask = hands.observe_rows(np.array(rows)), np.ascontiguousarray(hands.mask_view[rows])
    heur = HeuristicBatch().act(obs, mask)
    assert (heur >= KNOCK_BASE).all()
    np.testing.assert_array_equal(GatedPolicy(linear_gate(1e9)).act_batch(obs, mask), heur)
    held = GatedPolicy(linear_gate(-1e9)).act_batch(obs, mask)
    fp, ip = heuristic_params(HeuristicConfig())  # the kernel on its stacked argument: the same choice
    gates = stack_gates(linear_gate(-1e9).gates)
    flat = [gated_act_row(obs, mask, k, fp, ip, gates, 10) for k in range(len(rows))]
    np.testing.assert_array_equal(flat, held)
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
    model = linear_gate(0.5, np.arange(F, dtype=float))
    path = tmp_path / "g.json"
    model.save(path)
    back = load_gated(path)
    gate = back.gate("knock")
    assert gate is not None and json.loads(path.read_text())["format"] == "gin3-gates"
    np.testing.assert_array_equal(gate.w2, model.gates[0].w2)
    assert gate.threshold == 0.5 and gate.scorer == "ridge" and gate.options == {"min_deadwood": 1}
    with pytest.raises(MissingModelFileError):
        load_gated(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ModelFileError, match=f"model file {bad} is not a JSON gate file"):
        load_gated(bad)
    data = json.loads(path.read_text())
    g = data["gates"][0]
    for change, match in (({"format": "x"}, "is not a gated player's model"), ({"version": 2}, "has version 2"),
                          ({"gates": {}}, "gates must be a list"),
                          ({"gates": [{**g, "features": ["a"]}]}, "gate 1 was fitted on other features"),
                          ({"gates": [{**g, "decision": "meld"}]}, "gate 1 is of an unknown decision 'meld'"),
                          ({"gates": [g, g]}, "at most one gate per decision"),
                          ({"gates": [{**g, "options": {"only_take": True}}]}, "unknown option"),
                          ({"gates": [{**g, "w2": [1.0]}]}, "w2 must have"),
                          ({"gates": [{**g, "threshold": "high"}]}, "threshold")):
        bad.write_text(json.dumps({**data, **change}))
        with pytest.raises(ModelFileError, match=match) as info:
            load_gated(bad)
        assert str(info.value).startswith(f"model file {bad} ") and "\n" not in str(info.value)


def test_the_shipped_trained_player_loads_and_plays_legal_moves() -> None:
    from gin3_env.evaluation import evaluate_hands

    policy = load_policy("gated")
    draw = policy.model.gate("draw") if isinstance(policy, GatedPolicy) else None
    assert draw is not None and draw.options["only_take"] and policy.model.scorers.count("mlp") == 3
    report = evaluate_hands(policy, load_policy("heuristic"), 60, seed=1, batched=True)
    assert report.n_deals == 60
    hands, rows = knock_rows(30, 9)
    obs, mask = hands.observe_rows(np.array(rows)), hands.mask_view[rows]
    for o, m in zip(obs, mask, strict=True):
        assert m[policy.act({"observation": o, "action_mask": m})] == 1


@pytest.mark.pipelines
def test_the_training_command_rebuilds_a_model_file_and_resumes(tmp_path: Path) -> None:
    cfg = GateConfig(stages=[
        {"decision": "knock", "deals": 120, "seed": 4, "shuffles": 4, "chunk": 60},
        {"decision": "knock", "deals": 60, "seed": 5, "shuffles": 4, "chunk": 60},  # a round on the gated player
        {"decision": "draw", "deals": 40, "seed": 6, "shuffles": 2, "rate": 0.5, "chunk": 60},
        {"decision": "discard", "deals": 30, "seed": 7, "shuffles": 2, "rate": 0.5, "chunk": 60}],
        folds=2, epochs=1, hidden=4)
    said: list[str] = []
    path = train_gate(cfg, tmp_path / "run", progress=said.append)
    assert path.name == "gated.json"
    model = load_gated(path)
    assert [g.decision for g in model.gates] == ["knock", "draw", "discard"] and len(model.provenance["stages"]) == 4
    assert any("knock gate: labelling 60 deals x 4 shuffles (the gated player" in s for s in said)
    assert any("draw gate: labelling" in s for s in said) and any("discard gate: labelling" in s for s in said)
    for g in model.gates:
        assert g.provenance["labels"]["decision"] == g.decision
    knock = model.gate("knock")
    assert knock is not None
    np.testing.assert_array_equal(knock.w2, load_gated(tmp_path / "run" / "gated_2_knock.json").gates[0].w2)
    assert sorted(p.name for p in (tmp_path / "run" / "labels_1_knock").iterdir()) == ["labels_00000.npz",
                                                                                     "labels_00001.npz"]
    said.clear()
    again = load_gated(train_gate(cfg, tmp_path / "run", progress=said.append))
    assert any("already fitted" in s for s in said)
    assert [g.threshold for g in again.gates] == [g.threshold for g in model.gates]
    with pytest.raises(ValueError, match="shuffles=4, this run has 5"):
        run_labels(tmp_path / "run" / "labels_1_knock", LabelRun(seed=4, deals=120, chunk=60, shuffles=5))


@pytest.mark.pipelines
def test_the_labels_benchmark_reports_decisions_per_second() -> None:
    from gin3_training.benchmarks import labels

    report = labels.run(quick=True)
    assert report["decisions"] > 10 and report["decisions_per_s"] > 0
    assert report["draw"]["decisions"] > 5 and report["draw"]["decisions_per_s"] > 0
    every = report["every_action"]
    assert every["gated"]["decisions"] == 4 and every["gated"]["legal_per_decision"] >= 2
    assert every["gated, net's best 3"]["decisions_per_cpu_s"] > 0
    text = labels.format_report(report)
    assert "labelled decisions/s" in text and "draw labels:" in text and "every-action labels of net's discards" in text


def test_the_training_command_refuses_a_bad_config_value_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from gin3_training.gates.train import main

    with pytest.raises(SystemExit) as stop:
        main(["--out", "unused", "--stages", "[{decision: knock, deals: 10, seed: 0, shuffles: 1}]"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "stage shuffles must be an int >= 2" in err[-1]
    with pytest.raises(SystemExit):
        main(["--out", "unused", "--stages", "[{decision: meld, deals: 10, seed: 0}]"])
    assert "unknown decision 'meld'" in capsys.readouterr().err.strip().splitlines()[-1]


def draw_gate(threshold: float, weights: np.ndarray | None = None, only_take: bool = False) -> Gate:
    return linear("draw", threshold, weights, only_take=only_take)


def with_draw(draw: Gate | None) -> GatedModel:
    """The shipped knock gate with ``draw`` in place of its own draw gate (None: the knock gate alone)."""
    m = load_gated(GATE_MODEL)
    return GatedModel(tuple(g for g in (m.gate("knock"), draw) if g is not None), m.heuristic)


def rows_at(n_deals: int, seed: int, stop: Any) -> tuple[VectorHands, list[int]]:
    """Hands played by the trained player until ``stop(hands, live, acts)`` (a bool per live row, ``acts``
    the player's moves there) holds; the rows where it held, left before that move."""
    hands = VectorHands(n_deals)
    hands.reset(decks=_decks(seed, 0, n_deals))
    trained = load_policy("gated")
    at = np.zeros(n_deals, dtype=bool)
    for _ in range(400):
        live = np.flatnonzero((hands.phase != hk.OVER) & ~at)
        if not len(live):
            break
        acts = trained.act_batch(hands.observe_rows(live), hands.mask_view[live])
        here = stop(hands, live, acts)
        at[live[here]] = True
        go = live[~here]
        if len(go):
            hands.apply(go, acts[~here])
    return hands, [int(i) for i in np.flatnonzero(at)]


def draw_rows(n_deals: int, seed: int, turns: int) -> tuple[VectorHands, list[int]]:
    """Hands played by the trained player to the first take-or-draw choice after ``turns`` turns."""
    return rows_at(n_deals, seed, lambda hands, live, acts: (
        (hands.phase[live] == hk.DRAW) & (hands.mask_view[live][:, TAKE_DISCARD] == 1)
        & (hands._S[live, hk.TURNS] >= turns)))


def test_the_draw_gate_reads_only_the_observation_and_the_mask() -> None:
    for fn in (df.draw_features, dv.draw_alternative):
        names = list(inspect.signature(fn.py_func).parameters)
        assert names[:2] in (["obs", "mask"], ["mask", "k"]), names
        assert not {"S", "M", "deck", "pile", "hands"} & set(names)


def labels_match_the_view_and_ignore_hidden_cards(decision: str, seed: int, n: int, rows_of: Any, width: int,
                                                   features_rows: Any, policy: GatedPolicy) -> None:
    """The label run of ``decision`` met the decisions ``rows_of(n, seed, 2)`` reaches and saw there the
    features ``features_rows`` computes from the player's observation; those features and ``policy``'s
    choice ignore hidden cards."""
    labels = label_chunk(LabelRun(seed=seed, deals=n, chunk=n, shuffles=2, decision=decision), 0,
                         load_gated(GATE_MODEL))
    hands, rows = rows_of(n, seed, 2)
    assert len(rows) > 10
    fp, ip = heuristic_params(HeuristicConfig())
    obs = hands.observe_rows(np.array(rows))
    mask = np.ascontiguousarray(hands.mask_view[rows])
    feats = np.zeros((len(rows), width))
    features_rows(obs, mask, fp, ip, feats)
    assert np.isfinite(feats).all()
    for r, x in zip(rows, feats, strict=True):  # the label run met the same decision and saw the same features
        assert (labels["feats"][labels["deal"] == r] == x).all(axis=1).any()
    assert_blind_to_hidden_cards(hands, rows, 0, feats, features_rows, policy)


def test_the_draw_labels_features_are_those_of_the_players_own_view_and_ignore_hidden_cards() -> None:
    policy = GatedPolicy(with_draw(draw_gate(-1.0, np.eye(FD)[DRAW_FEATURES.index("draw_mean_deadwood")])))
    labels_match_the_view_and_ignore_hidden_cards("draw", 12, 30, draw_rows, FD, rows_kernel(DRAW_DECISION), policy)


def test_a_draw_gate_that_never_switches_is_the_knock_gate_alone_and_one_that_always_does_plays_the_other() -> None:
    hands = VectorHands(40)  # the opening offer, then a turn's draw
    hands.reset(decks=_decks(6, 0, 40))
    offer_obs, offer_mask = hands.observe_rows(np.arange(40)), np.ascontiguousarray(hands.mask_view[:40])
    hands, rows = draw_rows(40, 6, 3)
    obs = np.concatenate([offer_obs, hands.observe_rows(np.array(rows))])
    mask = np.concatenate([offer_mask, np.ascontiguousarray(hands.mask_view[rows])])
    trained = GatedPolicy(with_draw(None)).act_batch(obs, mask)  # the heuristic's choices here
    assert set(trained.tolist()) <= {TAKE_DISCARD, PASS, DRAW_STOCK} and TAKE_DISCARD in trained
    np.testing.assert_array_equal(HeuristicBatch().act(obs, mask), trained)
    np.testing.assert_array_equal(GatedPolicy(with_draw(draw_gate(1e9))).act_batch(obs, mask), trained)
    other = GatedPolicy(with_draw(draw_gate(-1e9))).act_batch(obs, mask)
    offer = mask[:, PASS] == 1
    np.testing.assert_array_equal(other[trained == TAKE_DISCARD],
                                  np.where(offer, PASS, DRAW_STOCK)[trained == TAKE_DISCARD])
    assert (other[trained != TAKE_DISCARD] == TAKE_DISCARD).all()
    assert mask[np.arange(len(obs)), other].all()
    takes_more = GatedPolicy(with_draw(draw_gate(-1e9, only_take=True))).act_batch(obs, mask)  # never declines
    assert (takes_more == TAKE_DISCARD).all()


def test_draw_labels_value_both_moves_on_the_same_shuffles_and_repeat_with_the_seed() -> None:
    run = LabelRun(seed=3, deals=12, chunk=12, shuffles=4, decision="draw", rate=0.5)
    gate = load_gated(GATE_MODEL)
    a, b = label_chunk(run, 0, gate), label_chunk(run, 0, gate)
    for key in ("feats", "D", "alt_v", "base_v"):
        np.testing.assert_array_equal(a[key], b[key])
    np.testing.assert_allclose(a["D"], a["alt_v"] - a["base_v"])
    assert a["feats"].shape[1] == FD and len(a["D"]) > 12
    assert set(np.unique(a["feats"][:, 0])) <= {0.0, 1.0} and (a["alt_se"] > 0).any()
    with pytest.raises(ValueError, match="decision must be one of"):
        LabelRun(decision="meld")


def test_a_file_of_the_format_before_is_refused_in_one_clear_line(tmp_path: Path) -> None:
    """The knock gate's file of the format before ("gin3-knock-gate") is no longer read: one error naming the
    format read and the format expected (the shipped gated.json was converted from it)."""
    old = tmp_path / "knock_gate.json"
    old.write_text(json.dumps({"format": "gin3-knock-gate", "version": 1, "features": [], "threshold": 0.0}))
    with pytest.raises(ModelFileError, match="format 'gin3-knock-gate', expected 'gin3-gates'"):
        load_gated(old)


def discard_gate(threshold: float, weights: np.ndarray | None = None) -> Gate:
    return linear("discard", threshold, weights)


def with_discard(disc: Gate | None) -> GatedModel:
    """The shipped player's knock and draw gates with ``disc`` as its discard gate (``None``: none)."""
    m = load_gated(GATE_MODEL)
    return GatedModel(tuple(g for g in (m.gate("knock"), m.gate("draw"), disc) if g is not None), m.heuristic)


def discard_rows(n_deals: int, seed: int, turns: int) -> tuple[VectorHands, list[int]]:
    """Hands played by the trained player to its first plain discard after ``turns`` turns."""
    return rows_at(n_deals, seed, lambda hands, live, acts: (
        (hands.phase[live] == hk.DISCARD) & (acts >= DISCARD_BASE) & (acts < KNOCK_BASE)
        & (hands._S[live, hk.TURNS] >= turns)))


def test_the_discard_gate_reads_only_the_observation_and_the_mask() -> None:
    for fn in (df.discard_features, dv.discard_top):
        names = list(inspect.signature(fn.py_func).parameters)
        assert names[:3] == ["obs", "mask", "k"], names
        assert not {"S", "M", "deck", "pile", "hands"} & set(names)


def test_the_discard_labels_features_are_those_of_the_players_own_view_and_ignore_hidden_cards() -> None:
    policy = GatedPolicy(with_discard(discard_gate(-1.0, np.eye(FX)[DISCARD_FEATURES.index("alt_improve_outs")])))
    features = rows_kernel(DISCARD_DECISION)
    labels_match_the_view_and_ignore_hidden_cards("discard", 13, 24, discard_rows, FX, features, policy)


def test_a_discard_gate_that_never_switches_is_the_two_gate_player_and_one_that_always_does_plays_the_second() -> None:
    hands, rows = discard_rows(40, 7, 1)
    obs, mask = hands.observe_rows(np.array(rows)), np.ascontiguousarray(hands.mask_view[rows])
    trained = GatedPolicy(with_discard(None)).act_batch(obs, mask)  # the shipped knock and draw gates alone
    np.testing.assert_array_equal(GatedPolicy(with_discard(discard_gate(1e9))).act_batch(obs, mask), trained)
    fp, ip = heuristic_params(HeuristicConfig())
    cards, scores = np.zeros(3, np.int64), np.zeros(3)
    second, third = [], []
    for k in range(len(rows)):
        assert dv.discard_top(obs, mask, k, fp, ip, cards, scores) == 3
        assert DISCARD_BASE + cards[0] == trained[k] and scores[0] <= scores[1] <= scores[2]
        second.append(DISCARD_BASE + cards[1])
        third.append(DISCARD_BASE + cards[2])
    np.testing.assert_array_equal(GatedPolicy(with_discard(discard_gate(-1e9))).act_batch(obs, mask), second)
    rank = np.eye(FX)[DISCARD_FEATURES.index("rank")]  # the score grows with the rank: the third is played
    np.testing.assert_array_equal(GatedPolicy(with_discard(discard_gate(-1e9, rank))).act_batch(obs, mask), third)


def test_discard_labels_value_three_discards_on_the_same_shuffles_and_repeat_with_the_seed() -> None:
    run = LabelRun(seed=3, deals=12, chunk=12, shuffles=4, decision="discard", rate=0.5)
    gate = load_gated(GATE_MODEL)
    a, b = label_chunk(run, 0, gate), label_chunk(run, 0, gate)
    for key in ("feats", "D", "alt_v", "base_v", "rank", "decision"):
        np.testing.assert_array_equal(a[key], b[key])
    np.testing.assert_allclose(a["D"], a["alt_v"] - a["base_v"])
    assert a["feats"].shape[1] == FX and len(a["D"]) > 12 and (a["alt_se"] > 0).any()
    np.testing.assert_array_equal(a["rank"], np.tile([1, 2], len(a["D"]) // 2))  # a decision's two rows
    np.testing.assert_array_equal(a["decision"], np.repeat(np.arange(len(a["D"]) // 2), 2))
    np.testing.assert_array_equal(a["base_v"][::2], a["base_v"][1::2])  # one base value per decision
    assert (a["feats"][:, 1] >= 0).all() and (a["feats"][1::2, 1] >= a["feats"][::2, 1]).all()  # score gaps


def test_the_discard_gate_fit_chooses_per_decision_and_the_three_gate_file_round_trips(tmp_path: Path) -> None:
    from gin3_training.gates.fit import cv_gain, fit_gate

    D = np.array([1.0, -2.0, -1.0, 3.0])  # decision 0: its first alternative gains, decision 1: its second
    pred = np.array([2.0, 0.5, 0.1, 1.0])
    t, gain, _, rate = cv_gain(D, pred, np.array([0, 0, 1, 1]), 2, group=np.array([0, 0, 1, 1]))
    assert gain == pytest.approx(2.0) and rate == 1.0 and t < 1.0
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, FX))
    labels = {"feats": X, "D": X[:, 4] - 0.5, "deal": np.repeat(np.arange(50), 4),
              "decision": np.repeat(np.arange(100), 2)}
    disc, report = fit_gate(labels, "discard", ("ridge",), 2)
    assert disc.decision == "discard" and report.decisions == 100 and report.scorers["ridge"]["cv_gain"] > 0
    gate = with_discard(disc)
    path = tmp_path / "g3.json"
    gate.save(path)
    back = load_gated(path)
    got = back.gate("discard")
    assert got is not None and back.gate("draw") is not None and got.threshold == disc.threshold
    np.testing.assert_array_equal(got.w2, disc.w2)
    assert "discard-ridge" in back.scorers and "discard ridge threshold=" in repr(GatedPolicy(back))
    policy = load_policy(str(path))  # a gate file is a policy spec
    assert isinstance(policy, GatedPolicy) and policy.model.gate("discard") is not None
    data = json.loads(path.read_text())
    two = tmp_path / "two.json"  # a file without a discard gate loads
    two.write_text(json.dumps({**data, "gates": data["gates"][:2]}))
    assert load_gated(two).gate("discard") is None


def test_a_chunk_says_its_progress_while_it_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk of minutes (the draw stage's took 243 s before its first line) says where it is meanwhile."""
    from gin3_training.gates import labels

    monkeypatch.setattr(labels, "PROGRESS_SECONDS", 0.0)
    said: list[str] = []
    run_labels(tmp_path / "labels", LabelRun(seed=7, deals=20, chunk=20, shuffles=3), progress=said.append)
    inside = [s for s in said if s.startswith("labels chunk 1/1: 4/20 deals; about ")]
    assert inside and "left in this stage" in inside[0]


def test_the_first_signal_asks_a_stop_in_one_line_and_the_second_stops_now(capsys: pytest.CaptureFixture[str]
                                                                          ) -> None:
    import signal

    from gin3_env.signals import Interrupted, StopRequest

    stop = StopRequest("gin3 train-gate", "the finished shards")
    with stop:
        assert not stop()
        stop._handle(signal.SIGINT, None)
        assert stop() and stop.signum == signal.SIGINT
        with pytest.raises(Interrupted) as info:
            stop._handle(signal.SIGINT, None)
    assert info.value.exit_code == 130
    err = capsys.readouterr().err
    line = "gin3 train-gate: SIGINT: stopping within seconds, keeping the finished shards; SIGINT again stops now"
    assert line in err
    assert signal.getsignal(signal.SIGINT) is not stop._handle  # the handlers are given back


def test_a_stop_keeps_the_chunks_labelled_deals_and_the_resumed_shard_is_the_same(tmp_path: Path) -> None:
    """A stop asked for mid-chunk is met after the batch in progress: the chunk's deals go to a part file,
    the next run says what it found, continues from there, and writes the shard an unstopped run writes."""
    run = LabelRun(seed=7, deals=40, chunk=20, shuffles=3)
    whole = run_labels(tmp_path / "whole", run)
    said: list[str] = []
    with pytest.raises(LabelsStopped, match="chunk 1/2: 4 of its 20 deals kept in"):
        run_labels(tmp_path / "stopped", run, stop=lambda: True, progress=said.append)  # after the first batch
    parts = list((tmp_path / "stopped").glob("*.part.npz"))
    assert len(parts) == 1
    said.clear()
    again = run_labels(tmp_path / "stopped", run, progress=said.append)
    assert said[0].startswith("labels: 0 of 2 shards and a part of chunk 1 found in ") and said[0].endswith("resuming")
    assert not list((tmp_path / "stopped").glob("*.part.npz"))
    for a, b in zip(whole, again, strict=True):
        with np.load(a) as x, np.load(b) as y:
            for key in x.files:
                np.testing.assert_array_equal(x[key], y[key])
    assert any("left in this stage" in s for s in said)


def test_the_command_lists_its_stages_with_estimates(tmp_path: Path) -> None:
    from gin3_training.gates.train import plan, plan_text

    cfg = GateConfig()  # the shipped config's stages
    text = plan_text(plan(cfg, tmp_path))
    assert "3 label stages" in text and "1. knock gate, stage 1: 120,000 deals x 64 shuffles, about 3 min" in text
    assert "2. draw gate, stage 2: 24,000 deals x 64 shuffles, about 40 min" in text
    assert "3. discard gate, stage 3: 21,000 deals x 32 shuffles, about 20 min" in text and "in all" in text
    from gin3_training.configs import read_config

    assert GateConfig(**read_config("gate", {}, GateConfig)) == cfg  # configs/gate.yaml: the defaults


@pytest.mark.pipelines
def test_ctrl_c_in_a_long_label_stage_stops_within_seconds_keeping_the_work(tmp_path: Path) -> None:
    """Ctrl-C in train-gate's draw stage (a chunk of minutes): a line at once, a stop within seconds, the
    chunk's labelled deals kept for the resume, exit 130 (it took about two minutes and kept nothing)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    stages = ("[{decision: knock, deals: 200, seed: 1, shuffles: 4}, "
              "{decision: draw, deals: 2000, seed: 2, shuffles: 16, rate: 0.25}]")
    args = [sys.executable, "-m", "gin3_env.cli", "train-gate", "--out", str(out), "--stages", stages, "--folds", "2",
            "--epochs", "1", "--hidden", "4"]
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "GIN3_COMPILE_NOTE": "0", "NUMBA_NUM_THREADS": "1"},
                            preexec_fn=as_from_a_shell)
    assert proc.stderr is not None
    lines: list[str] = []
    while not any("draw gate: labelling" in ln for ln in lines):
        line = proc.stderr.readline()
        assert line, "".join(lines)
        lines.append(line)
    assert "label stages" in "".join(lines) and "draw gate, stage 2: 2,000 deals x 16 shuffles" in "".join(lines)
    time.sleep(4)  # some batches of the draw chunk are labelled (one thread: a batch is under a second)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    rest = proc.stderr.read()
    code = proc.wait(timeout=120)
    took = time.monotonic() - sent
    assert code == 130, rest
    assert "SIGINT: stopping within seconds" in rest and "run the same command again to resume" in rest
    assert took < 30, took  # a batch is under a second; the whole chunk takes a minute or more
    assert list((out / "labels_2_draw").glob("*.part.npz")), rest
