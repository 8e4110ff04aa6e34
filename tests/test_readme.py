"""The README's Python examples run as written, and its two set-up commands are the CI's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
CI = Path(__file__).resolve().parent.parent / ".ci" / "run"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_has_its_python_examples() -> None:
    assert len(_blocks("python")) >= 4


@pytest.mark.parametrize("i", range(len(_blocks("python"))))  # one test each: the workers share them out
def test_each_python_example_runs_in_a_fresh_interpreter(i: int) -> None:
    """A reader copies one snippet, not the page: each runs alone, in a new process."""
    pytest.importorskip("sb3_contrib")
    block = _blocks("python")[i]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # the torch snippets: one thread is faster on a shared machine
    done = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, f"README python example {i + 1} fails on its own:\n{block}\n{done.stderr[-3000:]}"


def test_one_table_of_illegal_and_out_of_range_actions() -> None:
    """The README's table holds what each env really does."""
    import gymnasium
    import numpy as np

    import gin3_env
    from gin3_env.engine.hand import IllegalActionError
    from gin3_env.envs.wrapping import ActionOutOfRangeError

    text = README.read_text()
    table = text[text.index("| env | an illegal action") :].split("\n\n")[0]
    for row in ("`gin3_env.env()`", "`gin3_env.raw_env()`", "Gymnasium `gin3/ThreeHandedGin-v0`"):
        assert row in table
    assert "ActionOutOfRangeError" in table and "IllegalActionError" in table and "action out of range" in table

    wrapped = gin3_env.env()
    wrapped.reset(seed=0)
    illegal = int(np.flatnonzero(wrapped.observe("team_0")["action_mask"] == 0)[-1])
    for bad in (500, -1, 2.5):
        with pytest.raises(ActionOutOfRangeError, match=re.escape(f"action {bad} is not in")):
            wrapped.step(bad)
    with pytest.raises(AssertionError):  # what PettingZoo's own wrapper raised
        wrapped.step(500)
    wrapped.step(illegal)
    assert wrapped.terminations["team_0"] and wrapped.rewards["team_0"] == -1

    raw = gin3_env.raw_env()
    raw.reset(seed=0)
    with pytest.raises(ValueError, match=r"action out of range 0\.\.106: 500"):
        raw.step(500)
    with pytest.raises(IllegalActionError, match=f"illegal action {illegal}"):
        raw.step(illegal)

    env = gymnasium.make("gin3/ThreeHandedGin-v0", opponent="random")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action out of range 0\.\.106: 500"):
        env.step(500)
    mask = env.unwrapped.action_masks()
    _, reward, terminated, _, info = env.step(int(np.flatnonzero(~mask)[-1]))
    assert (reward, terminated, info["illegal_action"]) == (-25.0, True, True)


def test_readme_opens_with_the_two_setup_commands() -> None:
    first, second = _blocks("bash")[:2]
    assert "pip install torch==2.13.0" in first and first.strip().endswith("gin3 train --config quick")
    assert "pip install torch==2.13.0" in second and second.strip().endswith("pytest -q")
    ci = CI.read_text()
    assert "pip install torch==2.13.0" in ci and "pytest -q" in ci


def test_relative_links_point_at_files() -> None:
    """Every relative link and image in the README names a file of the checkout."""
    targets = re.findall(r"\]\(([^)#\s]+)\)", README.read_text())
    local = [t for t in targets if "://" not in t]
    assert "docs/rules.md" in local
    missing = [t for t in local if not (README.parent / t).exists()]
    assert not missing, f"README links to missing files: {missing}"
