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
KERNELS = ["hand_kernels", "heuristic_kernels", "belief_kernels", "features", "meld_kernels", "rollout"]


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


@pytest.mark.parametrize("name", KERNELS)
def test_kernels_retype_no_action_id_or_observation_offset(name: str) -> None:
    tree = ast.parse((PACKAGE / "kernels" / f"{name}.py").read_text())
    literals = sorted(
        {(n.value, n.lineno) for n in ast.walk(tree)
         if isinstance(n, ast.Constant) and type(n.value) is int and n.value in RETYPED}
    )
    assert not literals, f"kernels/{name}.py writes these as numbers (value, line): {literals}"


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
