"""The examples of docs/libraries.md, one per learning library, each run as its page says: a
few thousand steps of training, then evaluation hands with no illegal action (each script
asserts it and exits non-zero otherwise).

Marked ``clients`` (not in the default run): ``.ci/run`` runs ``pytest -m clients`` in each
virtual environment whose pins allow a library (the RLlib and AgileRL ones of their own); a
library that is not installed in the running environment is skipped.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

pytestmark = pytest.mark.clients

# example script, the modules it needs, its small-budget arguments
CLIENTS = {
    "sb3": ("sb3_maskable_ppo.py", ("sb3_contrib",), ["--steps", "2048", "--episodes", "20"]),
    "cleanrl": ("cleanrl_masked_ppo.py", ("torch",), ["--iterations", "3"]),
    "torchrl": ("torchrl_dqn.py", ("torchrl",), ["--frames", "2000", "--episodes", "10"]),
    "tianshou": ("tianshou_dqn.py", ("tianshou",), ["--steps", "2000", "--episodes", "5"]),
    "shimmy": ("shimmy_openspiel.py", ("shimmy", "pyspiel"), ["--steps", "2000", "--episodes", "10"]),
    "agilerl": ("agilerl_dqn.py", ("agilerl",), ["--steps", "2000", "--episodes", "32"]),
    "rllib": ("rllib_ppo.py", ("ray",), ["--iterations", "2", "--episodes", "10"]),
}


@pytest.mark.parametrize("name", list(CLIENTS))
def test_example_trains_and_plays_only_legal_actions(name: str) -> None:
    script, modules, args = CLIENTS[name]
    for module in modules:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed in this environment")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True,
                          timeout=1800, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    line = [ln for ln in proc.stdout.splitlines() if re.search(r"\d+ actions, \d+ illegal", ln)]
    assert line, proc.stdout[-2000:]
    actions, illegal = map(int, re.search(r"(\d+) actions, (\d+) illegal", line[-1]).groups())  # type: ignore[union-attr]
    assert actions > 0 and illegal == 0
