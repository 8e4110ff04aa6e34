"""The random-play loop timed for every PettingZoo AEC contender (standard library only).

:mod:`gin3_env.benchmarks.envs` imports :func:`aec_loop` for gin3_env's envs, and
runs this file's text with ``python -c`` in the side virtualenv for PettingZoo
1.26.1's ``gin_rummy_v4`` (which cannot import gin3_env), so both are timed by
the same code. Run so, it takes ``SECONDS SEED`` and prints the rates as JSON.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from typing import Any


def rates(steps: int, hands: int, wall: float, cpu: float) -> dict[str, Any]:
    """Steps per second of this process's CPU time (``steps_per_s``, what is compared: it
    hardly moves when other processes share the machine) and of wall-clock time."""
    return {
        "steps": steps,
        "hands": hands,
        "seconds": wall,
        "cpu_seconds": cpu,
        "steps_per_s": steps / cpu,
        "steps_per_wall_s": steps / wall,
    }


def aec_loop(make_env: Callable[[], Any], seconds: float, seed: int) -> dict[str, Any]:
    """Random legal play through a PettingZoo AEC env for about ``seconds``."""
    aec = make_env()
    pick = random.Random(seed)
    aec.reset(seed=seed)
    steps = hands = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while True:
        aec.reset()
        for _agent in aec.agent_iter():
            obs, _reward, terminated, truncated, _info = aec.last()
            if terminated or truncated:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                action = int(legal[pick.randrange(len(legal))])
                steps += 1
            aec.step(action)
        hands += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return rates(steps, hands, elapsed, time.process_time() - cpu_start)


if __name__ == "__main__":  # in the side virtualenv: gin_rummy_v4
    import json
    import warnings

    warnings.filterwarnings("ignore")
    import pettingzoo
    from pettingzoo.classic import gin_rummy_v4

    result = aec_loop(gin_rummy_v4.env, float(sys.argv[1]), int(sys.argv[2]))
    print(json.dumps({**result, "pettingzoo": pettingzoo.__version__}))
