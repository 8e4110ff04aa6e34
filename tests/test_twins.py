"""The compiled core is tied to the scalar code by source: each scalar module with a compiled twin
names it and the test that compares them, and the kernels take the action ids, the phase codes
and the observation's offsets from the engine and the layout table, not as retyped numbers."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import rows_of_play

from gin3_env.engine.actions import DISCARD_BASE, KNOCK_BASE, NUM_ACTIONS
from gin3_env.engine.hand import HandState
from gin3_env.engine.rules import Rules
from gin3_env.engine.showdown import knock_score, score_knock
from gin3_env.observation import layout

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gin3_env"
TWIN_LINE = re.compile(r"^Compiled twin: .*?(gin3_env\.kernels\.\w+).*tied by ``(tests/test_\w+\.py)``\.$", re.M)

# Numbers a kernel would only write to retype an action id or an observation offset.
RETYPED = {
    KNOCK_BASE, NUM_ACTIONS, layout.OBS_SIZE, layout.PHASE_OFFSET, layout.ROLE_OFFSET, layout.STOCK_INDEX,
    layout.DEADWOOD_INDEX, layout.TURN_INDEX, *(plane * layout.PLANE for plane in range(2, layout.NUM_PLANES)),
}
KERNELS = ["hand_kernels", "heuristic_kernels", "belief_kernels", "features", "meld_kernels", "rollout", "decisions",
           "decision_views", "decision_features", "gates", "net_features", "policy_belief"]
# the lab's label kernels (compiled too, on the same tables): file -> module
LAB_KERNELS = {ROOT / "training" / "gates" / "label_kernels.py": "gin3_training.gates.label_kernels",
               ROOT / "training" / "improve" / "label_kernels.py": "gin3_training.improve.label_kernels"}
KERNEL_FILES = {**{PACKAGE / "kernels" / f"{name}.py": f"gin3_env.kernels.{name}" for name in KERNELS},
                **LAB_KERNELS}


def twin_lines() -> dict[str, tuple[str, str]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "kernels" in path.parts:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        lines = TWIN_LINE.findall(doc)
        assert len(lines) <= 1, f"{path}: more than one compiled-twin line"
        if lines:
            found[str(path.relative_to(ROOT))] = lines[0]
    return found


def test_each_compiled_twin_is_named_with_the_test_that_ties_it() -> None:
    lines = twin_lines()
    expected = {
        "gin3_env/engine/hand.py", "gin3_env/engine/melds.py", "gin3_env/engine/showdown.py",
        "gin3_env/engine/layoffs.py", "gin3_env/engine/phases.py", "gin3_env/observation/encoding.py",
        "gin3_env/observation/features.py", "gin3_env/policies/heuristic.py",
    }
    assert expected <= set(lines), f"scalar modules that do not name their compiled twin: {expected - set(lines)}"
    for module, (kernel, test) in lines.items():
        importlib.import_module(kernel)  # the twin exists
        assert (ROOT / test).is_file(), f"{module} names {test}, which does not exist"


@pytest.mark.parametrize("path", list(KERNEL_FILES), ids=lambda p: p.stem if p.parent.name == "kernels" else
                         f"{p.parent.name}/{p.stem}")
def test_kernels_retype_no_action_id_or_observation_offset(path: Path) -> None:
    name = path.stem
    tree = ast.parse(path.read_text())
    literals = sorted(
        {(n.value, n.lineno) for n in ast.walk(tree)
         if isinstance(n, ast.Constant) and type(n.value) is int and n.value in RETYPED}
    )
    assert not literals, f"kernels/{name}.py writes these as numbers (value, line): {literals}"


# small helpers a kernel may call with a constant (each constant compiles the helper again, in a fraction of a s)
LITERAL_OK = {"obs_plane", "_end", "_choice_drops"}


def test_no_kernel_passes_a_constant_to_a_large_kernel() -> None:
    """numba compiles a kernel called with a constant (``act_row(obs, mask, 0, ...)``) again for that constant,
    with everything it calls (``Literal[int](0)``: kernels/jit.py); the gated player's kernels once took twice their
    compile time that way. Every call from one kernel to another passes variables or ``np.int64(...)``."""
    kernel_names = set()
    paths = {**{path: f"gin3_env.kernels.{path.stem}" for path in sorted((PACKAGE / "kernels").glob("*.py"))},
             **LAB_KERNELS}
    trees = {path: ast.parse(path.read_text()) for path in paths}
    for tree in trees.values():
        kernel_names |= {node.name for node in tree.body if isinstance(node, ast.FunctionDef)
                         and any("njit" in ast.unparse(d) for d in node.decorator_list)}
    assert {"act_row", "gated_act_row", "alternatives", "label_deals"} <= kernel_names
    found = []
    for path, tree in trees.items():
        module = importlib.import_module(paths[path])
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name not in kernel_names or name in LITERAL_OK:
                continue
            for arg in node.args:
                constant = isinstance(arg, ast.Constant) and isinstance(arg.value, int)
                if isinstance(arg, ast.Name) and re.fullmatch(r"[A-Z][A-Z0-9_]*", arg.id):
                    constant = isinstance(getattr(module, arg.id, None), int)
                if constant:
                    found.append(f"{path.name}:{node.lineno} {name}(... {ast.unparse(arg)} ...)")
    assert not found, found


def test_the_kernels_compile_the_engines_knock_score() -> None:
    from gin3_env.kernels import meld_kernels

    assert meld_kernels.knock_score.py_func is knock_score  # one function, compiled
    rules = Rules(gin_bonus=20, undercut_bonus=15)
    for k, d in [(0, 0), (0, 17), (3, 9), (9, 3), (7, 7)]:
        code, won, points = meld_kernels.knock_score(k, d, rules.gin_bonus, rules.undercut_bonus)
        assert (code, won, points) == knock_score(k, d, rules.gin_bonus, rules.undercut_bonus)
        assert score_knock(k, d, rules)[1:] == (won, points)


def test_the_kernels_read_the_engines_action_ids() -> None:
    from gin3_env.kernels import hand_kernels as hk
    from gin3_env.kernels.hands import VectorHands

    assert (hk.DISCARD_BASE, hk.KNOCK_BASE, hk.NUM_ACTIONS) == (DISCARD_BASE, KNOCK_BASE, NUM_ACTIONS)
    deck = np.random.default_rng(0).permutation(52)
    hands = VectorHands(1, seed=0)
    hands.reset(decks=deck[None])
    state = HandState.deal(deck=[int(c) for c in deck])
    while not state.is_over:
        assert list(np.flatnonzero(hands.mask_view[0])) == state.legal_actions()
        action = state.legal_actions()[-1]
        hands.apply(np.array([0]), np.array([action]))
        state.apply(action)


def _played_rows(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from gin3_env.vector import HeuristicBatch, VectorHands

    hands = VectorHands(n, seed=seed)
    hands.reset()
    return rows_of_play(hands, HeuristicBatch(), 60)


def test_the_features_kernels_compute_what_their_python_source_computes() -> None:
    """Differential, compiled kernel against its own source run by Python (``py_func``): the view counts, each
    decision's features and alternatives, the gate's score and choice, and the network's inputs, on the rows of
    the heuristic's play (the kernels the twins above do not tie to the engine)."""
    from gin3_env.kernels import decision_features as df
    from gin3_env.kernels import decision_views as dv
    from gin3_env.kernels import gates, net_features
    from gin3_env.kernels.decisions import DECISIONS, MAX_ALTERNATIVES, MAX_FEATURES
    from gin3_env.kernels.heuristic_kernels import act_row
    from gin3_env.kernels.heuristic_params import HeuristicConfig, heuristic_params
    from gin3_env.policies.gate_file import load_gated

    obs, mask = _played_rows(24, 8)
    fp, ip = heuristic_params(HeuristicConfig())
    stacked = gates.stack_gates(load_gated(PACKAGE / "models" / "gated.json").gates)
    seen = {d.code: 0 for d in DECISIONS}
    for k in range(len(obs)):
        assert dv.view_counts(obs, k) == dv.view_counts.py_func(obs, k)
        a = act_row(obs, mask, k, fp, ip)
        for d in DECISIONS:
            x1, x2 = np.zeros((MAX_ALTERNATIVES, MAX_FEATURES)), np.zeros((MAX_ALTERNATIVES, MAX_FEATURES))
            alts1, alts2 = np.zeros(MAX_ALTERNATIVES, np.int64), np.zeros(MAX_ALTERNATIVES, np.int64)
            n = df.alternatives(d.code, obs, mask, k, a, fp, ip, 7, x1, alts1)
            assert n == df.alternatives.py_func(d.code, obs, mask, k, a, fp, ip, 7, x2, alts2)
            np.testing.assert_array_equal(alts1[:n], alts2[:n])
            np.testing.assert_array_equal(x1[:n], x2[:n])
            branch = {"knock": df.knock_features, "draw": df.draw_features, "discard": df.discard_features}[d.name]
            for i in range(n):  # each branch's own source against its compiled form
                y = np.zeros(MAX_FEATURES)
                if d.name == "knock":
                    branch.py_func(obs, mask, k, a, alts1[i], y)
                elif d.name == "draw":
                    branch.py_func(obs, mask, k, a, 7, y)
                else:
                    cards, scores = np.zeros(3, np.int64), np.zeros(3)
                    dv.discard_top(obs, mask, k, fp, ip, cards, scores)
                    branch.py_func(obs, mask, k, cards[0], cards[i + 1], i + 1, scores[i + 1] - scores[0], 7, y)
                np.testing.assert_array_equal(y, x1[i])
                assert gates.gate_score(x1[i], stacked, d.code) == gates.gate_score.py_func(x1[i], stacked, d.code)
            seen[d.code] += n > 0
        assert gates.gated_choice(a, obs, mask, k, fp, ip, stacked, 10) == gates.gated_choice.py_func(
            a, obs, mask, k, fp, ip, stacked, 10)
    assert min(seen.values()) > 5, seen
    rows = np.arange(min(len(obs), 60))
    got = net_features.net_inputs(obs[rows], mask[rows], 10)
    legal_rows, _ = np.nonzero(mask[rows])
    start = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(np.bincount(legal_rows, minlength=len(rows)), out=start[1:])
    state = np.empty_like(got[0])
    act = np.empty_like(got[1])
    for k in range(len(rows)):
        net_features._row_inputs.py_func(obs[rows], mask[rows], k, 10, start, state, act)
    np.testing.assert_array_equal(state, got[0])
    np.testing.assert_array_equal(act, got[1])
