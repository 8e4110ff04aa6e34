"""The engine, the observation encoding and the built-in policies work without the RL libraries.

Each check runs in a fresh interpreter in which importing gymnasium, pettingzoo, torch,
stable-baselines3 or sb3-contrib fails as if they were not installed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCKER = """
import importlib.abc, sys
BLOCKED = {"gymnasium", "gym", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
        return None
sys.meta_path.insert(0, Block())
"""


def run_blocked(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def test_engine_works_without_gymnasium_pettingzoo_and_torch() -> None:
    proc = run_blocked(
        """
        import numpy as np
        import gin3_env.engine as engine
        from gin3_env.engine import HandState, determinise
        state = HandState.deal(rng=np.random.default_rng(0))
        rng = np.random.default_rng(1)
        while not state.is_over:
            view = state.view(state.player)
            sample = determinise(view, rng)
            assert sample.view(state.player) == view
            legal = view.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        blocked = [m for m in ("gymnasium", "pettingzoo", "torch") if m in sys.modules]
        assert not blocked, blocked
        print("ok", state.result.outcome)
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok")


def test_package_observation_and_policies_without_the_env_libraries() -> None:
    proc = run_blocked(
        """
        import numpy as np
        import gin3_env
        from gin3_env.engine import HandState
        from gin3_env.observation import observe
        from gin3_env.game.driver import run_hand
        from gin3_env.policies import HeuristicPolicy, RandomPolicy
        state = HandState.deal(rng=np.random.default_rng(2))
        obs = observe(state.view(0))
        assert obs["observation"].shape == (374,) and obs["action_mask"].sum() == 2
        result = run_hand(state, (HeuristicPolicy(), RandomPolicy(seed=0)))
        assert result is not None
        try:
            gin3_env.env()
        except ImportError as exc:
            assert "pettingzoo" in str(exc) or "gymnasium" in str(exc), exc
        else:
            raise AssertionError("gin3_env.env() worked without pettingzoo")
        print("ok")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_batched_core_and_its_errors_without_the_env_libraries() -> None:
    proc = run_blocked(
        """
        import numpy as np
        from gin3_env.errors import InvalidActionError, InvalidSeedError
        from gin3_env.vector import VectorHands
        from gin3_env.errors import HandActionOutOfRangeError
        hands = VectorHands(3, seed=0)
        before = hands.observe()
        try:
            hands.step(np.array([0, 200, 0]))
        except HandActionOutOfRangeError as exc:
            assert isinstance(exc, InvalidActionError) and exc.hand == 1 and "hand 1" in str(exc), exc
        else:
            raise AssertionError("an out-of-range action was taken")
        try:
            hands.reset(seed=-1)
        except InvalidSeedError:
            pass
        else:
            raise AssertionError("a negative seed was taken")
        assert (hands.observe() == before).all()
        blocked = [m for m in ("gymnasium", "pettingzoo", "torch") if m in sys.modules]
        assert not blocked, blocked
        print("ok")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
