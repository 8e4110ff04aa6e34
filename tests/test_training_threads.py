"""Threads of a training run: OpenMP's passive wait set before torch loads, torch and numba chosen together."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gin3_training.threads import ThreadPlan, plan_threads, prefer_passive_wait

PROBE = "import os, sys; import gin3_training; print(os.environ.get('OMP_WAIT_POLICY'), 'torch' in sys.modules)"


def _probe(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120,
                          env={**clean, **env})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_importing_training_sets_a_passive_wait_before_torch_loads() -> None:
    assert _probe() == "PASSIVE False"


def test_a_wait_policy_the_user_set_is_kept() -> None:
    assert _probe(OMP_WAIT_POLICY="ACTIVE") == "ACTIVE False"


def test_prefer_passive_wait_says_whether_it_set_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    assert prefer_passive_wait() is True and os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    assert prefer_passive_wait() is False and os.environ["OMP_WAIT_POLICY"] == "ACTIVE"


def test_plan_threads_caps_both_pools_and_says_why() -> None:
    assert plan_threads(1, 1, cores=8, pool=8) == ThreadPlan(1, 1)
    assert plan_threads(2, 0, cores=8, pool=8) == ThreadPlan(2, 8)  # 0: one per core
    assert plan_threads(1, 0, cores=8, pool=4) == ThreadPlan(1, 4)  # numba's pool is the limit
    plan = plan_threads(16, 16, cores=2, pool=4)
    assert (plan.torch, plan.core) == (2, 2)
    assert any("torch_threads 16 lowered to 2" in n for n in plan.notes)
    assert any("core_threads 16 lowered to 2" in n for n in plan.notes)
    for bad in ((0, 1), (1, -1), (True, 1), (1.5, 1)):
        with pytest.raises(ValueError, match="threads must be an int"):
            plan_threads(*bad, cores=2, pool=2)  # type: ignore[arg-type]


def test_apply_threads_sets_torch_and_the_batched_core() -> None:
    torch = pytest.importorskip("torch")
    from gin3_env.kernels import threads as core_threads
    from gin3_training.threads import apply_threads

    before = torch.get_num_threads()
    try:
        apply_threads(ThreadPlan(1, 1))
        assert torch.get_num_threads() == 1
        assert not core_threads.use_threads(10_000)  # one batched-core thread: the serial kernels
    finally:
        torch.set_num_threads(before)
