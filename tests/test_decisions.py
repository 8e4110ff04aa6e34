"""The learnt decisions as data: the table, the kernels that write each row's features at named indices,
the stacked gate argument, the label run of any row, the rules' knock limit, and the saved file."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import rows_of_play

from gin3_env.engine.rules import Rules
from gin3_env.kernels import decision_features as df
from gin3_env.kernels.decisions import DECISIONS, DRAW_DECISION, MAX_ALTERNATIVES, MAX_FEATURES, decision, feature_index
from gin3_env.kernels.gates import NO_GATES, features_rows, stack_gates
from gin3_env.kernels.heuristic_params import HeuristicConfig, heuristic_params
from gin3_env.policies.gate_file import GatedModel, load_gated
from gin3_env.policies.gated import GatedPolicy
from gin3_env.vector import HeuristicBatch, RandomBatch, VectorHands
from gin3_training.gates.labels import LabelRun, _decks, label_chunk

ROOT = Path(__file__).resolve().parent.parent
GATE_MODEL = ROOT / "gin3_env" / "models" / "gated.json"


def random_rows(n: int, seed: int, steps: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every live row over ``steps`` moves of random play of ``n`` deals."""
    hands = VectorHands(n)
    hands.reset(decks=_decks(seed, 0, n))
    return rows_of_play(hands, RandomBatch(seed), steps)


def test_the_table_names_each_decisions_features_alternatives_and_options() -> None:
    assert [d.code for d in DECISIONS] == list(range(len(DECISIONS)))
    assert len({d.name for d in DECISIONS}) == len(DECISIONS) and all(decision(d.name) is d for d in DECISIONS)
    for d in DECISIONS:
        assert len(set(d.features)) == len(d.features) and len(d.features) <= MAX_FEATURES
        assert 1 <= d.max_alternatives <= MAX_ALTERNATIVES and d.per_deal >= d.max_alternatives
        for o in d.options:
            assert o.feature in d.features
    with pytest.raises(ValueError, match="unknown decision 'meld'"):
        decision("meld")


def test_the_features_kernel_writes_each_feature_at_the_index_its_name_has() -> None:
    # each row's named indices share one prefix (K_KNOCK_DEADWOOD): found from the table, not listed here
    named = {k: v for k, v in vars(df).items() if len(k) > 2 and k[1] == "_" and k.isupper() and isinstance(v, int)}
    prefixes = {k[:2] for k in named}
    for d in DECISIONS:
        wanted = {f: feature_index(d.code, f) for f in d.features}
        found = [p for p in prefixes if all(named.get(p + f.upper()) == i for f, i in wanted.items())]
        assert len(found) == 1, f"the features of {d.name!r} have no one prefix of named indices: {found}"
        assert {k[2:].lower(): v for k, v in named.items() if k.startswith(found[0])} == wanted, d.name
    tree = ast.parse((ROOT / "gin3_env" / "kernels" / "decision_features.py").read_text())
    positional = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
                  and n.value.id == "out" and isinstance(n.slice, ast.Constant)]
    assert not positional, f"features written by position at lines {positional}"


def test_the_stacked_argument_has_a_slot_per_row_and_no_gates_is_the_heuristic() -> None:
    present = NO_GATES[0]
    assert present.shape == (len(DECISIONS),) and not present.any()
    model = load_gated(GATE_MODEL)
    stacked = stack_gates(model.gates)
    shipped = {g.decision for g in model.gates}
    assert stacked[0].tolist() == [int(d.name in shipped) for d in DECISIONS]
    only_draw = stack_gates([model.gate("draw")])
    width = len(DECISIONS[DRAW_DECISION].features)
    assert only_draw[0].tolist() == [int(d.code == DRAW_DECISION) for d in DECISIONS]
    assert only_draw[1][DRAW_DECISION].tolist() == [width, 32]
    assert [a.dtype for a in only_draw] == [a.dtype for a in stacked]  # one type: one compile
    with pytest.raises(ValueError, match="two gates of the decision 'draw'"):
        stack_gates([model.gate("draw"), model.gate("draw")])
    obs, mask = random_rows(64, 3)
    np.testing.assert_array_equal(GatedPolicy(GatedModel()).act_batch(obs, mask), HeuristicBatch().act(obs, mask))


def test_a_label_run_values_the_alternatives_of_any_row_of_the_table() -> None:
    for d in DECISIONS:
        out = label_chunk(LabelRun(seed=5, deals=6, chunk=6, shuffles=2, decision=d.name), 0, None)
        assert out["feats"].shape[1] == len(d.features) and len(out["D"]) > 0, d.name
        a, _, b = d.values
        np.testing.assert_allclose(out["D"], out[a] - out[b])
        assert ("decision" in out) == (d.max_alternatives > 1)


def test_the_features_count_a_hand_within_the_rules_knock_limit_as_knockable() -> None:
    obs, mask = random_rows(64, 4)
    fp, ip = heuristic_params(HeuristicConfig())
    width = len(DECISIONS[DRAW_DECISION].features)
    f = {}
    for limit in (0, 5, 10):
        f[limit] = np.zeros((len(obs), width))
        features_rows(DRAW_DECISION, obs, mask, fp, ip, limit, f[limit])
    rows = ~np.isnan(f[10][:, 0])
    assert rows.sum() > 50
    take_dw = f[10][rows, df.D_TAKE_DEADWOOD]
    for limit in (0, 5, 10):
        np.testing.assert_array_equal(f[limit][rows, df.D_TAKE_KNOCKABLE], (take_dw <= limit).astype(float))
    assert (f[5][rows, df.D_DRAW_KNOCKABLE] <= f[10][rows, df.D_DRAW_KNOCKABLE]).all()
    assert (f[5][rows, df.D_DRAW_KNOCKABLE] < f[10][rows, df.D_DRAW_KNOCKABLE]).any()
    others = np.ones(width, bool)
    others[[df.D_TAKE_KNOCKABLE, df.D_DRAW_KNOCKABLE]] = False
    np.testing.assert_array_equal(f[5][rows][:, others], f[10][rows][:, others])  # nothing else reads the rule


def test_the_gated_player_follows_the_rules_it_is_given() -> None:
    model = load_gated(GATE_MODEL)
    default, usual = GatedPolicy(model, "gated"), GatedPolicy(model, "gated", rules=Rules())
    five = GatedPolicy(model, "gated", rules=Rules(knock_limit=5))
    assert default.heuristic.knock_limit == usual.heuristic.knock_limit == 10 and five.heuristic.knock_limit == 5
    assert five._limit == 5 and five._ip[0] == 5 and default._limit == 10
    obs, mask = random_rows(128, 6)
    np.testing.assert_array_equal(default.act_batch(obs, mask), usual.act_batch(obs, mask))
    assert (five.act_batch(obs, mask) != default.act_batch(obs, mask)).any()  # the rule changes some choices
    with pytest.raises(ValueError, match="rules must be a Rules"):
        GatedPolicy(model, "gated", rules={"knock_limit": 5})  # type: ignore[arg-type]


def test_a_gated_model_saves_in_the_gates_format(tmp_path: Path) -> None:
    model = load_gated(GATE_MODEL)
    path = tmp_path / "g.json"
    model.save(path)
    data = json.loads(path.read_text())
    assert data["format"] == "gin3-gates" and [g["decision"] for g in data["gates"]] == ["knock", "draw", "discard"]
    assert [g["scorer"] for g in data["gates"]] == [g.scorer for g in model.gates]
    assert data["heuristic"] == model.heuristic.to_dict()
