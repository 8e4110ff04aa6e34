"""The Python examples of the README and of the docs pages run as written, and the README's two set-up
commands are the CI's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"
GETTING_STARTED = ROOT / "docs" / "getting_started.md"
# the docs pages whose Python blocks are examples a reader runs (design, rules and the research notes have none)
PAGES = sorted(path for path in (ROOT / "docs").rglob("*.md") if "_build" not in path.parts)


def _blocks(language: str, page: Path = README) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", page.read_text(), flags=re.S)


def _run_block(page: Path, i: int) -> None:
    """A reader copies one snippet, not the page: each runs alone, in a new process."""
    pytest.importorskip("sb3_contrib")
    block = _blocks("python", page)[i]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # the torch snippets: one thread is faster on a shared machine
    done = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=300, env=env,
                          cwd=ROOT)
    where = f"{page.relative_to(ROOT)}: python example {i + 1}"
    assert done.returncode == 0, f"{where} fails on its own:\n{block}\n{done.stderr[-3000:]}"


def test_the_readme_has_its_python_examples() -> None:
    assert len(_blocks("python")) >= 4


@pytest.mark.parametrize("i", range(len(_blocks("python"))))  # one test each: the workers share them out
def test_each_python_example_runs_in_a_fresh_interpreter(i: int) -> None:
    _run_block(README, i)


# the docs pages' examples, but those also in the README (run by the test above)
DOCS_EXAMPLES = [(page, i) for page in PAGES for i, block in enumerate(_blocks("python", page))
                 if block not in _blocks("python")]
# They run in two fresh interpreters, not one each (an interpreter and its imports cost more CPU than most examples):
# those that train with torch, then the rest. Each block runs in a namespace of its own, as ``__main__``, so a
# block that uses a name it does not import or define still fails; what one block imported stays imported.
RUNNER = """
import json, sys, traceback
failures = []
for where, block in json.loads(open(sys.argv[1]).read()):
    try:
        exec(compile(block, where, "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except BaseException:
        failures.append(where + ":\\n" + block + "\\n" + traceback.format_exc()[-3000:])
open(sys.argv[2], "w").write(json.dumps(failures))
"""


def _uses_torch(block: str) -> bool:
    return any(name in block for name in ("torch", "sb3_contrib", "stable_baselines3"))


@pytest.mark.parametrize("torch_examples", [True, False], ids=["torch", "others"])
def test_the_python_examples_of_the_docs_run(torch_examples: bool, tmp_path: Path) -> None:
    import json

    pytest.importorskip("sb3_contrib")
    blocks = [(f"{page.relative_to(ROOT)}: python example {i + 1}", _blocks("python", page)[i])
              for page, i in DOCS_EXAMPLES if _uses_torch(_blocks("python", page)[i]) == torch_examples]
    assert blocks
    (tmp_path / "blocks.json").write_text(json.dumps(blocks))
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # the torch snippets: one thread is faster on a shared machine
    done = subprocess.run([sys.executable, "-c", RUNNER, str(tmp_path / "blocks.json"), str(tmp_path / "out.json")],
                          capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    failures = json.loads((tmp_path / "out.json").read_text())
    assert not failures, "\n\n".join(failures)


def test_the_moved_examples_are_still_tested() -> None:
    """The examples that left the README for the docs pages are among the pages run above."""
    tested = "".join(block for page in PAGES for block in _blocks("python", page))
    for line in ("HandState.deal(rng=np.random.default_rng(1))", "RecordVideo(env, video_folder=folder",
                 "VectorHands(1024, seed=0)", "make_vec_env(\"gin3/ThreeHandedGin-v0\", n_envs=2",
                 "ismcts_bot(game, 50", "evaluate_hands(HeuristicPolicy(), RandomPolicy(seed=0)",
                 "env.reset(options={\"deck\": list(range(52))})", "state = env.state()"):
        assert line in tested, f"no docs page runs the example with {line!r}"


def test_one_table_of_illegal_and_out_of_range_actions() -> None:
    """The table of Getting started holds what each env really does."""
    import gymnasium
    import numpy as np

    import gin3_env
    from gin3_env.errors import ActionOutOfRangeError, IllegalActionError

    text = GETTING_STARTED.read_text()
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


def test_readme_is_a_front_page() -> None:
    assert len(README.read_text().splitlines()) <= 250


def test_the_readme_gives_the_tests_cpu_minutes_beside_their_wall_time() -> None:
    """A wall time alone misleads on a busy machine: the README says what the test run needs in CPU-minutes."""
    text = re.sub(r"\s+", " ", README.read_text())
    match = re.search(r"The tests, `pytest -q`, need about ([\d.]+) CPU-minutes: (\d+) min (\d+) s of wall time", text)
    assert match, "the README's test time names its CPU-minutes and its wall time"
    cpu, wall = float(match[1]), int(match[2]) + int(match[3]) / 60
    assert wall < cpu <= 2 * wall  # two cores: the CPU-minutes lie between one and two wall-minutes each
