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


@pytest.mark.parametrize("make", ["env", "match_env"])
def test_torchrl_pettingzoo_wrapper_takes_the_infos(make: str) -> None:
    """TorchRL builds its info spec from ``torch.as_tensor`` of each info value at reset: the infos
    are numbers only, one schema on every step, so its wrapper and ``check_env_specs`` pass."""
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    import gin3_env

    kwargs = {"target_score": 10} if make == "match_env" else {}
    env = PettingZooWrapper(getattr(gin3_env, make)(**kwargs), use_mask=True, seed=0)
    check_env_specs(env)
    rollout = env.rollout(60, break_when_any_done=False)
    assert rollout.batch_size[0] == 60


def test_gymnasium_numpy_to_torch_on_make_vec() -> None:
    """Gymnasium's ``NumpyToTorch`` takes numeric infos only: the vector env's, at reset and every step."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("array_api_compat")
    import gymnasium as gym
    from gymnasium.wrappers.vector import NumpyToTorch

    import gin3_env  # noqa: F401  (registers the ids)

    for mode in ("NextStep", "SameStep"):
        envs = NumpyToTorch(gym.make_vec("gin3/ThreeHandedGin-v0", 4, opponent="heuristic", autoreset_mode=mode))
        _, info = envs.reset(seed=0)
        generator = torch.Generator().manual_seed(0)
        ended = 0
        for _ in range(80):
            actions = torch.multinomial(info["action_mask"].float(), 1, generator=generator).squeeze(1)
            _, _, terminated, truncated, info = envs.step(actions)
            ended += int((terminated | truncated).sum())
        assert ended > 0 and isinstance(info["learner"], torch.Tensor)
