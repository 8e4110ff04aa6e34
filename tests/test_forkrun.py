"""The zygote that forks the suite's ``gin3`` commands (tests/forkrun.py) gives what a new interpreter gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import forkrun
import pytest


@pytest.mark.parametrize("args", [
    ["--help"],
    ["play", "--role", "dealer"],
    ["train", "--learner", "sitter"],
    ["evaluate", "heuristic", "nobody", "--hands", "2"],
])
def test_a_forked_command_prints_and_exits_as_a_new_interpreter_does(args: list[str], tmp_path: Path) -> None:
    fresh = subprocess.run([sys.executable, "-m", "gin3_env.cli", *args], capture_output=True, text=True, timeout=120,
                           cwd=tmp_path, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    forked = forkrun.run(args, cwd=tmp_path)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert list(tmp_path.iterdir()) == []


def test_a_forked_command_runs_in_the_folder_it_is_given(tmp_path: Path) -> None:
    done = forkrun.run(["evaluate", "heuristic", "random", "--hands", "2", "--matches", "0", "--json", "out.json"],
                       cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "out.json").read_text())["policy_a"] == "heuristic"
    refused = forkrun.run(["evaluate", "heuristic", "random", "--hands", "-1"], cwd=tmp_path)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and refused.stdout == ""
