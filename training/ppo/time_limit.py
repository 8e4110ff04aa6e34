"""A limit on a run's minutes: PPO stops at the first environment step past it."""

from __future__ import annotations

import time
from typing import Any


def time_limit_callbacks(max_minutes: float, started: float) -> list[Any]:
    """SB3 callbacks that end ``learn`` once ``max_minutes`` have passed since ``started``
    (a ``time.monotonic()`` reading); none for ``max_minutes`` 0 (no limit)."""
    if max_minutes <= 0:
        return []
    from stable_baselines3.common.callbacks import BaseCallback

    deadline = started + 60.0 * max_minutes

    class _TimeLimit(BaseCallback):
        def _on_step(self) -> bool:
            if time.monotonic() < deadline:
                return True
            print(f"[ppo] max_minutes {max_minutes:g} reached at step {self.model.num_timesteps:,}: "
                  "PPO stops here, the evaluation follows", flush=True)
            return False

    return [_TimeLimit()]
